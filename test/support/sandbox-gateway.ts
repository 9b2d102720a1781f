import type { GatewayConfigInput } from "../../functions/gateway/config";
import { basicAuthorization } from "../../functions/gateway/context";
import { createGatewayClient, type GatewayClientOptions } from "../../functions/gateway/gateway-client";
import type { Sandbox } from "../../sandbox/server";
import { type Merchant, TEST_MERCHANT } from "../../sandbox/state/merchant-config";
import type { PaymentRecord, RefundRecord } from "../../sandbox/state/payment-store";

/** The real gateway client pointed at a sandbox for every API family, with a merchant's credentials. */
export function sandboxGatewayClient(
  sandbox: Sandbox,
  options: GatewayClientOptions & { merchant?: Merchant; config?: Partial<GatewayConfigInput> } = {},
) {
  const { merchant = TEST_MERCHANT, config, ...clientOptions } = options;
  return createGatewayClient(
    {
      paymentBaseUrl: sandbox.url,
      webhookAdminBaseUrl: sandbox.url,
      partnerBaseUrl: sandbox.url,
      mid: merchant.mid,
      apiKey: merchant.apiKey,
      aesKey: merchant.aesKeyHex,
      partnerApiKey: merchant.partnerApiKey,
      readRetries: 0,
      ...config,
    },
    { now: () => sandbox.clock.now(), ...clientOptions },
  );
}

/** fetch that counts the calls per path (and method). */
export function countingFetch() {
  const calls: string[] = [];
  const fetchImpl: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    calls.push(`${init?.method ?? "GET"} ${url.pathname}`);
    return fetch(input, init);
  };
  return { calls, fetchImpl, count: (call: string) => calls.filter((entry) => entry === call).length };
}

/** A raw JSON call to the sandbox, Basic-authenticated as the test merchant unless headers say otherwise. */
export async function callSandbox(
  sandbox: Sandbox,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method: init.method ?? "POST",
    headers: {
      authorization: basicAuthorization(TEST_MERCHANT.apiKey),
      "content-type": "application/json",
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, json: await response.json() };
}

function must<T>(result: { ok: true; value: T } | { ok: false; error: string }): T {
  if (!result.ok) throw new Error(`ledger refused: ${result.error}`);
  return result.value;
}

export interface TestPayment {
  readonly orderId: string;
  readonly amount: string;
  readonly currency?: string;
  readonly status?: "SALE" | "AUTH";
  readonly mid?: string;
}

/** A payment recorded straight in the sandbox ledger at the sandbox's now (no payment route involved). */
export function recordPayment(sandbox: Sandbox, payment: TestPayment): PaymentRecord {
  const mid = payment.mid ?? TEST_MERCHANT.mid;
  const now = sandbox.clock.now();
  must(sandbox.state.payments.createOrder(mid, payment.orderId, now));
  return must(
    sandbox.state.payments.recordTransaction(
      mid,
      payment.orderId,
      {
        transactionType: "PAYMENT",
        status: payment.status ?? "SALE",
        currency: payment.currency ?? "USD",
        amount: payment.amount,
        rescode: "0000",
        resmsg: "Success.",
        paymentMethod: "P000",
        otherParam: { param1: `p1-${payment.orderId}` },
      },
      now,
    ),
  );
}

/** A refund recorded straight in the ledger at the sandbox's now; P with an amount, F without. */
export function recordRefund(
  sandbox: Sandbox,
  payment: PaymentRecord,
  refundId: string,
  amount?: string,
): RefundRecord {
  const request = { refundId, type: amount === undefined ? "F" : "P", amount, reason: "test" } as const;
  return must(
    sandbox.state.payments.applyRefund(payment.mid, payment.transactionId, request, sandbox.clock.now()),
  ).refund;
}
