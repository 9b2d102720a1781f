import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { GatewayRequestError, parseRequest } from "../../../../functions/gateway/errors";
import {
  cancelRequest,
  cancelRequestFor,
  cancelResponse,
  captureResponse,
  checkRecurringStartDate,
  confirmResponse,
  type PaymentRequest,
  type PlaintextCard,
  parseStatusQuery,
  paymentInput,
  paymentRequest,
  paymentResponse,
  plaintextCard,
  type ReadyRequest,
  readyRequest,
  receiptUrlResponse,
  recurringAdjustRequest,
  retrieveRequest,
  retrieveResponse,
  statusQuery,
  verifyRequest,
} from "../../../../functions/gateway/schemas/payment";

/** The error a request schema raises, or undefined when it accepts the input. */
function requestError(schema: z.ZodType, input: unknown): GatewayRequestError | undefined {
  try {
    parseRequest(schema, input);
    return undefined;
  } catch (error) {
    if (error instanceof GatewayRequestError) return error;
    throw error;
  }
}

const rejectedField = (schema: z.ZodType, input: unknown) => requestError(schema, input)?.field;

const READY: ReadyRequest = {
  payment: {
    transaction_type: "PAYMENT",
    order_id: "sub1-202401-1",
    currency: "USD",
    amount: "10.00",
    lang: "EN",
  },
  merchant: { mid: "MID0000001" },
  url: { return_url: "https://shop.example/return", status_url: "https://shop.example/status" },
  buyer: { name: "Ada", email: "ada@example.com" },
  tokenbilling: { token_creation: "Y", unique_token_id: "N" },
  product: [{ name: "Plan", quantity: "1", unit_price: "10.00", link: "https://shop.example/plan" }],
  surcharge: [{ name: "Discount", quantity: "1", unit_price: "-1.50" }],
  settings: { display_type: "R", ostype: "M", virtualaccount_expiry_date: "2030010123" },
  recurring: { recurring_amount: "10.00", recurring_start_date: "20300201", recurring_interval: "1" },
  fast_payment: { user_id: "", user_ci: "", phone_number: "", birthday: "", gender: "", foreigner: "" },
  ispp: {
    sender_account_id: "acc-1",
    sender_first_name: "Ada",
    sender_last_name: "Lovelace",
    sender_email: "ada@example.com",
    sender_phone: "0100000000",
    sender_country_code: "KR",
    sender_create_date: "2024-02-29 23:59:59",
  },
  ship_to: { country: "US", state: "CA", city: "Palo Alto" },
};

describe("ready request", () => {
  it("accepts a complete window request", () => {
    expect(rejectedField(readyRequest, READY)).toBeUndefined();
  });

  it.each([
    ["payment.amount", { ...READY, payment: { ...READY.payment, amount: "0" } }],
    ["payment.order_id", { ...READY, payment: { ...READY.payment, order_id: "x".repeat(31) } }],
    ["payment.transaction_type", { ...READY, payment: { ...READY.payment, transaction_type: "SALE" } }],
    ["merchant.mid", { ...READY, merchant: { mid: "MID00000011" } }],
    [
      "url.status_url",
      { ...READY, url: { ...READY.url, status_url: `https://shop.example/${"s".repeat(255)}` } },
    ],
    ["buyer.email", { ...READY, buyer: { name: "Ada", email: "not-an-email" } }],
    ["product", { ...READY, product: Array.from({ length: 4 }, () => READY.product?.[0]) }],
    ["product.0.link", { ...READY, product: [{ name: "Plan", quantity: "1", unit_price: "1" }] }],
    ["surcharge.0.quantity", { ...READY, surcharge: [{ name: "Fee", quantity: "0", unit_price: "1" }] }],
    [
      "recurring.recurring_interval",
      { ...READY, recurring: { ...READY.recurring, recurring_interval: "11" } },
    ],
    [
      "recurring.recurring_amount",
      { ...READY, recurring: { ...READY.recurring, recurring_amount: "12345678901" } },
    ],
    ["fast_payment.foreigner", { ...READY, fast_payment: { ...READY.fast_payment, foreigner: undefined } }],
    ["fast_payment.birthday", { ...READY, fast_payment: { ...READY.fast_payment, birthday: "19991301" } }],
    [
      "ispp.sender_create_date",
      { ...READY, ispp: { ...READY.ispp, sender_create_date: "2023-02-29 10:00:00" } },
    ],
    ["ship_to.state", { ...READY, ship_to: { country: "KR", state: "CA" } }],
    [
      "settings.virtualaccount_expiry_date",
      { ...READY, settings: { virtualaccount_expiry_date: "2030010124" } },
    ],
    ["payment", { ...READY, payment: { ...READY.payment, amout: "1" } }],
  ])("rejects %s", (field, input) => {
    expect(rejectedField(readyRequest, input)).toBe(field);
  });

  it("allows only P000 as payment_method with site_foreign_currency", () => {
    const foreign = { ...READY, settings: { site_foreign_currency: "JPY" } };
    expect(
      rejectedField(readyRequest, { ...foreign, payment: { ...READY.payment, payment_method: "P000" } }),
    ).toBe(undefined);
    expect(
      rejectedField(readyRequest, { ...foreign, payment: { ...READY.payment, payment_method: "P185" } }),
    ).toBe("payment.payment_method");
  });

  it("ties token_creation to PAYMENT and token_id to REBILL", () => {
    const authorize = { ...READY.payment, transaction_type: "AUTHORIZE" };
    expect(rejectedField(readyRequest, { ...READY, payment: authorize })).toBe("tokenbilling.token_creation");
    const rebill = { ...READY.payment, transaction_type: "REBILL" };
    expect(rejectedField(readyRequest, { ...READY, payment: rebill, tokenbilling: undefined })).toBe(
      "tokenbilling.token_id",
    );
    expect(
      rejectedField(readyRequest, { ...READY, payment: rebill, tokenbilling: { token_id: "tok-1" } }),
    ).toBe(undefined);
    expect(rejectedField(readyRequest, { ...READY, tokenbilling: { token_id: "tok-1" } })).toBe(
      "tokenbilling.token_id",
    );
  });
});

