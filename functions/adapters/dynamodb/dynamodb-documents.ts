import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import {
  type BillingDocument,
  type CreditNote,
  type DocumentKind,
  documentSchema,
  type Invoice,
  parseDocumentNumber,
} from "../../core/base/documents";
import { InvalidCursorError } from "../../core/ports/billing-repository";
import type { DocumentPage, DocumentQuery, DocumentStore } from "../../core/ports/document-store";
import { lazySchema } from "../../shared/lazy-schema";
import {
  documentIndexKeys,
  documentKey,
  documentPartition,
  documentPrefixesKey,
  documentSkPrefix,
  recordOf,
  SUBSCRIPTION_INDEX,
  subscriptionKey,
  utcIso,
} from "../table/billing-table";
import { conditionally, type Item, itemsOfEntries, type TableContext } from "../table/dynamodb-table";

// Invoices and credit notes in the billing table (billing-table.ts: document, prefixes). Each prefix's documents are
// one partition keyed by sequence, so the last is one strongly consistent Query and a number is taken by a
// create-only Put; a subscription's are found through the by_subscription index; all of them through the prefixes.

/** The attribute a document's holder is: the order_id of an invoice's line, the refund_id of a credit note. */
const holderAttribute = (kind: DocumentKind) => (kind === "invoice" ? "order_id" : "refund_id");

const parseDocument = (item: Item): BillingDocument => documentSchema.parse(recordOf(item));

function itemOf(document: BillingDocument): Item {
  const index = document.status === "finalized" ? documentIndexKeys(document) : {};
  return { ...document, ...index, ...documentKey(document.kind, document.prefix, document.sequence) };
}

/** A listing's cursor: where the page before stopped (a sort key of the index, or a prefix and sequence). */
const cursorSchema = lazySchema(() =>
  z.union([
    z.object({ sk: z.string() }),
    z.object({ prefix: z.string(), sequence: z.number().int().min(1) }),
  ]),
);
type Cursor = z.infer<typeof cursorSchema>;

const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString("base64url");

function decodeCursor(text: string | undefined): Cursor | undefined {
  if (text === undefined) return undefined;
  try {
    return cursorSchema.parse(JSON.parse(Buffer.from(text, "base64url").toString("utf8")));
  } catch {
    throw new InvalidCursorError("not a cursor of this listing");
  }
}

export function createDynamoDbDocumentStore(table: TableContext): DocumentStore {
  return {
    lastDocument: (kind, prefix) => lastDocument(table, kind, prefix),
    createDocument: (document) => createDocument(table, document),
    replaceDocument: (document, holder) =>
      conditionally(() =>
        table.client.send(
          new PutCommand({
            TableName: table.tableName,
            Item: itemOf(document),
            ConditionExpression: "#holder = :holder",
            ExpressionAttributeNames: { "#holder": holderAttribute(document.kind) },
            ExpressionAttributeValues: { ":holder": holder },
          }),
        ),
      ),
    voidDocument: (kind, number, holder) => voidDocument(table, kind, number, holder),
    getInvoice: async (number) => {
      const found = await getDocument(table, "invoice", number);
      return found?.kind === "invoice" ? found : undefined;
    },
    getCreditNote: async (number) => {
      const found = await getDocument(table, "credit_note", number);
      return found?.kind === "credit_note" ? found : undefined;
    },
    listInvoices: async (query, page) =>
      onlyKind<Invoice>("invoice", await listDocuments(table, "invoice", query, page)),
    listCreditNotes: async (query, page) =>
      onlyKind<CreditNote>("credit_note", await listDocuments(table, "credit_note", query, page)),
  };
}

function onlyKind<D extends BillingDocument>(
  kind: D["kind"],
  page: DocumentPage<BillingDocument>,
): DocumentPage<D> {
  return { ...page, documents: page.documents.filter((document): document is D => document.kind === kind) };
}

async function lastDocument(
  table: TableContext,
  kind: DocumentKind,
  prefix: string,
): Promise<BillingDocument | undefined> {
  const { Items = [] } = await table.client.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: "#pk = :pk",
      ExpressionAttributeNames: { "#pk": "pk" },
      ExpressionAttributeValues: { ":pk": documentPartition(kind, prefix) },
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  const [last] = Items;
  return last === undefined ? undefined : parseDocument(last);
}

/** A prefix's first document registers the prefix first (an idempotent ADD), so a listing of all never misses it. */
async function createDocument(table: TableContext, document: BillingDocument): Promise<boolean> {
  if (document.sequence === 1) {
    await table.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: documentPrefixesKey(document.kind),
        UpdateExpression: "ADD prefixes :prefix",
        ExpressionAttributeValues: { ":prefix": new Set([document.prefix]) },
      }),
    );
  }
  return conditionally(() =>
    table.client.send(
      new PutCommand({
        TableName: table.tableName,
        Item: itemOf(document),
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    ),
  );
}

async function voidDocument(
  table: TableContext,
  kind: DocumentKind,
  number: string,
  holder: string,
): Promise<void> {
  const parsed = parseDocumentNumber(number);
  if (parsed === undefined) return;
  await conditionally(() =>
    table.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: documentKey(kind, parsed.prefix, parsed.sequence),
        UpdateExpression: "SET #status = :void REMOVE sub_pk, sub_sk",
        ConditionExpression: "#holder = :holder",
        ExpressionAttributeNames: { "#status": "status", "#holder": holderAttribute(kind) },
        ExpressionAttributeValues: { ":void": "void", ":holder": holder },
      }),
    ),
  );
}

