import { summarizeCard } from "../sandbox/acquirer/cards";
import type { Sandbox } from "../sandbox/server";
import { TEST_MERCHANT } from "../sandbox/state/merchant-config";

const MID = TEST_MERCHANT.mid;

/** The order id of the index-th filled payment. */
export const filledOrderId = (index: number) => `fill-${String(index).padStart(8, "0")}`;

/**
 * Records `count` approved card payments straight into the sandbox's ledger, shaped like the non-ui payment's
 * records (strings out of JSON.parse, as a request's): the cheap way to a large ledger.
 */
export function fillLedger(sandbox: Sandbox, count: number): void {
  const card = summarizeCard(MID, "4111111111111111");
  const { payments } = sandbox.state;
  for (let index = 0; index < count; index++) {
    const now = sandbox.clock.now();
    const request = JSON.parse(
      JSON.stringify({
        order_id: filledOrderId(index),
        amount: "100.00",
        email: "buyer@example.com",
        auth_code: String(100_000 + (index % 900_000)),
      }),
    );
    payments.createOrder(MID, request.order_id, now);
    payments.recordTransaction(
      MID,
      request.order_id,
      {
        transactionType: "PAYMENT",
        status: "SALE",
        currency: "USD",
        amount: request.amount,
        rescode: "0000",
        resmsg: "Success.",
        paymentMethod: "P000",
        authCode: request.auth_code,
        card,
        email: request.email,
      },
      now,
    );
  }
}
