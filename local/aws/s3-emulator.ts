import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import { DUMMY_ACCOUNT } from "s3rver/lib/models/account.js";
import { LOCAL_CREDENTIALS } from "./dynamodb-emulator";
import { listenOnLoopback } from "./loopback-server";

export interface LocalS3 {
  /** e.g. http://127.0.0.1:54321 */
  readonly endpoint: string;
  /** The bucket made at start (documents' files). */
  readonly bucket: string;
  close(): Promise<void>;
}

/**
 * s3rver in this process on 127.0.0.1 and an ephemeral port, with one bucket, its files in a temporary folder
 * removed on close (a cache: documents are rendered again from the table when asked). It takes local mode's fake
 * credentials beside its own.
 */
export async function startS3(bucket = "billing-documents"): Promise<LocalS3> {
  DUMMY_ACCOUNT.createKeyPair(LOCAL_CREDENTIALS.accessKeyId, LOCAL_CREDENTIALS.secretAccessKey);
  const directory = await mkdtemp(join(tmpdir(), "billing-s3-"));
  const s3rver = new S3rver({ directory, silent: true, configureBuckets: [{ name: bucket }] });
  await s3rver.configureBuckets();
  const listening = await listenOnLoopback(createServer(s3rver.callback()), "s3rver");
  return {
    endpoint: listening.endpoint,
    bucket,
    async close() {
      await listening.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