describe("checkRecurringStartDate", () => {
  // 14:30 UTC on 31 January is 23:30 in Korea, where the gateway's "today" is.
  const today = new Date("2030-01-31T14:30:00Z");

  it("accepts a start date after today in Korea, and requests without recurring", () => {
    expect(() =>
      checkRecurringStartDate({ recurring: { recurring_start_date: "20300201" } }, today),
    ).not.toThrow();
    expect(() => checkRecurringStartDate({}, today)).not.toThrow();
  });

  it("rejects tomorrow in UTC when it is already today in Korea", () => {
    // 15:30 UTC on 31 January is 00:30 on 1 February in Korea.
    expect(() =>
      checkRecurringStartDate(
        { recurring: { recurring_start_date: "20300201" } },
        new Date("2030-01-31T15:30:00Z"),
      ),
    ).toThrow(expect.objectContaining({ field: "recurring.recurring_start_date" }));
  });

  it.each(["20300131", "20291231"])("rejects %s", (date) => {
    expect(() => checkRecurringStartDate({ recurring: { recurring_start_date: date } }, today)).toThrow(
      expect.objectContaining({ field: "recurring.recurring_start_date" }),
    );
  });
});

describe("plaintext card", () => {
  const CARD: PlaintextCard = { card_number: "4111111111111111", expiry_date: "203012", cvc: "737" };

  it("accepts a Luhn-valid card", () => {
    expect(rejectedField(plaintextCard, CARD)).toBeUndefined();
    expect(
      rejectedField(plaintextCard, { ...CARD, card_number: "378282246310005", cvc: "1234" }),
    ).toBeUndefined();
  });

  it.each([
    ["card_number", { ...CARD, card_number: "4111111111111112" }],
    ["card_number", { ...CARD, card_number: "4111 1111 1111 1111" }],
    ["card_number", { ...CARD, card_number: "42424242424" }],
    ["expiry_date", { ...CARD, expiry_date: "203013" }],
    ["expiry_date", { ...CARD, expiry_date: "1230" }],
    ["cvc", { ...CARD, cvc: "12" }],
  ])("rejects a bad %s with a message free of digits", (field, input) => {
    const error = requestError(plaintextCard, input);
    expect(error?.field).toBe(field);
    expect(error?.message).toBeDefined();
    expect(error?.message).not.toMatch(/\d/);
  });
});

