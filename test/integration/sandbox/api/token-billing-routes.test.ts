import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
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
const issued = z.object({ token_id: z.string() });
const completion = z.object({ result: z.record(z.string(), z.string()) });

describe("sandbox tokens: creation, unique_token_id and REBILL (client contract)", () => {
  let h: PaymentHarness;

  beforeAll(async () => {
    // The window cases read the token from the seed's documented result form.
    h = await startPaymentHarness({ callbackForm: "seed" });
  });
  afterAll(() => h.close());

  /** The token payment: POST /v1/payments/tokenbilling/{token_id}/rebill. */
  const rebill = (orderId: string, tokenId: string) =>
    h.client.rebill(tokenId, { payment: order(orderId, "9.99"), buyer: BUYER });

  /** A token issued by a PAYMENT window with token_creation Y; the status_url query carries it. */
  async function windowToken(orderId: string, cardNumber: string, unique: "Y" | "N" = "N") {
    const input = h.window(orderId, { tokenbilling: { token_creation: "Y", unique_token_id: unique } });
    const { fgkey } = succeeded(await h.client.ready(input));
    const reply = await h.complete(fgkey, card(cardNumber));
    await h.sandbox.deliveries.settled();
    return completion.parse(reply.json).result;
  }

  /** A card on file made by the sandbox-only route (no payment): any test card, even a declining one. */
  async function sandboxToken(cardNumber: string, expiry = "203012") {
    const reply = await callSandbox(h.sandbox, "/sandbox/tokens", {
      body: { mid: MID, card_number: cardNumber, expiry_date: expiry },
    });
    return issued.parse(reply.json).token_id;
  }

  it("a PAYMENT window with token_creation Y answers token_id on status_url (verifiable); REBILL charges it", async () => {
    const result = await windowToken("tk-win-1", CARDS.visa);
    expect(result).toMatchObject({
      status: "SALE",
      token_creation: "Y",
      token_id: expect.stringMatching(/^SBXTK\d{19}$/),
    });
    const query = h.statusQueries().at(-1) ?? "";
    expect(new URLSearchParams(query).get("token_id")).toBe(result.token_id);
    expect(succeeded(await h.client.verify(query)).rescode).toBe("0000");

    const charged = succeeded(await rebill("tk-rebill-1", result.token_id ?? ""));
    // The real answer: the transaction nested under payment, the masked card under card_info, no status.
    expect(charged).toMatchObject({
      rescode: "0000",
      payment: { order_id: "tk-rebill-1", amount: "9.99", transaction_id: expect.any(String) },
      card_info: { card_number1: "4111", card_number4: "1111" },
    });
    expect(charged.payment.status).toBeUndefined();
    const retrieved = succeeded(
      await h.client.retrieve({ key_field: "order_id", payment: order("tk-rebill-1", "9.99") }),
    );
    expect(retrieved.payment.status).toBe("SALE");
  });

  it("the non-ui payment issues a token too; REBILL by order_id reuse is EEEE like any payment", async () => {
    const paid = succeeded(
      await h.client.payment(
        cardPayment("tk-nonui-1", CARDS.mastercard, { tokenbilling: { token_creation: "Y" } }),
      ),
    );
    expect(paid.token_id).toMatch(/^SBXTK/);
    succeeded(await rebill("tk-nonui-2", paid.token_id ?? ""));
    expect(await rebill("tk-nonui-2", paid.token_id ?? "")).toMatchObject({ kind: "unknown" });
  });

  it("unique_token_id Y refuses a second active token for the same card (EC00), in both flows", async () => {
    const first = await windowToken("tk-uniq-1", CARDS.other, "Y");
    expect(first.token_id).toBeDefined();
    const nonUi = cardPayment("tk-uniq-2", CARDS.other, {
      tokenbilling: { token_creation: "Y", unique_token_id: "Y" },
    });
    expect(await h.client.payment(nonUi)).toMatchObject({
      kind: "invalid",
      code: "EC00",
      message: expect.stringContaining("tokenbilling.unique_token_id"),
    });
    expect(h.sandbox.state.payments.findOrder(MID, "tk-uniq-2")).toBeUndefined();
    const second = await windowToken("tk-uniq-3", CARDS.other, "Y");
    expect(second).toMatchObject({ status: "NONE", rescode: "EC00" });
    expect(second.token_id).toBeUndefined();
    // Several tokens are fine with unique_token_id N; once none is active, Y issues again.
    const another = await windowToken("tk-uniq-4", CARDS.other, "N");
    expect(another.token_id).toBeDefined();
    for (const tokenId of [first.token_id, another.token_id]) {
      await callSandbox(h.sandbox, `/sandbox/tokens/${tokenId}/revoke`);
    }
    expect((await windowToken("tk-uniq-5", CARDS.other, "Y")).token_id).toBeDefined();
  });

  it.each([
    ["insufficient funds", CARDS.insufficientFunds, "DC51"],
    ["stolen card", CARDS.stolen, "DC43"],
  ])("a token of a declining test card (%s) declines the same way", async (_name, number, code) => {
    const tokenId = await sandboxToken(number);
    expect(await rebill(`tk-decl-${code}`, tokenId)).toMatchObject({ kind: "declined", code });
    const retrieved = succeeded(
      await h.client.retrieve({ key_field: "order_id", payment: order(`tk-decl-${code}`, "9.99") }),
    );
    expect(retrieved.payment.status).toBe("NONE");
  });

  it("4000000000000341 approves the first payment and declines every REBILL of its token", async () => {
    const paid = succeeded(
      await h.client.payment(
        cardPayment("tk-dor-1", CARDS.declineOnRebill, { tokenbilling: { token_creation: "Y" } }),
      ),
    );
    expect(await rebill("tk-dor-2", paid.token_id ?? "")).toMatchObject({ kind: "declined", code: "DC05" });
  });

  it("a 3-D Secure card needs no payer authentication on a REBILL (merchant-initiated)", async () => {
    expect(succeeded(await rebill("tk-pa-1", await sandboxToken(CARDS.payerAuth))).rescode).toBe("0000");
  });

  it("the seed's REBILL form (the non-ui payment with tokenbilling.token_id) charges the token too", async () => {
    const tokenId = await sandboxToken(CARDS.visa);
    const charged = succeeded(
      await h.client.payment({
        payment: order("tk-seed-1", "9.99"),
        buyer: BUYER,
        tokenbilling: { token_id: tokenId },
      }),
    );
    expect(charged).toMatchObject({ status: "SALE", transaction_type: "REBILL", token_id: tokenId });
  });

  it("a deleted token is refused (TK03) and the deletion can be repeated; inquiry reads the masked card", async () => {
    const tokenId = await sandboxToken(CARDS.mastercard);
    expect(succeeded(await h.client.inquireToken(tokenId))).toMatchObject({
      rescode: "0000",
      token_id: tokenId,
      card_info: { card_number1: "5555", card_number4: "4444" },
    });
    expect(succeeded(await h.client.deleteToken(tokenId)).rescode).toBe("0000");
    expect(succeeded(await h.client.deleteToken(tokenId)).rescode).toBe("0000");
    expect(h.sandbox.state.tokens.find(MID, tokenId)?.status).toBe("deleted");
    expect(await rebill("tk-del-1", tokenId)).toMatchObject({ kind: "declined", code: "TK03" });
    expect(await h.client.inquireToken(tokenId)).toMatchObject({ kind: "declined", code: "TK03" });
    // A deleted token stays deleted: the sandbox's own reactivation does not bring it back.
    await callSandbox(h.sandbox, `/sandbox/tokens/${tokenId}/reactivate`);
    expect(await rebill("tk-del-2", tokenId)).toMatchObject({ kind: "declined", code: "TK03" });
  });

  it("expired → TK01, revoked → TK02, reactivated → approves again; each refusal burns its order", async () => {
    const tokenId = await sandboxToken(CARDS.visa);
    expect(await callSandbox(h.sandbox, `/sandbox/tokens/${tokenId}/expire`)).toMatchObject({
      json: { status: "expired" },
    });
    expect(await rebill("tk-st-1", tokenId)).toMatchObject({ kind: "declined", code: "TK01" });
    await callSandbox(h.sandbox, `/sandbox/tokens/${tokenId}/revoke`);
    expect(await rebill("tk-st-2", tokenId)).toMatchObject({ kind: "declined", code: "TK02" });
    await callSandbox(h.sandbox, `/sandbox/tokens/${tokenId}/reactivate`);
    expect(succeeded(await rebill("tk-st-3", tokenId)).rescode).toBe("0000");
    expect(await rebill("tk-st-1", tokenId)).toMatchObject({
      kind: "unknown",
      reason: expect.stringContaining("EEEE"),
    });
    expect(await callSandbox(h.sandbox, "/sandbox/tokens/SBXTK0000000000000009999/expire")).toMatchObject({
      status: 400,
      json: { rescode: "EC00" },
    });
  });

  it("a token expires with its card by the sandbox clock (TK01, status expired)", async () => {
    const tokenId = await sandboxToken(CARDS.visa, "202604");
    expect(succeeded(await rebill("tk-clock-1", tokenId)).rescode).toBe("0000");
    await h.sandbox.clock.set(new Date("2026-05-01T00:00:00.000Z"));
    expect(await rebill("tk-clock-2", tokenId)).toMatchObject({ kind: "declined", code: "TK01" });
    expect(h.sandbox.state.tokens.find(MID, tokenId)?.status).toBe("expired");
  });

  it("an unknown token is EC00 (nothing recorded), at the token payment, at ready and at payment", async () => {
    expect(await rebill("tk-unknown-1", "SBXTK0000000000000009999")).toMatchObject({
      kind: "invalid",
      code: "EC00",
      message: expect.stringContaining("token_id"),
    });
    const seedForm = { payment: order("tk-unknown-3", "9.99"), buyer: BUYER };
    expect(
      await h.client.payment({ ...seedForm, tokenbilling: { token_id: "SBXTK0000000000000009999" } }),
    ).toMatchObject({
      kind: "invalid",
      code: "EC00",
      message: expect.stringContaining("tokenbilling.token_id"),
    });
    expect(h.sandbox.state.payments.findOrder(MID, "tk-unknown-1")).toBeUndefined();
    const input = h.window(
      "tk-unknown-2",
      { tokenbilling: { token_id: "SBXTK0000000000000009999" } },
      "REBILL",
    );
    expect(await h.client.ready(input)).toMatchObject({ kind: "invalid", code: "EC00" });
  });

  it("a REBILL window charges its token without a card", async () => {
    const tokenId = await sandboxToken(CARDS.mastercard);
    const { fgkey } = succeeded(
      await h.client.ready(h.window("tk-rbw-1", { tokenbilling: { token_id: tokenId } }, "REBILL")),
    );
    const result = completion.parse((await h.complete(fgkey)).json).result;
    expect(result).toMatchObject({
      status: "SALE",
      transaction_type: "REBILL",
      token_id: tokenId,
      card_number4: "4444",
    });
  });
});
