import { beforeEach, describe, expect, it } from "vitest";
import { partnerToken } from "../../../../functions/gateway/schemas/partner";
import { cardBehaviour, summarizeCard } from "../../../../sandbox/acquirer/cards";
import { addAmounts, compareAmounts, subtractAmounts } from "../../../../sandbox/shared/decimal";
import { Ledger } from "../../../../sandbox/state/ledger";
import type { NewTransaction } from "../../../../sandbox/state/payment-store";

const MID = "SBXTEST001";
const OTHER_MID = "SBXTEST002";
const NOW = new Date("2026-03-04T05:06:07.000Z");
const CARD = "4111111111111111";

const sale = (amount = "100.00", overrides: Partial<NewTransaction> = {}): NewTransaction => ({
  transactionType: "PAYMENT",
  status: "SALE",
  currency: "USD",
  amount,
  rescode: "0000",
  resmsg: "Success.",
  ...overrides,
});

/** Creates an order and records its transaction; fails the test otherwise. */
function pay(ledger: Ledger, orderId: string, input: NewTransaction = sale(), mid = MID) {
  expect(ledger.payments.createOrder(mid, orderId, NOW).ok).toBe(true);
  const result = ledger.payments.recordTransaction(mid, orderId, input, NOW);
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

describe("decimal amounts", () => {
  it("adds, subtracts and compares exactly", () => {
    expect(subtractAmounts("100.00", "30")).toBe("70.00");
    expect(subtractAmounts("0.3", "0.1")).toBe("0.2");
    expect(subtractAmounts("10", "10.00")).toBe("0.00");
    expect(subtractAmounts("1", "1.5")).toBe("-0.5");
    expect(addAmounts("0.1", "0.2")).toBe("0.3");
    expect(compareAmounts("10.10", "10.1")).toBe(0);
    expect(compareAmounts("9.99", "10")).toBe(-1);
    expect(() => compareAmounts("1,000", "1")).toThrow(RangeError);
  });
});

describe("Ledger", () => {
  let ledger: Ledger;
  beforeEach(() => {
    ledger = new Ledger();
  });

  describe("orders and transactions", () => {
    it("issues deterministic 24-character transaction ids after the mid, and gateway stamps", () => {
      const first = pay(ledger, "order-1");
      const second = pay(ledger, "order-2");
      expect(first.transactionId).toHaveLength(24);
      // As the real gateway's: <mid>W<digits>.
      expect(first.transactionId).toBe(`${MID}W${"1".padStart(23 - MID.length, "0")}`);
      expect(second.transactionId).toBe(`${MID}W${"2".padStart(23 - MID.length, "0")}`);
      expect(first.transactionDate).toBe("20260304050607");
      expect(first.balance).toBe("100.00");
      expect(new Ledger({ utcOffsetMinutes: 540 }).stamp(NOW)).toBe("20260304140607");
      expect(new Ledger({ utcOffsetMinutes: 540 }).date(new Date("2026-03-04T20:00:00Z"))).toBe("20260305");
    });

    it("keeps order ids unique per merchant, a failed one included", () => {
      pay(ledger, "order-1");
      expect(ledger.payments.createOrder(MID, "order-1", NOW)).toEqual({ ok: false, error: "order_exists" });
      expect(ledger.payments.createOrder(OTHER_MID, "order-1", NOW).ok).toBe(true);
      const failed = pay(
        ledger,
        "order-declined",
        sale("5", { status: "NONE", rescode: "DC05", resmsg: "Do not honor" }),
      );
      expect(failed.balance).toBe("0");
      expect(ledger.payments.findOrder(MID, "order-declined")?.state).toBe("failed");
      expect(ledger.payments.createOrder(MID, "order-declined", NOW)).toEqual({
        ok: false,
        error: "order_exists",
      });
    });

    it("records one transaction per order", () => {
      pay(ledger, "order-1");
      expect(ledger.payments.recordTransaction(MID, "order-1", sale(), NOW)).toEqual({
        ok: false,
        error: "order_completed",
      });
      pay(ledger, "order-2", sale("1", { status: "NONE" }));
      expect(ledger.payments.recordTransaction(MID, "order-2", sale(), NOW)).toEqual({
        ok: false,
        error: "order_failed",
      });
      expect(ledger.payments.recordTransaction(MID, "missing", sale(), NOW)).toEqual({
        ok: false,
        error: "order_not_found",
      });
    });

    it("finds the final transaction of an order, none for a prepared or refused one", () => {
      const paid = pay(ledger, "order-1");
      expect(ledger.payments.findFinalTransaction(MID, "order-1")).toBe(paid);
      expect(ledger.payments.findFinalTransaction(OTHER_MID, "order-1")).toBeUndefined();
      ledger.payments.createOrder(MID, "prepared", NOW);
      expect(ledger.payments.findFinalTransaction(MID, "prepared")).toBeUndefined();
      pay(ledger, "refused", sale("1", { status: "NONE" }));
      expect(ledger.payments.findFinalTransaction(MID, "refused")).toBeUndefined();
    });

    it("finds a transaction only for its merchant", () => {
      const paid = pay(ledger, "order-1");
      expect(ledger.payments.findTransaction(MID, paid.transactionId)).toBe(paid);
      expect(ledger.payments.findTransaction(OTHER_MID, paid.transactionId)).toBeUndefined();
    });
  });

  describe("refunds", () => {
    it("refunds partially then fully, the balance reaching exactly zero", () => {
      const paid = pay(ledger, "order-1", sale("100.00"));
      const partial = ledger.payments.applyRefund(
        MID,
        paid.transactionId,
        { refundId: "r1", type: "P", amount: "30", reason: "x" },
        NOW,
      );
      expect(partial.ok && partial.value.refund).toMatchObject({
        refundId: "r1",
        refundTransactionId: "SBXR00000000000000000001",
        amount: "30",
        balanceAfter: "70.00",
        refundDate: "20260304050607",
      });
      expect(ledger.payments.findTransaction(MID, paid.transactionId)?.balance).toBe("70.00");
      const full = ledger.payments.applyRefund(
        MID,
        paid.transactionId,
        { refundId: "r2", type: "F", reason: "x" },
        NOW,
      );
      expect(full.ok && full.value.refund.amount).toBe("70.00");
      expect(full.ok && full.value.payment.balance).toBe("0.00");
      expect(full.ok && full.value.payment.refundIds).toEqual(["r1", "r2"]);
      expect(ledger.payments.findRefund(MID, "r2")?.refundTransactionId).toHaveLength(24);
      expect(
        ledger.payments.applyRefund(
          MID,
          paid.transactionId,
          { refundId: "r3", type: "P", amount: "0.01", reason: "x" },
          NOW,
        ),
      ).toEqual({
        ok: false,
        error: "nothing_to_refund",
      });
    });

    it("never takes the balance below zero and refuses bad refunds without changing anything", () => {
      const paid = pay(ledger, "order-1", sale("10"));
      const revision = ledger.revision;
      const refund = (
        request: Parameters<Ledger["payments"]["applyRefund"]>[2],
        mid = MID,
        id = paid.transactionId,
      ) => ledger.payments.applyRefund(mid, id, request, NOW);
      expect(refund({ refundId: "a", type: "P", amount: "10.01", reason: "x" })).toEqual({
        ok: false,
        error: "exceeds_balance",
      });
      expect(refund({ refundId: "a", type: "P", reason: "x" })).toEqual({
        ok: false,
        error: "invalid_amount",
      });
      expect(refund({ refundId: "a", type: "P", amount: "0", reason: "x" })).toEqual({
        ok: false,
        error: "invalid_amount",
      });
      expect(refund({ refundId: "a", type: "P", amount: "1,00", reason: "x" })).toEqual({
        ok: false,
        error: "invalid_amount",
      });
      expect(refund({ refundId: "a", type: "F", amount: "5", reason: "x" })).toEqual({
        ok: false,
        error: "invalid_amount",
      });
      expect(refund({ refundId: "a", type: "F", reason: "x" }, OTHER_MID)).toEqual({
        ok: false,
        error: "transaction_not_found",
      });
      expect(refund({ refundId: "a", type: "F", reason: "x" }, MID, "SBXT99999999999999999999")).toEqual({
        ok: false,
        error: "transaction_not_found",
      });
      expect(ledger.revision).toBe(revision);
      expect(ledger.payments.findTransaction(MID, paid.transactionId)?.balance).toBe("10");
    });

    it("keeps refund ids unique per merchant and refuses refunds of unsettled states", () => {
      const first = pay(ledger, "order-1");
      const second = pay(ledger, "order-2");
      expect(
        ledger.payments.applyRefund(
          MID,
          first.transactionId,
          { refundId: "r", type: "P", amount: "1", reason: "x" },
          NOW,
        ).ok,
      ).toBe(true);
      expect(
        ledger.payments.applyRefund(
          MID,
          second.transactionId,
          { refundId: "r", type: "P", amount: "1", reason: "x" },
          NOW,
        ),
      ).toEqual({
        ok: false,
        error: "refund_id_exists",
      });
      const registered = pay(ledger, "order-va", sale("5", { status: "REGISTERED" }));
      expect(
        ledger.payments.applyRefund(
          MID,
          registered.transactionId,
          { refundId: "v", type: "F", reason: "x" },
          NOW,
        ),
      ).toEqual({
        ok: false,
        error: "not_refundable",
      });
    });
  });

  describe("capture, settle and deposit", () => {
    it("captures an AUTH once and stamps it", () => {
      const auth = pay(ledger, "order-1", sale("10", { status: "AUTH", transactionType: "AUTHORIZE" }));
      const later = new Date("2026-03-05T00:00:00Z");
      const captured = ledger.payments.capture(MID, auth.transactionId, later);
      expect(captured.ok && captured.value).toMatchObject({ status: "SALE", capturedDate: "20260305000000" });
      expect(ledger.payments.capture(MID, auth.transactionId, later)).toEqual({
        ok: false,
        error: "not_capturable",
      });
      expect(ledger.payments.capture(OTHER_MID, auth.transactionId, later)).toEqual({
        ok: false,
        error: "transaction_not_found",
      });
    });

    it("settles a SALE idempotently and refuses an AUTH", () => {
      const paid = pay(ledger, "order-1");
      const settled = ledger.payments.settle(MID, paid.transactionId, NOW);
      const revision = ledger.revision;
      expect(settled.ok && settled.value.settledDate).toBe("20260304050607");
      const again = ledger.payments.settle(MID, paid.transactionId, new Date("2027-01-01T00:00:00Z"));
      expect(again.ok && again.value.settledDate).toBe("20260304050607");
      expect(ledger.revision).toBe(revision);
      const auth = pay(ledger, "order-2", sale("1", { status: "AUTH" }));
      expect(ledger.payments.settle(MID, auth.transactionId, NOW)).toEqual({
        ok: false,
        error: "not_settleable",
      });
    });

    it("turns a REGISTERED order into a SALE on deposit", () => {
      const registered = pay(ledger, "order-va", sale("5", { status: "REGISTERED" }));
      expect(ledger.payments.confirmDeposit(MID, registered.transactionId)).toMatchObject({
        ok: true,
        value: { status: "SALE" },
      });
      expect(ledger.payments.confirmDeposit(MID, registered.transactionId)).toEqual({
        ok: false,
        error: "not_registered",
      });
    });
  });

  describe("tokens", () => {
    const newToken = (unique: boolean, mid = MID, number = CARD) => ({
      card: summarizeCard(mid, number),
      cardExpiry: "203012",
      unique,
    });

    it("keeps only the masked card, a fingerprint and the test behaviour", () => {
      const created = ledger.tokens.create(MID, newToken(false), NOW);
      if (!created.ok) throw new Error(created.error);
      expect(created.value).toMatchObject({
        tokenId: "SBXTK0000000000000000001",
        status: "active",
        card: { first4: "4111", last4: "1111", behaviour: "approve" },
      });
      expect(JSON.stringify(created.value)).not.toContain(CARD);
      expect(ledger.tokens.find(MID, created.value.tokenId)).toBe(created.value);
      expect(ledger.tokens.find(OTHER_MID, created.value.tokenId)).toBeUndefined();
    });

    it("refuses a second active token for the same card when unique_token_id is Y", () => {
      const first = ledger.tokens.create(MID, newToken(false), NOW);
      expect(ledger.tokens.create(MID, newToken(false), NOW).ok).toBe(true);
      expect(ledger.tokens.create(MID, newToken(true), NOW)).toEqual({ ok: false, error: "token_exists" });
      expect(ledger.tokens.create(OTHER_MID, newToken(true, OTHER_MID), NOW).ok).toBe(true);
      expect(ledger.tokens.create(MID, newToken(true, MID, "5555555555554444"), NOW).ok).toBe(true);
      for (const token of ledger.tokens.findByFingerprint(MID, summarizeCard(MID, CARD).fingerprint)) {
        ledger.tokens.setStatus(MID, token.tokenId, "revoked", NOW);
      }
      expect(ledger.tokens.create(MID, newToken(true), NOW).ok).toBe(true);
      expect(first.ok && ledger.tokens.find(MID, first.value.tokenId)?.status).toBe("revoked");
    });

    it("changes status, bumping the revision only on a real change", () => {
      const created = ledger.tokens.create(MID, newToken(false), NOW);
      if (!created.ok) throw new Error(created.error);
      const revision = ledger.revision;
      expect(ledger.tokens.setStatus(MID, created.value.tokenId, "expired", NOW)).toMatchObject({
        ok: true,
        value: { status: "expired", statusChangedAt: "20260304050607" },
      });
      ledger.tokens.setStatus(MID, created.value.tokenId, "expired", NOW);
      expect(ledger.revision).toBe(revision + 1);
      expect(ledger.tokens.setStatus(OTHER_MID, created.value.tokenId, "revoked", NOW)).toEqual({
        ok: false,
        error: "token_not_found",
      });
    });

    it("maps test card numbers to behaviours", () => {
      expect(cardBehaviour("4000000000000002")).toBe("decline");
      expect(cardBehaviour("4000000000000341")).toBe("decline_on_rebill");
      expect(cardBehaviour("4242424242424242")).toBe("approve");
      expect(cardBehaviour("4242424242424241")).toBe("invalid_number");
      expect(cardBehaviour("not-a-card")).toBe("invalid_number");
    });
  });

  describe("recurring registrations", () => {
    const registration = {
      orderId: "order-r",
      currency: "USD",
      amount: "9.99",
      intervalMonths: 1,
      startDate: "20260401",
      notiUrl: "http://127.0.0.1:1/recurring",
      card: summarizeCard(MID, CARD),
    };

    it("creates with a ≤20-character id, adjusts, charges, lists due ones and cancels once", () => {
      const recurring = ledger.recurring.create(MID, registration, NOW);
      expect(recurring.recurringId).toBe("SBXRC000000000000001");
      expect(recurring.recurringId.length).toBeLessThanOrEqual(20);
      expect(recurring).toMatchObject({ status: "active", nextDate: "20260401", chargeCount: 0 });
      expect(ledger.recurring.adjust(MID, recurring.recurringId, "12.50")).toMatchObject({
        ok: true,
        value: { amount: "12.50" },
      });
      expect([...ledger.recurring.due("20260331")]).toEqual([]);
      expect([...ledger.recurring.due("20260401")].map((r) => r.recurringId)).toEqual([
        recurring.recurringId,
      ]);
      ledger.recurring.recordCharge(MID, recurring.recurringId, "20260501");
      expect(ledger.recurring.find(MID, recurring.recurringId)).toMatchObject({
        chargeCount: 1,
        nextDate: "20260501",
      });
      expect(ledger.recurring.cancel(MID, recurring.recurringId, NOW)).toMatchObject({
        ok: true,
        value: { status: "canceled" },
      });
      expect(ledger.recurring.cancel(MID, recurring.recurringId, NOW)).toEqual({
        ok: false,
        error: "recurring_canceled",
      });
      expect(ledger.recurring.adjust(MID, recurring.recurringId, "1")).toEqual({
        ok: false,
        error: "recurring_canceled",
      });
      expect([...ledger.recurring.due("20991231")]).toEqual([]);
      expect(ledger.recurring.adjust(OTHER_MID, recurring.recurringId, "1")).toEqual({
        ok: false,
        error: "recurring_not_found",
      });
    });
  });

  describe("webhooks, partner subscriptions and partner tokens", () => {
    it("registers a webhook URL and accumulates its types", () => {
      expect(ledger.webhooks.find(MID)).toBeUndefined();
      ledger.webhooks.register(MID, "http://127.0.0.1:1/a", "PAYOUT_SUBMALL_REVIEW_COMPLETE");
      ledger.webhooks.register(MID, "http://127.0.0.1:1/b", "PAYOUT_REMITTANCE_COMPLETE");
      ledger.webhooks.register(MID, "http://127.0.0.1:1/b", "PAYOUT_REMITTANCE_COMPLETE");
      expect(ledger.webhooks.find(MID)).toEqual({
        url: "http://127.0.0.1:1/b",
        types: ["PAYOUT_SUBMALL_REVIEW_COMPLETE", "PAYOUT_REMITTANCE_COMPLETE"],
      });
    });

    it("manages subscriptions per merchant", () => {
      const created = ledger.partner.createSubscription(
        MID,
        { endpointUrl: "http://x/1", eventTypes: ["PAYMENT_COMPLETED"] },
        NOW,
      );
      expect(created).toMatchObject({ isActive: true, createdAt: NOW.toISOString() });
      expect(ledger.partner.listSubscriptions(OTHER_MID)).toEqual([]);
      expect(ledger.partner.subscribersOf(MID, "PAYMENT_COMPLETED")).toEqual([created]);
      const updated = ledger.partner.updateSubscription(MID, created.id, {
        endpointUrl: "http://x/2",
        eventTypes: ["PAYMENT_COMPLETED"],
        isActive: false,
      });
      expect(updated).toMatchObject({
        ok: true,
        value: { endpointUrl: "http://x/2", isActive: false, createdAt: created.createdAt },
      });
      expect(ledger.partner.subscribersOf(MID, "PAYMENT_COMPLETED")).toEqual([]);
      expect(
        ledger.partner.updateSubscription(OTHER_MID, created.id, { endpointUrl: "http://x", eventTypes: [] })
          .ok,
      ).toBe(false);
      expect(ledger.partner.deleteSubscription(MID, created.id).ok).toBe(true);
      expect(ledger.partner.deleteSubscription(MID, created.id)).toEqual({
        ok: false,
        error: "subscription_not_found",
      });
      expect(ledger.counts().partnerSubscriptions).toBe(0);
    });

    it("issues distinct JWT-shaped tokens valid for 24 hours that the client schema reads", () => {
      const first = ledger.partner.issueToken(MID, NOW);
      const second = ledger.partner.issueToken(MID, NOW);
      expect(first.token).not.toBe(second.token);
      expect(
        partnerToken.parse({ token: first.token, expiredAt: first.expiresAt.toISOString() }).expiredAt,
      ).toBe("2026-03-05T05:06:07.000Z");
      expect(ledger.partner.verifyToken(first.token, new Date(NOW.getTime() + 86_399_999))?.mid).toBe(MID);
      expect(ledger.partner.verifyToken(first.token, new Date(NOW.getTime() + 86_400_000))).toBeUndefined();
      expect(ledger.partner.verifyToken("not.a.token", NOW)).toBeUndefined();
      expect(ledger.partner.revokeTokens(MID)).toBe(2);
      expect(ledger.partner.verifyToken(second.token, NOW)).toBeUndefined();
    });
  });

  describe("windows", () => {
    it("opens by fgkey and completes once", () => {
      const opened = ledger.windows.open(
        { fgkey: "f1", mid: MID, orderId: "o1", request: { payment: {} } },
        NOW,
      );
      expect(opened).toMatchObject({ ok: true, value: { state: "open", orderId: "o1" } });
      expect(ledger.windows.complete("f1")).toMatchObject({ ok: true, value: { state: "completed" } });
      expect(ledger.windows.complete("f1")).toEqual({ ok: false, error: "window_completed" });
      expect(ledger.windows.complete("nope")).toEqual({ ok: false, error: "window_not_found" });
      expect(ledger.windows.open({ fgkey: "f1", mid: MID, orderId: "o1", request: {} }, NOW)).toEqual({
        ok: false,
        error: "window_completed",
      });
    });
  });

  describe("revision, counts and records", () => {
    it("bumps the revision on every mutation and never on a refusal or a read", () => {
      const revisions = [ledger.revision];
      const step = () => revisions.push(ledger.revision);
      ledger.payments.createOrder(MID, "o", NOW);
      step();
      ledger.payments.recordTransaction(MID, "o", sale(), NOW);
      step();
      ledger.payments.createOrder(MID, "o", NOW);
      ledger.payments.findFinalTransaction(MID, "o");
      ledger.counts();
      step();
      ledger.webhooks.register(MID, "http://x", "T");
      step();
      ledger.partner.issueToken(MID, NOW);
      step();
      expect(revisions).toEqual([0, 1, 2, 2, 3, 4]);
    });

    it("counts and lists records by kind and merchant", () => {
      pay(ledger, "a");
      pay(ledger, "b");
      pay(ledger, "c", sale(), OTHER_MID);
      expect(ledger.counts()).toMatchObject({ orders: 3, payments: 3, refunds: 0, tokens: 0 });
      expect([...ledger.records("payments", OTHER_MID)]).toHaveLength(1);
      expect([...ledger.records("orders")]).toHaveLength(3);
      ledger.webhooks.register(MID, "http://x", "T");
      expect([...ledger.records("webhooks")]).toEqual([{ mid: MID, url: "http://x", types: ["T"] }]);
    });
  });
});
