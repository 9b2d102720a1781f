import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { HandlerDefinition } from "../../functions/composition/lambda-entry";
import { BILLING_FUNCTIONS } from "../../functions/function-table";
import { apiGatewayEvent, matchPath } from "../../local/lambda/api-gateway-event";
import { stubContext } from "../../local/lambda/lambda-context";
import type { TestContainer } from "./handler-env";

// Our pages as their HTTP API invokes them: the route of a URL's path among the function table's page routes, the
// v2 event of the request, and the wrapped handler of its function in the test's container.

export interface PageReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
}

export interface PageRequest {
  readonly headers?: Readonly<Record<string, string>>;
  /** A form's fields (sent as application/x-www-form-urlencoded). */
  readonly form?: Readonly<Record<string, string>>;
}

/** A request to one of our pages (any host: the path picks the route). */
export async function requestPage(
  container: TestContainer,
  method: "GET" | "POST",
  url: string,
  request: PageRequest = {},
): Promise<PageReply> {
  const path = new URL(url).pathname;
  for (const spec of BILLING_FUNCTIONS) {
    if (spec.trigger.kind !== "http" || spec.trigger.api !== "pages") continue;
    for (const route of spec.trigger.routes) {
      const pathParameters = route.method === method ? matchPath(route.path, path) : undefined;
      if (pathParameters === undefined) continue;
      const body = request.form === undefined ? "" : new URLSearchParams(request.form).toString();
      const headers = {
        ...(request.form === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }),
        ...request.headers,
      };
      const event = apiGatewayEvent(
        { method, url, headers, body },
        { routeKey: `${route.method} ${route.path}`, pathParameters },
      );
      // A page route's function takes the v2 event and answers a proxy result.
      const page = spec as unknown as HandlerDefinition<
        APIGatewayProxyEventV2,
        APIGatewayProxyStructuredResultV2,
        unknown
      >;
      const reply = await container.handler(page)(event, stubContext(spec.name));
      return {
        status: reply.statusCode ?? 200,
        headers: Object.fromEntries(
          Object.entries(reply.headers ?? {}).map(([name, value]) => [name, String(value)]),
        ),
        text: reply.body ?? "",
      };
    }
  }
  throw new Error(`no page route ${method} ${path}`);
}

/** The value of a hidden field of a page's form. */
export function hiddenField(page: string, name: string): string {
  const found = new RegExp(`name="${name}" value="([^"]*)"`).exec(page);
  if (found?.[1] === undefined) throw new Error(`the page has no field ${name}`);
  return found[1];
}

/** The JSON of a page's `<script type="application/json" id=…>` block. */
export function scriptJson(page: string, id: string): unknown {
  const found = new RegExp(`<script type="application/json" id="${id}">([^<]*)</script>`).exec(page);
  if (found?.[1] === undefined) throw new Error(`the page has no JSON block ${id}`);
  return JSON.parse(found[1]);
}
