import {
  ChangeMessageVisibilityBatchCommand,
  ListQueuesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { z } from "zod";
import type { OutboxStore } from "../../functions/core/ports/billing-repository";
import { basicAuthorization } from "../../functions/gateway/context";
import { TEST_CARDS } from "../../sandbox/acquirer/cards";
import type { Merchant } from "../../sandbox/state/merchant-config";
import { pendingOutboxContents } from "../lambda/pending-outboxes";
import type { BillingStack } from "../stack/billing-stack";

// A leak scan over everything the billing system wrote: log lines, EMF metric dimensions, table items, queued
// messages (queues and DLQs), published events and the HTTP answers a client received. It looks for card numbers
// (with or without separators), CVCs in a cvc field, the gateway merchant's credentials, the merchant API key and
// JWTs. A hit says where and what, never the value itself.

/** One text to search, and where it came from ("log line 12", "table item sub_x/…", "queue charge-work-dlq"). */
export interface LeakSource {
  readonly where: string;
  readonly text: string;
}

export interface LeakSecrets {
  /** Card numbers, found with or without separators (space, hyphen, dot) between the digits. */
  readonly cardNumbers: readonly string[];
  /** CVCs as sent: found as the value of a cvc/cvv field (JSON, escaped JSON or form). */
  readonly cvcs: readonly string[];
  /** Literal secrets by name: keys, secrets, Authorization values. */
  readonly values: Readonly<Record<string, string>>;
  /** Whether any JWT-shaped token (eyJ… three base64url parts) is a hit (default true). */
  readonly jwts?: boolean;
}

export interface LeakHit {
  readonly where: string;
  /** What was found: "card 4111…1111", "cvc", "JWT" or the secret's name. */
  readonly what: string;
  /** Offset of the hit in its source's text. */
  readonly offset: number;
  /** Up to 40 characters either side, the hit replaced by [HIT] and any other hit by asterisks. */
  readonly context: string;
}

const JWT = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The card's digits with an optional separator between each two, not inside a longer digit run. */
function cardPattern(cardNumber: string): RegExp {
  return new RegExp(`(?<![0-9])${[...cardNumber].join("[ .-]?")}(?![0-9])`, "g");
}

/** A cvc/cvv key (quoted, escaped-quoted or a form field) whose value is the CVC. */
function cvcPattern(cvc: string): RegExp {
  const quote = `(?:\\\\*")?`;
  return new RegExp(`(?:cvc|cvv)2?${quote}\\s*[:=]\\s*${quote}${escapeRegExp(cvc)}(?![0-9])`, "gi");
}

/** Every hit of `secrets` in `sources`, in source order. */
export function scanForLeaks(sources: readonly LeakSource[], secrets: LeakSecrets): LeakHit[] {
  const patterns: { what: string; pattern: RegExp }[] = [
    ...secrets.cardNumbers.map((card) => ({
      what: `card ${card.slice(0, 4)}…${card.slice(-4)}`,
      pattern: cardPattern(card),
    })),
    ...[...new Set(secrets.cvcs)].map((cvc) => ({ what: "cvc", pattern: cvcPattern(cvc) })),
    ...Object.entries(secrets.values)
      .filter(([, value]) => value !== "")
      .map(([what, value]) => ({ what, pattern: new RegExp(escapeRegExp(value), "g") })),
    ...(secrets.jwts === false ? [] : [{ what: "JWT", pattern: JWT }]),
  ];
  const hits: LeakHit[] = [];
  for (const { where, text } of sources) {
    const found = patterns.flatMap(({ what, pattern }) =>
      [...text.matchAll(pattern)].map((match) => ({ what, offset: match.index, length: match[0].length })),
    );
    if (found.length === 0) continue;
    // Every hit masked (same length, so offsets hold): no context shows a neighbouring secret.
    let masked = text;
    for (const { offset, length } of found)
      masked = `${masked.slice(0, offset)}${"*".repeat(length)}${masked.slice(offset + length)}`;
    for (const { what, offset, length } of found) {
      const before = masked.slice(Math.max(0, offset - 40), offset);
      const after = masked.slice(offset + length, offset + length + 40);
      hits.push({ where, what, offset, context: `${before}[HIT]${after}` });
    }
  }
  return hits;
}

/**
 * What must never leave a request: every sandbox test card, the gateway merchant's credentials (also as the
 * Basic Authorization value), the webhook secret and the merchant API keys.
 */
export function leakSecretsOf(
  merchant: Merchant,
  options: { readonly merchantApiKeys: readonly string[]; readonly cvcs: readonly string[] },
): LeakSecrets {
  return {
    cardNumbers: Object.keys(TEST_CARDS),
    cvcs: options.cvcs,
    values: {
      "gateway API key": merchant.apiKey,
      "gateway Basic authorization": basicAuthorization(merchant.apiKey).slice("Basic ".length),
      "AES key": merchant.aesKeyHex.toLowerCase(),
      "AES key (upper case)": merchant.aesKeyHex.toUpperCase(),
      "partner API key": merchant.partnerApiKey,
      "webhook secret": merchant.webhookSecret,
      ...Object.fromEntries(options.merchantApiKeys.map((key, index) => [`merchant API key ${index}`, key])),
    },
  };
}

const emfLine = z.looseObject({
  _aws: z.object({
    CloudWatchMetrics: z.array(z.object({ Dimensions: z.array(z.array(z.string())).default([]) })),
  }),
});

/**
 * Captured process output as sources: one per line, plus the value of every EMF metric dimension (a dimension is
 * where an id or a card would turn into a metric nobody reads as a log).
 */
export function outputSources(output: string, label = "log"): LeakSource[] {
  const lines = output.split("\n");
  return lines.flatMap((line, index): LeakSource[] => {
    const sources = [{ where: `${label} line ${index + 1}`, text: line }];
    if (!line.startsWith("{")) return sources;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return sources;
    }
    const emf = emfLine.safeParse(json);
    if (!emf.success || typeof json !== "object" || json === null) return sources;
    const record: Record<string, unknown> = { ...json };
    const names = new Set(
      emf.data._aws.CloudWatchMetrics.flatMap((directive) => directive.Dimensions.flat()),
    );
    return [
      ...sources,
      ...[...names].map((name) => ({
        where: `${label} line ${index + 1} metric dimension ${name}`,
        text: String(record[name] ?? ""),
      })),
    ];
  });
}

