import type { Server } from "node:http";

/** A server of this process on a free loopback port. */
export interface LoopbackServer {
  /** e.g. http://127.0.0.1:54321 — what a client takes as its endpoint. */
  readonly endpoint: string;
  readonly port: number;
  /** Drops open connections (kept-alive clients would hold it open), then stops listening. */
  close(): Promise<void>;
}

/** Starts `server` listening on 127.0.0.1 and a port the system picks; `name` says whose server failed to. */
export async function listenOnLoopback(server: Server, name: string): Promise<LoopbackServer> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error(`${name} is not listening on TCP`);
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    port: address.port,
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
