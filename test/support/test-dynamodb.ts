import { connectDynamoDb, type LocalDynamoDb, startDynalite } from "../../local/aws/dynamodb-emulator";

/**
 * The DynamoDB the storage and engine tests run against: the endpoint in BILLING_DYNAMODB_ENDPOINT when it is set
 * (DynamoDB Local, see README "Test tiers"), dynalite in this process otherwise.
 */
export function startTestDynamoDb(): Promise<LocalDynamoDb> {
  const endpoint = process.env.BILLING_DYNAMODB_ENDPOINT;
  return endpoint ? Promise.resolve(connectDynamoDb(endpoint)) : startDynalite();
}

/**
 * The requests of a lost create-if-absent (a second claim): DynamoDB returns the existing item with
 * ConditionalCheckFailed (ReturnValuesOnConditionCheckFailure), dynalite ignores that option, so the repository
 * reads the item back.
 */
export const LOST_CLAIM_REQUESTS = process.env.BILLING_DYNAMODB_ENDPOINT
  ? ["PutItemCommand"]
  : ["PutItemCommand", "GetItemCommand"];
