import { describe, expect, it } from "vitest";
import { MID, OK, PAYMENT, paymentApiServer, TRANSACTION_ID } from "../../../support/payment-api-server";

const gateway = paymentApiServer();

describe("cancel", () => {
  const CANCEL = {
    refund: { refund_type: "P", refund_amount: "4.00", refund_id: "r-1", reason: "requested" },
    payment: { ...PAYMENT, balance: "10.00" },
  } as const;
  const RESPONSE = {
    ...OK,
    mid: MID,
    refund: {
      refund_amount: "4.00",
      refund_id: "r-1",
      refund_date: "20300115080000",
      refund_transaction_id: "RT1",
    },
    payment: { ...PAYMENT, transaction_id: TRANSACTION_ID, balance: "6.00", payment_method: "P000" },
    foreign: { foregin_currency: "KRW", foregin_amount: "5000", foregin_rate: "1250" },
  };

  it("posts to the transaction's cancel path and reads foregin_* as foreign_*", async () => {
    gateway.answer(RESPONSE);
    const outcome = await gateway.client.cancel(TRANSACTION_ID, CANCEL);
    expect(outcome).toMatchObject({
      kind: "success",
      value: { foreign: { foreign_currency: "KRW", foreign_amount: "5000", foreign_rate: "1250" } },
    });
    const request = gateway.onlyRequest();
    expect(request.url).toBe(`/v1/payments/${TRANSACTION_ID}/cancel`);
    expect(request.json).toEqual({ ...CANCEL, mid: MID });
  });

  it("refuses invalid requests without sending", async () => {
    await gateway.expectRefused(() => gateway.client.cancel(`${TRANSACTION_ID}X`, CANCEL), "transaction_id");
    await gateway.expectRefused(
      () =>
        gateway.client.cancel(TRANSACTION_ID, {
          ...CANCEL,
          refund: { ...CANCEL.refund, refund_amount: "10.01" },
        }),
      "refund.refund_amount",
    );
    await gateway.expectRefused(
      () => gateway.client.cancel(TRANSACTION_ID, CANCEL, { fundingKind: "virtual_account" }),
      "refund_account",
    );
  });
});
