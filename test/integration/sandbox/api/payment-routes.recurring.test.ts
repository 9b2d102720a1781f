import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { encryptField } from "../../../../functions/gateway/card-crypto";
import { GatewayRequestError } from "../../../../functions/gateway/errors";
import { TEST_MERCHANT } from "../../../../sandbox/state/merchant-config";
import {
  BUYER,
  CARDS,
  card,
  cardPayment,
  order,
  type PaymentHarness,
  startPaymentHarness,
  succeeded,
} from "../../../support/payment-sandbox";
import { callSandbox } from "../../../support/sandbox-gateway";

const MID = TEST_MERCHANT.mid;
const noticeBody = z.record(z.string(), z.string());

describe("sandbox gateway-managed recurring payments (client contract)", () => {
  let h: PaymentHarness;
  let notiUrl: string;

  beforeEach(async () => {
    // Mid-January: the plan below starts on the 31st, so its charges show the end-of-month clamping.
    h = await startPaymentHarness({ start: new Date("2026-01-10T00:00:00.000Z"), utcOffsetMinutes: 540 });
    notiUrl = `${h.site.url}/recurring`;
  });
  afterEach(() => h.close());

  const plan = (start = "20260131", interval = "1") => ({
    recurring_amount: "15.00",
    recurring_start_date: start,
    recurring_interval: interval,
    recurring_noti_url: notiUrl,
  });

  /** The recurring notices received so far, parsed. */
  const notices = () =>
    h.site.requests.filter((r) => r.url === "/recurring").map((r) => noticeBody.parse(JSON.parse(r.body)));

  async function register(orderId: string, cardNumber: string = CARDS.visa) {
    const paid = succeeded(await h.client.payment(cardPayment(orderId, cardNumber, { recurring: plan() })));
    expect(paid).toMatchObject({
      status: "SALE",
      recurring_payment: "Y",
      recurring_id: expect.stringMatching(/^SBXRC\d{15}$/),
      recurring_next_date: "20260131",
    });
    return paid.recurring_id ?? "";
  }

  /** Midnight of a date in the gateway's zone (UTC+9 here). */
  const gatewayMidnight = (isoDate: string) => new Date(`${isoDate}T00:00:00.000+09:00`);

  it("charges on the start date, then monthly with end-of-month clamping, and notifies each charge", async () => {
    const recurringId = await register("rc-1");
    await h.sandbox.clock.set(new Date(gatewayMidnight("2026-01-31").getTime() - 1));
    expect(notices()).toHaveLength(0);
    await h.sandbox.clock.set(gatewayMidnight("2026-01-31"));
    await h.sandbox.clock.set(gatewayMidnight("2026-03-31"));
    await h.sandbox.deliveries.settled();
    expect(notices()).toEqual(
      ["20260131", "20260228", "20260331"].map((date, index) => ({
        rescode: "0000",
        resmsg: "Success.",
        recurring_id: recurringId,
        order_id: `${recurringId}-${index + 1}`,
        transaction_id: expect.stringMatching(new RegExp(`^${TEST_MERCHANT.mid}W`)),
        amount: "15.00",
        currency: "USD",
        status: "SALE",
        transaction_date: `${date}000000`,
      })),
    );
    expect(h.sandbox.state.recurring.find(MID, recurringId)).toMatchObject({
      chargeCount: 3,
      nextDate: "20260430",
    });
    // Each charge is a transaction the merchant can retrieve by its gateway-made order_id.
    const second = succeeded(
      await h.client.retrieve({ key_field: "order_id", payment: order(`${recurringId}-2`, "15.00") }),
    );
    expect(second.payment).toMatchObject({ status: "SALE", amount: "15.00" });
  });

  it("adjust changes the amount of the following charges; delete stops them (and is idempotent)", async () => {
    const recurringId = await register("rc-2");
    await h.sandbox.clock.set(gatewayMidnight("2026-01-31"));
    succeeded(await h.client.adjustRecurring(recurringId, { adjust_amount: "20.50" }));
    await h.sandbox.clock.set(gatewayMidnight("2026-02-28"));
    succeeded(await h.client.deleteRecurring(recurringId));
    succeeded(await h.client.deleteRecurring(recurringId));
    await h.sandbox.clock.set(gatewayMidnight("2026-06-30"));
    await h.sandbox.deliveries.settled();
    expect(notices().map((notice) => notice.amount)).toEqual(["15.00", "20.50"]);
    expect(h.sandbox.state.recurring.find(MID, recurringId)?.status).toBe("canceled");
    expect(await h.client.adjustRecurring(recurringId, { adjust_amount: "1.00" })).toMatchObject({
      kind: "declined",
      code: "ST01",
    });
    expect(await h.client.adjustRecurring("SBXRC000000000009999", { adjust_amount: "1.00" })).toMatchObject({
      kind: "invalid",
      code: "EC00",
    });
    expect(await h.client.deleteRecurring("SBXRC000000000009999")).toMatchObject({
      kind: "invalid",
      code: "EC00",
    });
    const badAmount = await callSandbox(h.sandbox, `/v1/payments/recurring/${recurringId}/adjust`, {
      body: { adjust_amount: "12345678901" },
    });
    expect(badAmount).toMatchObject({ status: 400, json: { rescode: "HE03" } });
  });

  it("a card that declines its recurring charges: the charge is recorded as failed and the notice carries the code", async () => {
    const recurringId = await register("rc-3", CARDS.declineOnRebill);
    await h.sandbox.clock.set(gatewayMidnight("2026-01-31"));
    await h.sandbox.deliveries.settled();
    expect(notices()).toEqual([
      expect.objectContaining({ rescode: "DC05", status: "NONE", recurring_id: recurringId }),
    ]);
    expect(h.sandbox.state.payments.findOrder(MID, `${recurringId}-1`)?.state).toBe("failed");
    // The plan goes on: the next month is tried again.
    expect(h.sandbox.state.recurring.find(MID, recurringId)?.nextDate).toBe("20260228");
  });

  it("a window with a recurring object registers the plan; status_url carries it", async () => {
    const { fgkey } = succeeded(await h.client.ready(h.window("rc-4", { recurring: plan("20260215", "2") })));
    await h.complete(fgkey, card(CARDS.visa));
    await h.sandbox.deliveries.settled();
    const status = Object.fromEntries(new URLSearchParams(h.statusQueries().at(-1)));
    expect(status).toMatchObject({ recurring_payment: "Y", recurring_next_date: "20260215" });
    expect(succeeded(await h.client.verify(h.statusQueries().at(-1) ?? "")).rescode).toBe("0000");
    await h.sandbox.clock.set(gatewayMidnight("2026-04-15"));
    await h.sandbox.deliveries.settled();
    expect(notices().map((notice) => notice.transaction_date?.slice(0, 8))).toEqual(["20260215", "20260415"]);
  });

  it("a start date not later than the sandbox's today is EC00 (raw: the client checks it too)", async () => {
    const today = cardPayment("rc-5", CARDS.visa, { recurring: plan("20260110") });
    await expect(h.client.payment(today)).rejects.toThrow(GatewayRequestError);
    const raw = await callSandbox(h.sandbox, "/v1/payments/payment", {
      body: {
        payment: {
          ...order("rc-5"),
          card_number: encryptField(CARDS.visa, { key: TEST_MERCHANT.aesKeyHex }),
          expiry_date: encryptField("203012", { key: TEST_MERCHANT.aesKeyHex }),
          cvc: encryptField("123", { key: TEST_MERCHANT.aesKeyHex }),
        },
        merchant: { mid: MID },
        buyer: BUYER,
        recurring: plan("20260110"),
      },
    });
    expect(raw).toMatchObject({
      status: 400,
      json: { rescode: "EC00", resmsg: expect.stringContaining("recurring.recurring_start_date") },
    });
  });
});
