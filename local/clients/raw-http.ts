import { Agent, request } from "node:http";

/** A request sent exactly as given: any method, an unnormalised path, any headers, any body bytes. */
export interface RawRequest {
  readonly method: string;
  /** Path and query, sent verbatim (fetch would resolve dot segments and re-encode). */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
}

/** A keep-alive agent for many sequential or concurrent requests to one server. */
export function keepAliveAgent(maxSockets = 1): Agent {
  return new Agent({ keepAlive: true, maxSockets });
}

/** Sends one request on `agent` to `baseUrl` (http://host:port); rejects only on a network error. */
export function sendRaw(baseUrl: string, agent: Agent, raw: RawRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  const body = raw.body ?? "";
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: hostname,
        port,
        method: raw.method,
        path: raw.path,
        headers: { ...raw.headers, "content-length": String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
