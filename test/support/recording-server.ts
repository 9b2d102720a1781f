import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { listenOnLoopback } from "../../local/aws/loopback-server";

/** One request as the server received it. */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query string, as sent. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The raw body text ("" when there was none). */
  readonly body: string;
}

/** What the server answers: `json` is serialised with a JSON content type; `text` is sent as is. */
export interface CannedResponse {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly json?: unknown;
  readonly text?: string;
}

/** A recorded request's path, without its query string. */
export function pathOf(request: RecordedRequest): string {
  return request.url.split("?", 1)[0] ?? "";
}

export type Responder = (request: RecordedRequest) => CannedResponse | Promise<CannedResponse>;

export interface RecordingServer {
  /** Base URL, e.g. http://127.0.0.1:54321 (no trailing slash). */
  readonly url: string;
  /** Every request received, oldest first. */
  readonly requests: RecordedRequest[];
  /** Replaces the responder for the following requests. */
  respondWith(responder: Responder): void;
  /** Forgets the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 and an ephemeral port that records requests and answers canned replies. */
export async function startRecordingServer(
  responder: Responder = () => ({ json: {} }),
): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  let respond = responder;
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(Buffer.from(chunk));
    const recorded: RecordedRequest = {
      method: req.method ?? "",
      url: req.url ?? "",
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    };
    requests.push(recorded);
    try {
      const reply = await respond(recorded);
      const json = reply.json === undefined ? undefined : JSON.stringify(reply.json);
      const headers =
        json === undefined ? { ...reply.headers } : { "content-type": "application/json", ...reply.headers };
      res.writeHead(reply.status ?? 200, headers).end(json ?? reply.text ?? "");
    } catch (error) {
      res.writeHead(500).end(String(error));
    }
  });
  const listening = await listenOnLoopback(server, "the recording server");
  return {
    url: listening.endpoint,
    requests,
    respondWith(next) {
      respond = next;
    },
    reset() {
      requests.length = 0;
    },
    close: listening.close,
  };
}
