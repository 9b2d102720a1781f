import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
} from "@aws-sdk/lib-dynamodb";
import {
  WEBHOOK_DELIVERY_RETENTION_MS,
  type WebhookStore,
  webhookDeliverySchema,
  webhookEndpointSchema,
} from "../../core/ports/webhook-ports";
import {
  recordOf,
  TTL_ATTRIBUTE,
  WEBHOOK_DELIVERY_SK_PREFIX,
  WEBHOOK_ENDPOINT_SK_PREFIX,
  WEBHOOK_ENDPOINTS_PARTITION,
  webhookDeliveryKey,
  webhookDeliveryPartition,
  webhookEndpointKey,
} from "../table/billing-table";
import { conditionally, type Item } from "../table/dynamodb-table";

export interface DynamoDbWebhookStoreOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

const endpointOf = (item: Item) => webhookEndpointSchema.parse(recordOf(item));
const deliveryOf = (item: Item) => webhookDeliverySchema.parse(recordOf(item));

/**
 * The webhook endpoints and their deliveries in the billing table (keys: billing-table.ts), Query and single-item
 * conditional writes only: an endpoint is put in a free slot create-only, deleted only while its slot holds it; a
 * delivery is created once, then rewritten after each attempt only if no other attempt was recorded in between.
 */
export function createDynamoDbWebhookStore({ client, tableName }: DynamoDbWebhookStoreOptions): WebhookStore {
  const put = (item: Item, condition: string, values?: Record<string, unknown>) =>
    conditionally(() =>
      client.send(
        new PutCommand({
          TableName: tableName,
          Item: item,
          ConditionExpression: condition,
          ExpressionAttributeNames: {
            "#pk": "pk",
            ...(values === undefined ? {} : { "#attempts": "attempts" }),
          },
          ...(values === undefined ? {} : { ExpressionAttributeValues: values }),
        }),
      ),
    );
  const deliveryItem = (delivery: Parameters<WebhookStore["createDelivery"]>[0]): Item => ({
    ...webhookDeliveryKey(delivery),
    ...webhookDeliverySchema.parse(delivery),
    [TTL_ATTRIBUTE]: Math.ceil((Date.parse(delivery.created_at) + WEBHOOK_DELIVERY_RETENTION_MS) / 1000),
  });
  return {
    async listEndpoints() {
      const { Items = [] } = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
          ExpressionAttributeValues: {
            ":pk": WEBHOOK_ENDPOINTS_PARTITION,
            ":prefix": WEBHOOK_ENDPOINT_SK_PREFIX,
          },
          ConsistentRead: true,
        }),
      );
      return Items.map(endpointOf);
    },
    async getEndpoint(slot, endpointId) {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: webhookEndpointKey(slot), ConsistentRead: true }),
      );
      const endpoint = Item === undefined ? undefined : endpointOf(Item);
      return endpoint?.endpoint_id === endpointId ? endpoint : undefined;
    },
    putEndpoint: (endpoint) =>
      put(
        { ...webhookEndpointKey(endpoint.slot), ...webhookEndpointSchema.parse(endpoint) },
        "attribute_not_exists(#pk)",
      ),
    deleteEndpoint: (endpoint) =>
      conditionally(() =>
        client.send(
          new DeleteCommand({
            TableName: tableName,
            Key: webhookEndpointKey(endpoint.slot),
            ConditionExpression: "endpoint_id = :id",
            ExpressionAttributeValues: { ":id": endpoint.endpoint_id },
          }),
        ),
      ),
    async getDelivery(key) {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: webhookDeliveryKey(key), ConsistentRead: true }),
      );
      return Item === undefined ? undefined : deliveryOf(Item);
    },
    createDelivery: (delivery) => put(deliveryItem(delivery), "attribute_not_exists(#pk)"),
    updateDelivery: (delivery, previousAttempts) =>
      put(deliveryItem(delivery), "attribute_exists(#pk) AND #attempts = :previous", {
        ":previous": previousAttempts,
      }),
    async listDeliveries(endpointId, limit, now) {
      const { Items = [] } = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
          ExpressionAttributeValues: {
            ":pk": webhookDeliveryPartition(endpointId),
            ":prefix": WEBHOOK_DELIVERY_SK_PREFIX,
          },
          ScanIndexForward: false,
          Limit: limit,
        }),
      );
      // TTL deletes lazily: a delivery past its retention is gone as far as readers know.
      const nowSeconds = now.getTime() / 1000;
      return Items.filter((item) => Number(item[TTL_ATTRIBUTE]) > nowSeconds).map(deliveryOf);
    },
  };
}
