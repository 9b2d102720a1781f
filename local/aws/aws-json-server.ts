import { createServer, type IncomingMessage } from "node:http";
import type { z } from "zod";
import { type LoopbackServer, listenOnLoopback } from "./loopback-server";

/** An error in the AWS JSON protocol's shape: `{"__type": type, "message"}` with an HTTP 4xx/5xx status. */
export class AwsJsonError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** One operation: raw JSON input → reply (or an AwsJsonError thrown). */
export type JsonOperation = (input: unknown) => unknown;

/** An operation whose input is validated with `schema` first (a ValidationException names the field). */
export function operation<S extends z.ZodType>(
  schema: S,
  run: (input: z.output<S>) => unknown,
): JsonOperation {
  return (raw) => {
    const input = schema.safeParse(raw, { reportInput: false });
    if (input.success) return run(input.data);
    const issue = input.error.issues[0];
    throw new AwsJsonError("ValidationException", `${issue?.path.join(".") || "input"}: ${issue?.message}`);
  };
}

export type AwsJsonServer = LoopbackServer;

const JSON_CONTENT_TYPE = "application/x-amz-json-1.1";

/** A request's body as UTF-8 text. */
export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
}

function answer(
  request: IncomingMessage,
  body: string,
  prefix: string,
  operations: Record<string, JsonOperation>,
) {
  const target = request.headers["x-amz-target"];
  const name =
    typeof target === "string" && target.startsWith(`${prefix}.`) ? target.slice(prefix.length + 1) : "";
  const selected = Object.hasOwn(operations, name) ? operations[name] : undefined;
  if (request.method !== "POST" || selected === undefined) {
    throw new AwsJsonError("UnknownOperationException", `unsupported operation ${String(target)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(body || "{}");
  } catch {
    throw new AwsJsonError("SerializationException", "the body is not JSON");
  }
  return selected(json);
}

/**
 * A minimal server of the AWS JSON 1.1 protocol (X-Amz-Target: `<prefix>.<Operation>`), enough for the real SDK
 * clients to talk to a local stand-in of a service that has no emulator. Requests are not authenticated.
 */
export async function startAwsJsonServer(
  targetPrefix: string,
  operations: Record<string, JsonOperation>,
): Promise<AwsJsonServer> {
  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    try {
      const reply = JSON.stringify(answer(request, body, targetPrefix, operations) ?? {});
      response.writeHead(200, { "content-type": JSON_CONTENT_TYPE }).end(reply);
    } catch (error) {
      const failure =
        error instanceof AwsJsonError
          ? error
          : new AwsJsonError("InternalServiceError", "stand-in failure", 500);
      response
        .writeHead(failure.status, { "content-type": JSON_CONTENT_TYPE, "x-amzn-errortype": failure.type })
        .end(JSON.stringify({ __type: failure.type, message: failure.message }));
    }
  });
  return listenOnLoopback(server, `the ${targetPrefix} stand-in`);
}