async function getDocument(
  table: TableContext,
  kind: DocumentKind,
  number: string,
): Promise<BillingDocument | undefined> {
  const parsed = parseDocumentNumber(number);
  if (parsed === undefined) return undefined;
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.tableName, Key: documentKey(kind, parsed.prefix, parsed.sequence) }),
  );
  const found = Item === undefined ? undefined : parseDocument(Item);
  return found?.status === "finalized" ? found : undefined;
}

function listDocuments(
  table: TableContext,
  kind: DocumentKind,
  query: DocumentQuery,
  page: { readonly limit: number; readonly cursor?: string },
): Promise<DocumentPage<BillingDocument>> {
  const cursor = decodeCursor(page.cursor);
  if (query.subscription_ids !== undefined) {
    if (cursor !== undefined && !("sk" in cursor))
      throw new InvalidCursorError("not a cursor of this listing");
    return listBySubscriptions(table, kind, query, query.subscription_ids, page.limit, cursor?.sk);
  }
  if (cursor !== undefined && "sk" in cursor) throw new InvalidCursorError("not a cursor of this listing");
  return listAll(table, kind, query, page.limit, cursor);
}

/**
 * The subscriptions' documents newest first (by issue instant, then number): each subscription's next `limit` from
 * the index, merged; the cursor is the last sort key given.
 */
async function listBySubscriptions(
  table: TableContext,
  kind: DocumentKind,
  query: DocumentQuery,
  subscriptionIds: readonly string[],
  limit: number,
  after: string | undefined,
): Promise<DocumentPage<BillingDocument>> {
  const prefix = documentSkPrefix(kind);
  const lower = `${prefix}${query.from === undefined ? "" : utcIso(query.from)}`;
  const upperBound = query.to === undefined ? `${prefix}\uffff` : `${prefix}${utcIso(query.to)}`;
  const upper = after !== undefined && after < upperBound ? after : upperBound;
  const pages = await Promise.all(
    subscriptionIds.map(async (id) => {
      const { Items = [] } = await table.client.send(
        new QueryCommand({
          TableName: table.tableName,
          IndexName: SUBSCRIPTION_INDEX,
          KeyConditionExpression: "#pk = :pk AND #sk BETWEEN :lower AND :upper",
          ExpressionAttributeNames: { "#pk": "sub_pk", "#sk": "sub_sk" },
          ExpressionAttributeValues: { ":pk": subscriptionKey(id).pk, ":lower": lower, ":upper": upper },
          ScanIndexForward: false,
          Limit: limit + 1,
        }),
      );
      // BETWEEN is inclusive: the cursor's own item and one issued exactly at `to` are not in the page.
      return Items.filter((item) => item.sub_sk !== upper);
    }),
  );
  const merged = pages.flat().sort((a, b) => (a.sub_sk < b.sub_sk ? 1 : a.sub_sk > b.sub_sk ? -1 : 0));
  const taken = merged.slice(0, limit);
  const last = taken.at(-1);
  // The index holds keys only: the documents themselves are read from the table.
  const documents = await itemsOfEntries(table, taken);
  return {
    documents: documents.map(parseDocument),
    ...(merged.length > limit && last !== undefined
      ? { cursor: encodeCursor({ sk: String(last.sub_sk) }) }
      : {}),
  };
}

/** Every finalized document of the kind: prefix by prefix (descending), newest sequence first. */
async function listAll(
  table: TableContext,
  kind: DocumentKind,
  query: DocumentQuery,
  limit: number,
  cursor: { readonly prefix: string; readonly sequence: number } | undefined,
): Promise<DocumentPage<BillingDocument>> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.tableName, Key: documentPrefixesKey(kind) }),
  );
  const prefixes = [...((Item?.prefixes as Set<string> | undefined) ?? [])]
    .sort()
    .reverse()
    .filter((prefix) => cursor === undefined || prefix <= cursor.prefix);
  const documents: BillingDocument[] = [];
  for (const prefix of prefixes) {
    let startKey: Item | undefined =
      cursor !== undefined && prefix === cursor.prefix
        ? documentKey(kind, prefix, cursor.sequence)
        : undefined;
    do {
      const answer = await table.client.send(
        new QueryCommand({
          TableName: table.tableName,
          KeyConditionExpression: "#pk = :pk",
          FilterExpression: "#status = :finalized AND #issued >= :from AND #issued < :to",
          ExpressionAttributeNames: { "#pk": "pk", "#status": "status", "#issued": "issued_at" },
          ExpressionAttributeValues: {
            ":pk": documentPartition(kind, prefix),
            ":finalized": "finalized",
            ":from": query.from === undefined ? "" : utcIso(query.from),
            ":to": query.to === undefined ? "\uffff" : utcIso(query.to),
          },
          ScanIndexForward: false,
          ExclusiveStartKey: startKey,
          Limit: table.pageSize,
        }),
      );
      for (const item of answer.Items ?? []) {
        if (documents.length === limit) {
          const lastGiven = documents[limit - 1];
          return lastGiven === undefined
            ? { documents }
            : { documents, cursor: encodeCursor({ prefix: lastGiven.prefix, sequence: lastGiven.sequence }) };
        }
        documents.push(parseDocument(item));
      }
      startKey = answer.LastEvaluatedKey;
    } while (startKey !== undefined);
  }
  return { documents };
}
