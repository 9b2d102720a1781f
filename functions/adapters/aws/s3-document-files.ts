import {
  GetObjectCommand,
  HeadObjectCommand,
  NotFound,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import type { DocumentFiles } from "../../core/ports/document-files";
import type { SdkClientHost } from "./sdk-clients";

/** A presigned link holds this long: the browser follows it at once (README, Invoices and credit notes). */
export const DOCUMENT_LINK_SECONDS = 300;

/**
 * Documents' files in a private S3 bucket (encrypted, no public access: lib/stateful-stack.ts), handed out by
 * presigned GET links that name the file's download name.
 */
export function createS3DocumentFiles(options: {
  readonly client: S3Client;
  readonly bucket: string;
}): DocumentFiles {
  const { client, bucket } = options;
  return {
    async has(key) {
      try {
        await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return true;
      } catch (error) {
        if (error instanceof NotFound) return false;
        throw error;
      }
    },
    link: (key, fileName) =>
      getSignedUrl(
        client,
        new GetObjectCommand({
          Bucket: bucket,
          Key: key,
          ResponseContentDisposition: `inline; filename="${fileName}"`,
        }),
        { expiresIn: DOCUMENT_LINK_SECONDS },
      ),
    async store(key, bytes, contentType) {
      await client.send(
        new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes, ContentType: contentType }),
      );
    },
  };
}

/**
 * The host's S3 client. Addressed by path when an endpoint is given (an emulator on loopback has no bucket
 * subdomains); by the bucket's own host name on AWS.
 */
export function s3ClientOf(host: SdkClientHost): S3Client {
  return host.client("s3", () => {
    const config = host.clientConfig("s3");
    return new S3Client({ ...config, forcePathStyle: config.endpoint !== undefined });
  });
}
