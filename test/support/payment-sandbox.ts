import type { GatewayOutcome } from "../../functions/core/base/outcome";
import type { GatewayConfigInput } from "../../functions/gateway/config";
import type { ReadyInput } from "../../functions/gateway/schemas/payment-window";
import type { PaymentInput, PlaintextCard } from "../../functions/gateway/schemas/payments";
import { STATUS_RECEIVED_REPLY } from "../../functions/gateway/status-reply";
import { type Sandbox, type SandboxOptions, startSandbox } from "../../sandbox/server";
import { pathOf, type RecordedRequest, type RecordingServer, startRecordingServer } from "./recording-server";
import { callSandbox, sandboxGatewayClient } from "./sandbox-gateway";

/** Test cards of the sandbox (sandbox/acquirer/cards.ts). */
export const CARDS = {
  visa: "4111111111111111",
  mastercard: "5555555555554444",
  insufficientFunds: "4000000000009995",
  expiredCard: "4000000000000069",
  stolen: "4000000000009979",
  chargeback: "4000000000000259",
  payerAuth: "4000000000003220",
  declineOnRebill: "4000000000000341",
  acquirerError: "4000000000000119",
  /** Luhn-valid, not a test card: approves. */
  other: "4242424242424242",
} as const;

export const START = new Date("2026-03-10T00:00:00.000Z");
export const BUYER = { name: "Test Buyer", email: "buyer@example.com" } as const;

export const card = (cardNumber: string, expiry = "203012"): PlaintextCard => ({
  card_number: cardNumber,
  expiry_date: expiry,
  cvc: "123",
});

export const order = (orderId: string, amount = "100.00") => ({
  order_id: orderId,
  currency: "USD",
  amount,
  lang: "EN",
});

/** A non-ui card payment of the client. */
export function cardPayment(
  orderId: string,
  cardNumber: string,
  extra: Partial<PaymentInput> = {},
): PaymentInput {
  return { payment: order(orderId), buyer: BUYER, card: card(cardNumber), ...extra };
}

/** The value of a successful outcome; anything else fails the test with the outcome shown. */
export function succeeded<T>(outcome: GatewayOutcome<T>): T {
  if (outcome.kind !== "success") throw new Error(`expected success, got ${JSON.stringify(outcome)}`);
  return outcome.value;
}

/** A sandbox, a merchant site recording what the gateway sends it, and the real client. */
export interface PaymentHarness {
  readonly sandbox: Sandbox;
  readonly site: RecordingServer;
  readonly client: ReturnType<typeof sandboxGatewayClient>["payments"];
  readonly statusUrl: string;
  readonly returnUrl: string;
  /** A window request of the client (PAYMENT unless `type` says otherwise). */
  window(
    orderId: string,
    extra?: Partial<ReadyInput>,
    type?: ReadyInput["payment"]["transaction_type"],
  ): ReadyInput;
  /** The sandbox-only window completion (the customer pays). */
  complete(fgkey: string, body?: unknown): Promise<{ status: number; json: unknown }>;
  /** Window results received at status_url, oldest first, as query strings (form bodies or GET queries). */
  statusQueries(): string[];
  close(): Promise<void>;
}

/** The window result a status_url call carried, as a query string: a POST's form body, or a GET's query. */
export function statusResultOf(request: RecordedRequest): string {
  return request.method === "POST" ? request.body : request.url.slice(request.url.indexOf("?") + 1);
}

export async function startPaymentHarness(
  options: SandboxOptions = {},
  config: Partial<GatewayConfigInput> = {},
): Promise<PaymentHarness> {
  // The site takes every status_url result, so none is re-sent when a test moves the clock.
  const site = await startRecordingServer((request) => ({
    text: pathOf(request) === "/status" ? STATUS_RECEIVED_REPLY : "OK",
  }));
  const sandbox = await startSandbox({ start: START, ...options });
  const statusUrl = `${site.url}/status`;
  const returnUrl = `${site.url}/return`;
  return {
    sandbox,
    site,
    client: sandboxGatewayClient(sandbox, { config }).payments,
    statusUrl,
    returnUrl,
    window: (orderId, extra = {}, type = "PAYMENT") => ({
      payment: { transaction_type: type, ...order(orderId) },
      url: { return_url: returnUrl, status_url: statusUrl },
      buyer: BUYER,
      ...extra,
    }),
    complete: (fgkey, body) =>
      callSandbox(sandbox, `/sandbox/windows/${encodeURIComponent(fgkey)}/complete`, { body }),
    statusQueries: () => site.requests.filter((r) => pathOf(r) === "/status").map(statusResultOf),
    close: async () => {
      await sandbox.close();
      await site.close();
    },
  };
}
