import { describe, expect, it } from "vitest";
import { carriesCardData, parseIntakeMessage } from "../../../../functions/core/ports/intake-messages";
import {
  gatewayWebhookIntake,
  partnerEventIntake,
  recurringNoticeIntake,
  statusCallbackIntake,
} from "../../../../functions/inbound/gateway-notices";

const NOW = new Date("2027-03-01T10:00:00.000Z");
const RECEIVED = NOW.toISOString();
const PAN = "4111111111111111";

describe("carriesCardData", () => {
  it("passes the masked card fields of a window result", () => {
    expect(
      carriesCardData(
        "ver=1.0&mid=SBXTEST001&card_number1=4111&card_number4=1111&card_number=4111********1111" +
          "&transaction_id=SBXT00000000000000000002&transaction_date=20270301100000&token_id=SBXTK0000000000000000002",
      ),
    ).toBe(false);
  });

  it.each([
    ["a full card number", `card_number=${PAN}`],
    ["a card number under any name", `param1=${PAN}`],
    ["a CVC", "cvc=123"],
    ["a CVV", "CVV2=123"],
  ])("refuses %s", (_name, query) => {
    expect(carriesCardData(query)).toBe(true);
  });
});

describe("intake messages", () => {
  it("keeps a status query untouched, dropping a leading '?'", () => {
    const query = "order_id=a-0-0&amount=29.00&fgkey=ABC%2B&email=a%40b.c";
    expect(statusCallbackIntake(`?${query}`, NOW)).toEqual({
      ok: true,
      message: { kind: "status", query, received_at: RECEIVED },
    });
  });

  it("refuses an empty status query and one with card data, naming no value", () => {
    expect(statusCallbackIntake("", NOW)).toMatchObject({ ok: false });
    const refused = statusCallbackIntake(`card_number=${PAN}`, NOW);
    expect(refused).toEqual({ ok: false, reason: "query must not carry card data" });
  });

  it("reads a PAYMENT_COMPLETED event as a hint of ids; other types are ignored; junk is refused", () => {
    const event = {
      id: "evt_1",
      eventType: "PAYMENT_COMPLETED",
      timestamp: "2027-03-01T09:59:59Z",
      data: {
        invoice: { invoiceId: "inv_1", invoiceNumber: "sub_a-0-0", status: "COMPLETED" },
        payment: {
          transactionId: "T1",
          amount: "29.00",
          currency: "USD",
          rescode: "0000",
          resmsg: "Success",
        },
      },
    };
    expect(partnerEventIntake(event, NOW)).toEqual({
      ok: true,
      message: {
        kind: "partner",
        event_id: "evt_1",
        transaction_id: "T1",
        order_id: "sub_a-0-0",
        received_at: RECEIVED,
      },
    });
    expect(partnerEventIntake({ ...event, eventType: "INVOICE_VOIDED" }, NOW)).toEqual({
      ok: "ignored",
      eventType: "INVOICE_VOIDED",
    });
    expect(partnerEventIntake("junk", NOW)).toMatchObject({ ok: false });
  });

  it("reads a recurring notice from our subscription id and the gateway's order_id", () => {
    expect(recurringNoticeIntake("sub_a", { order_id: "R1-1", status: "SALE" }, NOW)).toEqual({
      ok: true,
      message: { kind: "recurring", subscription_id: "sub_a", order_id: "R1-1", received_at: RECEIVED },
    });
    expect(recurringNoticeIntake(undefined, { order_id: "R1-1" }, NOW)).toMatchObject({ ok: false });
    expect(recurringNoticeIntake("sub_a", {}, NOW)).toMatchObject({ ok: false });
  });

  it("takes only the type and the ids of a gateway webhook", () => {
    const body = JSON.stringify({
      rescode: "0000",
      resmsg: "Success",
      type: "CHARGEBACK",
      data: {
        transaction_id: "T1",
        order_id: "sub_a-1-0",
        chargeback_id: "C1",
        amount: "29.00",
        reason: "Fraud",
      },
    });
    expect(gatewayWebhookIntake(body, NOW)).toEqual({
      ok: true,
      message: {
        kind: "gateway",
        type: "CHARGEBACK",
        transaction_id: "T1",
        order_id: "sub_a-1-0",
        chargeback_id: "C1",
        received_at: RECEIVED,
      },
    });
    expect(gatewayWebhookIntake('{"type":"PAYOUT_REMITTANCE_COMPLETE","data":null}', NOW)).toMatchObject({
      ok: true,
      message: { type: "PAYOUT_REMITTANCE_COMPLETE" },
    });
    expect(gatewayWebhookIntake("not json", NOW)).toEqual({ ok: false, reason: "body is not JSON" });
    expect(gatewayWebhookIntake("{}", NOW)).toMatchObject({ ok: false });
  });

  it("parses queued bodies strictly: an unknown field (card data) or a forged query is malformed", () => {
    const message = { kind: "status", query: "a=1", received_at: RECEIVED };
    expect(parseIntakeMessage(JSON.stringify(message))).toEqual(message);
    expect(() => parseIntakeMessage(JSON.stringify({ ...message, card_number: PAN }))).toThrow(/malformed/);
    expect(() => parseIntakeMessage(JSON.stringify({ ...message, query: `card_number=${PAN}` }))).toThrow(
      /card data/,
    );
    expect(() => parseIntakeMessage("nope")).toThrow(/not JSON/);
    try {
      parseIntakeMessage(JSON.stringify({ ...message, query: `card_number=${PAN}` }));
    } catch (error) {
      expect(String(error)).not.toContain(PAN);
    }
  });
});