describe("verify and the status_url query", () => {
  const QUERY =
    "ver=230&mid=MID0000001&transaction_type=PAYMENT&fgkey=ABC&order_id=o-1&currency=USD&amount=10.00" +
    "&email=ada%40example.com&rescode=0000&resmsg=Success.&status=Sale&cardno1=4111&cardno4=1111&token_id=tok-1" +
    "&vendor_extra=kept";

  it("requires a non-empty data string", () => {
    expect(rejectedField(verifyRequest, { data: QUERY })).toBeUndefined();
    expect(rejectedField(verifyRequest, { data: "" })).toBe("data");
    expect(rejectedField(verifyRequest, {})).toBe("data");
  });

  it("reads the query with the documented names, upper-case status and extra keys kept", () => {
    const result = parseStatusQuery(`?${QUERY}`);
    expect(result.success).toBe(true);
    expect(result.data).toMatchObject({
      version: "230",
      email: "ada@example.com",
      status: "SALE",
      card_number1: "4111",
      card_number4: "1111",
      token_id: "tok-1",
      vendor_extra: "kept",
    });
    expect(result.data).not.toHaveProperty("ver");
    expect(result.data).not.toHaveProperty("cardno1");
  });

  it("prefers the documented name when both spellings are present", () => {
    expect(parseStatusQuery(`${QUERY}&version=240`).data?.version).toBe("240");
  });

  it.each(["fgkey", "order_id", "rescode"])("fails without %s", (key) => {
    const params = new URLSearchParams(QUERY);
    params.delete(key);
    const result = parseStatusQuery(params.toString());
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual([key]);
  });

  it("reads a query without status, version or e-mail (the real gateway sends no status)", () => {
    const params = new URLSearchParams(QUERY);
    for (const key of ["status", "ver", "email"]) params.delete(key);
    const result = parseStatusQuery(params.toString());
    expect(result.success).toBe(true);
    expect(result.data?.status).toBeUndefined();
  });

  it("reads the older short names, empty parameters and a trailing &", () => {
    const short =
      "ver=230&mid=MID0000001&txntype=PAYMENT&fgkey=ABC&ref=o-1&cur=USD&amt=10.00&transid=TX1&authcode=12&" +
      "resdt=20300115170000&paymethod=P101&accesscountry=KR&cardholder=ADA&payto=X&basecur=&baseamt=&rescode=0000&" +
      "resmsg=Success.&param1=&";
    expect(parseStatusQuery(short).data).toMatchObject({
      transaction_type: "PAYMENT",
      order_id: "o-1",
      currency: "USD",
      amount: "10.00",
      transaction_id: "TX1",
      auth_code: "12",
      transaction_date: "20300115170000",
      payment_method: "P101",
      access_country: "KR",
      card_holder: "ADA",
      pay_to: "X",
      base_currency: "",
      param1: "",
    });
  });

  it("rejects an undocumented status", () => {
    expect(
      statusQuery.safeParse({ ...Object.fromEntries(new URLSearchParams(QUERY)), status: "PENDING" }).success,
    ).toBe(false);
  });
});

describe("retrieve", () => {
  const REQUEST = {
    mid: "MID0000001",
    payment: {
      order_id: "o-1",
      currency: "USD",
      amount: "10.00",
      lang: "EN",
      transaction_id: "T".repeat(24),
    },
  };

  it("defaults key_field to transaction_id", () => {
    expect(parseRequest(retrieveRequest, REQUEST).key_field).toBe("transaction_id");
    expect(
      parseRequest(retrieveRequest, {
        ...REQUEST,
        key_field: "order_id",
        payment: { ...REQUEST.payment, transaction_id: undefined },
      }).key_field,
    ).toBe("order_id");
  });

  it.each([
    ["payment.transaction_id", { ...REQUEST, payment: { ...REQUEST.payment, transaction_id: undefined } }],
    [
      "payment.transaction_id",
      { ...REQUEST, payment: { ...REQUEST.payment, transaction_id: "T".repeat(23) } },
    ],
    ["payment.refund_id", { ...REQUEST, key_field: "refund_id" }],
    ["key_field", { ...REQUEST, key_field: "email" }],
  ])("rejects %s", (field, input) => {
    expect(rejectedField(retrieveRequest, input)).toBe(field);
  });

  const RECORD = {
    status: "SALE",
    order_id: "o-1",
    currency: "USD",
    amount: "10.00",
    transaction_id: "T".repeat(24),
    transaction_date: "20300101120000",
  };

  it("exposes card_info under the documented names (sample spells cardno1/cardno4)", () => {
    const parsed = retrieveResponse.parse({
      rescode: "0000",
      resmsg: "Success.",
      mid: "MID0000001",
      payment: { ...RECORD, balance: "10.00", unexpected: "ignored" },
      card_info: { cardno1: "4111", cardno4: "1111" },
    });
    expect(parsed.card_info).toEqual({ card_number1: "4111", card_number4: "1111" });
    expect(parsed.payment).toEqual({ ...RECORD, balance: "10.00" });
  });

  it("accepts a NONE record without transaction fields but requires them otherwise", () => {
    const envelope = { rescode: "0000", resmsg: "Success", mid: "MID0000001" };
    const none = retrieveResponse.parse({ ...envelope, payment: { status: "NONE", order_id: "o-1" } });
    expect(none.payment).toEqual({ status: "NONE", order_id: "o-1" });
    expect(
      retrieveResponse.safeParse({ ...envelope, payment: { ...RECORD, transaction_id: undefined } }).success,
    ).toBe(false);
  });
});

