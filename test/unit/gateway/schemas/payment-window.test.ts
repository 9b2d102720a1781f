import { describe, expect, it } from "vitest";
import {
  confirmResponse,
  parseStatusQuery,
  type ReadyRequest,
  readyRequest,
  statusQuery,
  verifyRequest,
} from "../../../../functions/gateway/schemas/payment-window";
import { rejectedField } from "../../../support/request-errors";

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

describe("confirm response", () => {
  it("upper-cases the status and reads card_info aliases", () => {
    const parsed = confirmResponse.parse({
      rescode: "0000",
      resmsg: "Success",
      mid: "MID0000001",
      payment: {
        order_id: "o-1",
        currency: "USD",
        amount: "10.00",
        email: "ada@example.com",
        transaction_id: "T1",
        transaction_date: "20300101120000",
        status: "Registered",
      },
      card_info: { cardno4: "1111" },
    });
    expect(parsed.payment.status).toBe("REGISTERED");
    expect(parsed.card_info).toEqual({ card_number4: "1111" });
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