/** Every item of the billing table (all pages), one source each. */
export async function tableSources(stack: BillingStack): Promise<LeakSource[]> {
  const sources: LeakSource[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await stack.dynamo.client.send(
      new ScanCommand({ TableName: stack.variables().TABLE_NAME, ExclusiveStartKey: start }),
    );
    for (const item of page.Items ?? []) {
      sources.push({ where: `table item ${String(item.pk)} ${String(item.sk)}`, text: JSON.stringify(item) });
    }
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return sources;
}

/**
 * Every message on every queue of the emulator (work queues and DLQs), left on its queue: received with a long
 * visibility, then made visible again. Each message's receive count goes up by one, so scan after the run.
 */
export async function queueSources(client: SQSClient): Promise<LeakSource[]> {
  const { QueueUrls = [] } = await client.send(new ListQueuesCommand({}));
  const sources: LeakSource[] = [];
  for (const queueUrl of QueueUrls) {
    const name = queueUrl.slice(queueUrl.lastIndexOf("/") + 1);
    const received: Message[] = [];
    for (;;) {
      const { Messages = [] } = await client.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 300 }),
      );
      if (Messages.length === 0) break;
      received.push(...Messages);
    }
    for (const message of received) sources.push({ where: `queue ${name}`, text: message.Body ?? "" });
    for (let start = 0; start < received.length; start += 10) {
      await client.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queueUrl,
          Entries: received.slice(start, start + 10).map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle,
            VisibilityTimeout: 0,
          })),
        }),
      );
    }
  }
  return sources;
}

/** The events every pending outbox holds (delivered ones have left it: the bus's entries are scanned for those). */
export async function outboxSources(repository: OutboxStore): Promise<LeakSource[]> {
  const contents = await pendingOutboxContents(repository);
  return contents.map(({ ref, events }) => ({ where: `outbox ${ref}`, text: JSON.stringify(events) }));
}

export interface StackLeakInput {
  /** What the process wrote to stdout and stderr while the handlers ran. */
  readonly output: string;
  /** Bodies of the HTTP answers the callers received. */
  readonly httpBodies?: readonly string[];
}

/** Every place of a running billing stack the scan reads, plus the captured output and the answers. */
export async function stackLeakSources(stack: BillingStack, input: StackLeakInput): Promise<LeakSource[]> {
  return [
    ...outputSources(input.output),
    ...(input.httpBodies ?? []).map((text, index) => ({ where: `HTTP answer ${index + 1}`, text })),
    ...(await tableSources(stack)),
    ...(await outboxSources(stack.delivery.repository)),
    ...(await queueSources(stack.sqs.client)),
    ...stack.eventBridge.entries.map((event, index) => ({
      where: `event ${index + 1}`,
      text: JSON.stringify(event),
    })),
    ...stack.ses.mails.map((mail) => ({ where: `mail ${mail.mail_id}`, text: JSON.stringify(mail) })),
  ];
}