describe("cancel", () => {
  const REQUEST = {
    mid: "MID0000001",
    refund: { refund_type: "P", refund_amount: "4.00", refund_id: "r-1", reason: "customer request" },
    payment: { order_id: "o-1", currency: "USD", amount: "10.00", balance: "6.00", lang: "EN" },
  };

  it("accepts a partial refund within the balance and a full refund without amount", () => {
    expect(rejectedField(cancelRequest, REQUEST)).toBeUndefined();
    expect(
      rejectedField(cancelRequest, {
        ...REQUEST,
        refund: { ...REQUEST.refund, refund_type: "F", refund_amount: undefined },
      }),
    ).toBeUndefined();
  });

  it.each([
    ["refund.refund_amount", { ...REQUEST, refund: { ...REQUEST.refund, refund_amount: undefined } }],
    ["refund.refund_amount", { ...REQUEST, refund: { ...REQUEST.refund, refund_amount: "6.01" } }],
    ["payment.balance", { ...REQUEST, payment: { ...REQUEST.payment, balance: "10.01" } }],
    ["refund.refund_type", { ...REQUEST, refund: { ...REQUEST.refund, refund_type: "X" } }],
    ["refund.reason", { ...REQUEST, refund: { ...REQUEST.refund, reason: "" } }],
  ])("rejects %s", (field, input) => {
    expect(rejectedField(cancelRequest, input)).toBe(field);
  });

  it("requires refund_account and tax for a virtual account, tax amounts for a points wallet", () => {
    const tax = { amount_tax_free: "0", amount_taxable: "3.64", amount_vat: "0.36", amount_service_fee: "0" };
    const account = { user_name: "Ada", bank_code: "004", account_number: "0000000000" };
    expect(rejectedField(cancelRequestFor("virtual_account"), REQUEST)).toBe("refund_account");
    expect(rejectedField(cancelRequestFor("virtual_account"), { ...REQUEST, refund_account: account })).toBe(
      "tax",
    );
    expect(
      rejectedField(cancelRequestFor("virtual_account"), { ...REQUEST, refund_account: account, tax }),
    ).toBe(undefined);
    expect(
      rejectedField(cancelRequestFor("points_wallet"), {
        ...REQUEST,
        tax: { ...tax, amount_vat: undefined },
      }),
    ).toBe("tax.amount_vat");
    expect(rejectedField(cancelRequestFor(undefined), REQUEST)).toBeUndefined();
  });

  it("reads the misspelled foregin_* sample keys", () => {
    const parsed = cancelResponse.parse({
      rescode: "0000",
      resmsg: "Success.",
      mid: "MID0000001",
      refund: {
        refund_amount: "4.00",
        refund_id: "r-1",
        refund_date: "20300101120000",
        refund_transaction_id: "R1",
      },
      payment: { order_id: "o-1", currency: "USD", amount: "10.00", transaction_id: "T1", balance: "2.00" },
      foreign: { foregin_currency: "KRW", foregin_amount: "5000", foregin_rate: "1250" },
    });
    expect(parsed.foreign).toEqual({ foreign_currency: "KRW", foreign_amount: "5000", foreign_rate: "1250" });
  });
});

describe("capture, confirm and receipt responses", () => {
  const CAPTURED = {
    order_id: "o-1",
    transaction_id: "T1",
    currency: "USD",
    amount: "10.00",
    lang: "EN",
    captured_date: "20300101120000",
  };

  it("reads allowed_pvoid as partially_cancelable, default N", () => {
    const envelope = { rescode: "0000", resmsg: "Success", mid: "MID0000001" };
    expect(
      captureResponse.parse({ ...envelope, payment: { ...CAPTURED, allowed_pvoid: "Y" } }).payment,
    ).toEqual({
      ...CAPTURED,
      partially_cancelable: "Y",
    });
    expect(captureResponse.parse({ ...envelope, payment: CAPTURED }).payment.partially_cancelable).toBe("N");
  });

  it("upper-cases the confirm status and reads card_info aliases", () => {
    const parsed = confirmResponse.parse({
      rescode: "0000",
      resmsg: "Success",
      mid: "MID0000001",
      payment: {
        ...CAPTURED,
        email: "ada@example.com",
        transaction_date: "20300101120000",
        status: "Registered",
      },
      card_info: { cardno4: "1111" },
    });
    expect(parsed.payment.status).toBe("REGISTERED");
    expect(parsed.card_info).toEqual({ card_number4: "1111" });
  });

  it("takes the receipt URL from receipt_url or url", () => {
    expect(
      receiptUrlResponse.parse({ rescode: "0000", resmsg: "", url: "https://r.example/1" }).receipt_url,
    ).toBe("https://r.example/1");
    expect(receiptUrlResponse.parse({ rescode: "0000", resmsg: "" }).receipt_url).toBeUndefined();
  });
});

