import { unmarshall } from "@aws-sdk/util-dynamodb";
import * as z from "zod";
import { itemKeySchema, outboxItemSchema, outboxRefOf } from "../adapters/dynamodb/dynamodb-outbox";
import { OUTBOX_ATTRIBUTE } from "../adapters/table/billing-table";
import type { OutboxEvent } from "../core/base/events";
import type { OutboxRef } from "../core/ports/billing-repository";
import { lazySchema } from "../shared/lazy-schema";

// The billing table's stream as publish-events receives it (README, Events): each record read into the events a
// write added to an item's outbox, in the table's own encoding (adapters/dynamodb/dynamodb-outbox.ts).

// A stream record's images in DynamoDB's attribute-value form; unmarshall checks each value's form itself.
const imageSchema = lazySchema(() => z.record(z.string(), z.any()));
const streamRecordSchema = lazySchema(() =>
  z.object({
    dynamodb: z.object({
      Keys: imageSchema,
      NewImage: imageSchema.optional(),
      OldImage: imageSchema.optional(),
    }),
  }),
);

/**
 * What one write of the table's stream added to an item's outbox: the events its old image did not hold, and the
 * whole outbox that write left.
 */
export function outboxAdditionsOf(record: unknown): {
  ref: OutboxRef;
  events: readonly OutboxEvent[];
  outbox: readonly OutboxEvent[];
} {
  const { dynamodb } = streamRecordSchema.parse(record);
  const outboxOf = (image: z.infer<typeof imageSchema> | undefined) =>
    image === undefined ? [] : outboxItemSchema.parse(unmarshall(image))[OUTBOX_ATTRIBUTE];
  const before = new Set(outboxOf(dynamodb.OldImage).map((event) => event.event_id));
  const outbox = outboxOf(dynamodb.NewImage);
  return {
    ref: outboxRefOf(itemKeySchema.parse(unmarshall(dynamodb.Keys))),
    events: outbox.filter((event) => !before.has(event.event_id)),
    outbox,
  };
}
