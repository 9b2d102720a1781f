import { createDynamoDbDocumentClient } from "../../functions/adapters/aws/dynamodb-client";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../local/aws/dynamodb-emulator";

/** A document client of its own whose SDK commands are recorded, one entry per HTTP request sent. */
export function countingClient(endpoint: string) {
  const client = createDynamoDbDocumentClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const sent: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push(context.commandName ?? "unknown");
      return next(args);
    },
    { step: "deserialize", name: "countRequests" },
  );
  return { client, sent, take: () => sent.splice(0) };
}