describe("non-ui payment", () => {
  const CIPHER = "54Jg0DBngePbQ/HO+4NRWp9yTPkqyiRjaUZeUhkE1c8=";
  const REQUEST: PaymentRequest = {
    payment: {
      order_id: "o-1",
      currency: "USD",
      amount: "10.00",
      lang: "EN",
      card_number: CIPHER,
      expiry_date: CIPHER,
      cvc: CIPHER,
    },
    merchant: { mid: "MID0000001" },
    buyer: { name: "Ada", email: "ada@example.com" },
    tokenbilling: { token_creation: "Y" },
  };
  const NO_CARD = { order_id: "o-1", currency: "USD", amount: "10.00", lang: "EN" };

  it("accepts card ciphertext, a token rebill and a payment without card", () => {
    expect(rejectedField(paymentRequest, REQUEST)).toBeUndefined();
    expect(
      rejectedField(paymentRequest, { ...REQUEST, payment: NO_CARD, tokenbilling: { token_id: "tok" } }),
    ).toBe(undefined);
    expect(
      rejectedField(paymentRequest, { ...REQUEST, payment: NO_CARD, tokenbilling: undefined }),
    ).toBeUndefined();
  });

  it.each([
    ["payment.cvc", { ...REQUEST, payment: { ...REQUEST.payment, cvc: undefined } }],
    [
      "payment.card_number",
      { ...REQUEST, payment: { ...REQUEST.payment, card_number: "4111111111111111!" } },
    ],
    ["tokenbilling.token_id", { ...REQUEST, tokenbilling: { token_id: "tok" } }],
    [
      "tokenbilling.token_creation",
      { ...REQUEST, payment: NO_CARD, tokenbilling: { token_id: "t", token_creation: "Y" } },
    ],
    ["wallet_a", { ...REQUEST, wallet_a: { payment_data: CIPHER } }],
    ["settings", { ...REQUEST, settings: { display_type: "P" } }],
  ])("rejects %s", (field, input) => {
    expect(rejectedField(paymentRequest, input)).toBe(field);
  });

  it("checks the client input: plaintext card, one source of funds", () => {
    const input = {
      payment: NO_CARD,
      buyer: REQUEST.buyer,
      card: { card_number: "4111111111111111", expiry_date: "203012", cvc: "737" },
    };
    expect(rejectedField(paymentInput, input)).toBeUndefined();
    expect(rejectedField(paymentInput, { ...input, tokenbilling: { token_id: "tok" } })).toBe(
      "tokenbilling.token_id",
    );
    expect(rejectedField(paymentInput, { ...input, wallet_b: { payment_data: { a: 1 } } })).toBe("wallet_b");
    expect(rejectedField(paymentInput, { ...input, payment: { ...NO_CARD, card_number: CIPHER } })).toBe(
      "payment",
    );
  });

  it("reads the verify-field response leniently", () => {
    const parsed = paymentResponse.parse({
      rescode: "0000",
      resmsg: "Success.",
      status: "SALE",
      order_id: "o-1",
      currency: "USD",
      amount: "10.00",
      transaction_id: "T".repeat(24),
      ver: "230",
      cardno1: "4111",
      cardno4: "1111",
      token_id: "tok-1",
      not_documented: "kept",
    });
    expect(parsed).toMatchObject({
      version: "230",
      card_number1: "4111",
      card_number4: "1111",
      token_id: "tok-1",
    });
    expect(parsed.not_documented).toBe("kept");
    expect(paymentResponse.safeParse({ rescode: "0000", resmsg: "", status: "SALE" }).success).toBe(false);
  });
});

describe("recurring adjust", () => {
  it.each([
    ["12345678.90", undefined],
    ["1.234", "adjust_amount"],
    ["1,000", "adjust_amount"],
    ["0", "adjust_amount"],
  ])("%s → %s", (adjust_amount, field) => {
    expect(rejectedField(recurringAdjustRequest, { adjust_amount })).toBe(field);
  });
});
