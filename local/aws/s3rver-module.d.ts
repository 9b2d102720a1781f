// s3rver ships no types and has no @types package; only what local mode uses.
declare module "s3rver" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  interface S3rverOptions {
    /** Where buckets and objects are kept. */
    directory: string;
    silent?: boolean;
    /** Buckets made by configureBuckets(). */
    configureBuckets?: { name: string }[];
  }

  export default class S3rver {
    constructor(options: S3rverOptions);
    configureBuckets(): Promise<void>;
    /** The Koa app's request listener. */
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
  }
}

declare module "s3rver/lib/models/account.js" {
  /** The emulator's one account: the access keys it takes. */
  export const DUMMY_ACCOUNT: { createKeyPair(accessKeyId: string, secretAccessKey: string): void };
}
