import { STATUS_RECEIVED_REPLY, statusReply } from "../gateway/status-reply";
import type { RouteAnswer } from "./merchant-api-routes";

// One example per operation of the merchant API's OpenAPI document: its request (body, or the query of a callback)
// and each success answer, as the API takes and gives them (the shapes of a local stack's answers, with the ids and
// URLs of a deployment). test/unit/api/openapi-examples.test.ts parses each with its route's zod schema, so an
// example cannot drift from what the API accepts or sends. The card number is a Luhn-valid number that is none of
// the sandbox's test cards (it approves there, as any other valid number does).

export interface OperationExample {
  /** The request body, in the route's media type. */
  readonly request?: unknown;
  /** Query parameters by name (a free-form query: its one parameter's value). */
  readonly query?: Readonly<Record<string, unknown>>;
  /** Each answer of the route's own (RouteAnswer), by status; errors in the Error body come from errors.ts. */
  readonly answers: Readonly<Partial<Record<RouteAnswer["status"], unknown>>>;
}

const SUBSCRIPTION_ID = "sub_besy6d53cv4qta33";
const API = "https://a1b2c3d4e5.execute-api.us-east-1.amazonaws.com";
const PAGES = "https://f6g7h8i9j0.execute-api.us-east-1.amazonaws.com";
const SHOP = "https://shop.example.com";
const SDK_URL = "https://api-test.eximbay.com/v1/javascriptSDK.js";
const FGKEY = "A87BCF3EF2AE885CA3C08BBAB5B2F4B665863E3E5BD210EB1DDD28C51959AC89";
const CREATED_AT = "2027-03-01T10:00:00.000Z";

const customer = { name: "Ann Lee", email: "ann@example.com", external_id: "cus_1042" };
const plan = { amount: "19.90", currency: "USD", interval_months: 1 };
const card = { number: "4242424242424242", expiry: "203012", cvc: "737" };

const subscription = {
  subscription_id: SUBSCRIPTION_ID,
  status: "active",
  billing: "token",
  external_id: "cus_1042",
  metadata: { plan_name: "Starter" },
  plan: { ...plan, quantity: 1 },
  current_period: { index: 0, start: CREATED_AT, end: "2027-04-01T10:00:00.000Z" },
  next_charge_at: "2027-04-01T10:00:00.000Z",
  card: { first4: "4242", last4: "4242" },
  cancel_at: null,
  scheduled_plan: null,
  discount: null,
  trial_end: null,
  resume_at: null,
  created_at: CREATED_AT,
};

/** A sign-up or new card whose charge is being settled: the period is not paid yet. */
const pendingSubscription = {
  ...subscription,
  status: "pending",
  current_period: null,
  next_charge_at: null,
};

const orderId = (period: number) => `${SUBSCRIPTION_ID}-${period}-0`;

/** What the gateway's SDK takes: exactly the parameters ready was sent, and the fgkey. */
const requestPay = (period: number, amount: string, returnUrl: string) => ({
  payment: { transaction_type: "PAYMENT", order_id: orderId(period), currency: "USD", amount, lang: "EN" },
  merchant: { mid: "1A2B3C4D5E" },
  url: { return_url: returnUrl, status_url: `${API}/webhooks/status` },
  buyer: { name: customer.name, email: customer.email },
  other_param: { param1: customer.external_id },
  tokenbilling: { token_creation: "Y" },
  fgkey: FGKEY,
});

/** An ad hoc charge whose answer was lost: the attempt sweep settles it by retrieve. */
const webhookEndpoint = {
  id: "we_3n5q7s9u1w3y5a7c",
  url: `${SHOP}/billing-webhooks`,
  events: ["charge.succeeded", "charge.failed"],
  description: "access",
  signature_scheme: "standard_webhooks",
  created_at: CREATED_AT,
};

const price = {
  price_id: "price_7k2m9q4x8w3n5pzt",
  active: true,
  product: { name: "Pro", description: "Every feature, for teams" },
  amount: "19.90",
  currency: "USD",
  interval_months: 1,
  trial_days: null,
  lookup_key: "pro_monthly",
  metadata: {},
  created_at: CREATED_AT,
};

const coupon = {
  coupon_id: "co_4hq7x2m9k3p8w5tz",
  code: "LAUNCH20",
  percent_off: 20,
  amount_off: null,
  currency: null,
  duration: "repeating",
  duration_in_months: 3,
  max_redemptions: 100,
  redeem_by: null,
  times_redeemed: 0,
  valid: true,
  created_at: CREATED_AT,
};

const unsettledCharge = {
  charge_id: orderId(5001),
  kind: "ad_hoc",
  period: 5001,
  attempt: 0,
  order_id: orderId(5001),
  amount: "5.00",
  amount_before_discount: "5.00",
  discount: "0.00",
  currency: "USD",
  status: "unknown",
  refunded_amount: "0.00",
  created_at: CREATED_AT,
};
const charge = { ...unsettledCharge, status: "succeeded", transaction_id: "1A2B3C4D5EW0000000000002" };

const seller = {
  name: "Example Software Ltd.",
  email: "billing@shop.example.com",
  address: ["1 Market Street", "94105 San Francisco CA", "US"],
  tax_id: "US-EIN 12-3456789",
};
const buyer = {
  name: "Ada Lovelace",
  email: "ada@example.com",
  address: ["12 St James's Square", "SW1Y 4LB London", "GB"],
  tax_id: "GB123456789",
};
const invoice = {
  number: "INV-2027-000123",
  subscription_id: SUBSCRIPTION_ID,
  external_id: "user_42",
  issue_date: "2027-03-01",
  issued_at: CREATED_AT,
  seller,
  customer: buyer,
  currency: "USD",
  lines: [
    {
      description: "Pro",
      quantity: 3,
      unit_amount: "19.90",
      amount: "59.70",
      period_start: "2027-03-01",
      period_end: "2027-03-31",
    },
  ],
  subtotal: "59.70",
  discount: "11.94",
  tax: "9.55",
  tax_lines: [{ name: "VAT", percent: "20", amount: "9.55", inclusive: false }],
  total: "57.31",
  hosted_url: "https://pay.example.com/documents/eyJzIjoiZG9jdW1lbnQifQ.c2lnbmF0dXJl",
  pdf_url: "https://pay.example.com/documents/eyJzIjoiZG9jdW1lbnQifQ.c2lnbmF0dXJl/pdf",
  charge_id: orderId(1),
  order_id: orderId(1),
  transaction_id: "1A2B3C4D5EW0000000000003",
  billed: { currency: "KRW", amount: "77369", rate: "1350" },
};
const { order_id: _order, transaction_id: _transaction, billed: _billed, ...invoiceHeading } = invoice;
const creditNote = {
  ...invoiceHeading,
  number: "CN-2027-000007",
  lines: [
    {
      description: "Refund on INV-2027-000123: customer request",
      quantity: 1,
      unit_amount: "4.17",
      amount: "4.17",
      period_start: null,
      period_end: null,
    },
  ],
  subtotal: "4.17",
  discount: "0.00",
  tax: "0.83",
  tax_lines: [{ name: "VAT", percent: "20", amount: "0.83", inclusive: false }],
  total: "5.00",
  refund_id: "rf_sdw68g2s2xyceg2f",
  invoice_number: "INV-2027-000123",
  reason: "customer request",
};

const unsettledRefund = {
  refund_id: "rf_sdw68g2s2xyceg2f",
  charge_id: orderId(5001),
  amount: "5.00",
  currency: "USD",
  reason: "customer request",
  status: "unknown",
  created_at: CREATED_AT,
};
const refund = { ...unsettledRefund, status: "succeeded", refund_transaction_id: "1A2B3C4D5EW0000000000003" };

/** A window result as the real gateway posts it to status_url (long names, version 230; fgkey shortened). */
const windowResult = {
  mid: "1A2B3C4D5E",
  transaction_type: "PAYMENT",
  order_id: orderId(0),
  currency: "USD",
  amount: "19.90",
  transaction_id: "1A2B3C4D5EW0000000000001",
  rescode: "0000",
  resmsg: "Success.",
  version: "230",
  fgkey: FGKEY,
};

const STATUS_ANSWERS = {
  200: STATUS_RECEIVED_REPLY,
  400: statusReply("EC00", "Invalid parameter: body is not a form or a JSON object of strings"),
};

const WEBHOOK_ACK = { rescode: "0000", resmsg: "Success" };

export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExample>> = {
  createCheckout: {
    request: {
      customer,
      metadata: { plan_name: "Starter" },
      plan,
      billing: "token",
      description: "Starter plan",
      success_url: `${SHOP}/welcome`,
      cancel_url: `${SHOP}/plans`,
      expires_in_minutes: 60,
    },
    answers: {
      201: {
        checkout_id: SUBSCRIPTION_ID,
        subscription_id: SUBSCRIPTION_ID,
        order_id: orderId(0),
        checkout_url: `${PAGES}/pay/c2lnbmVkLWxpbmstdG9rZW4`,
        expires_at: "2027-03-01T11:00:00.000Z",
        fgkey: FGKEY,
        sdk_url: SDK_URL,
        request_pay: requestPay(0, "19.90", `${PAGES}/pay/c2lnbmVkLWxpbmstdG9rZW4/return`),
      },
    },
  },
  createPortalSession: {
    request: { subscription_id: SUBSCRIPTION_ID, return_url: `${SHOP}/account`, lang: "en" },
    answers: {
      201: { url: `${PAGES}/portal/cG9ydGFsLWxpbmstdG9rZW4`, expires_at: "2027-03-01T10:15:00.000Z" },
    },
  },
  createSubscription: {
    request: { customer, metadata: { plan_name: "Starter" }, plan, billing: "token", card },
    answers: { 201: subscription, 202: pendingSubscription },
  },
  listSubscriptions: {
    query: { status: "active", limit: "1" },
    answers: {
      200: { data: [subscription], next_cursor: "eyJwIjoxMywiayI6InN1Yl9iZXN5NmQ1M2N2NHF0YTMzIn0" },
    },
  },
  getSubscription: { answers: { 200: subscription } },
  updateSubscription: {
    request: { external_id: "cus_1042", metadata: { plan_name: "Starter", seats: "5" } },
    answers: { 200: { ...subscription, metadata: { plan_name: "Starter", seats: "5" } } },
  },
  adjustSubscription: {
    request: { amount: "29.90", at: "next_renewal" },
    answers: { 200: { ...subscription, scheduled_plan: { ...plan, amount: "29.90", quantity: 1 } } },
  },
  updatePaymentMethod: {
    request: { card },
    answers: {
      200: subscription,
      201: {
        subscription_id: SUBSCRIPTION_ID,
        order_id: orderId(5000),
        expires_at: "2027-03-02T10:00:00.000Z",
        fgkey: FGKEY,
        sdk_url: SDK_URL,
        request_pay: requestPay(5000, "0.01", `${SHOP}/card-updated`),
      },
      202: subscription,
    },
  },
  pauseSubscription: {
    request: { resume_at: "2027-05-01T00:00:00.000Z" },
    answers: {
      200: {
        ...subscription,
        status: "paused",
        next_charge_at: "2027-05-01T00:00:00.000Z",
        resume_at: "2027-05-01T00:00:00.000Z",
      },
    },
  },
  resumeSubscription: { request: {}, answers: { 200: subscription } },
  cancelSubscription: {
    request: { at_period_end: true },
    answers: { 200: { ...subscription, cancel_at: "2027-04-01T10:00:00.000Z" } },
  },
  createCharge: {
    request: { amount: "5.00" },
    answers: {
      201: charge,
      202: unsettledCharge,
    },
  },
  listCharges: {
    answers: {
      200: {
        charges: [
          {
            ...charge,
            charge_id: orderId(0),
            kind: "scheduled",
            period: 0,
            order_id: orderId(0),
            amount: "19.90",
            amount_before_discount: "19.90",
            transaction_id: "1A2B3C4D5EW0000000000001",
          },
          charge,
        ],
      },
    },
  },
  listInvoices: {
    query: { external_id: "user_42", from: "2027-03-01", limit: "20" },
    answers: { 200: { data: [invoice], next_cursor: null } },
  },
  getInvoice: { answers: { 200: invoice } },
  listCreditNotes: {
    query: { subscription_id: SUBSCRIPTION_ID },
    answers: { 200: { data: [creditNote], next_cursor: null } },
  },
  getCreditNote: { answers: { 200: creditNote } },
  getReceipt: {
    answers: {
      200: {
        charge_id: orderId(5001),
        receipt_url: "https://api-test.eximbay.com/v1/payments/receipt/1A2B3C4D5EW0000000000002",
      },
    },
  },
  createRefund: {
    request: { amount: "5.00", reason: "customer request" },
    answers: {
      201: refund,
      202: unsettledRefund,
    },
  },
  receiveWindowResult: { query: { result: windowResult }, answers: STATUS_ANSWERS },
  receiveWindowResultForm: { request: windowResult, answers: STATUS_ANSWERS },
  receiveGatewayWebhook: {
    request: {
      type: "CHARGEBACK",
      data: {
        mid: "1A2B3C4D5E",
        order_id: orderId(0),
        transaction_id: "1A2B3C4D5EW0000000000001",
        currency: "USD",
        amount: "19.90",
        chargeback_status: "REPORTED",
        chargeback_reason: "not recognized by the cardholder",
        chargeback_report_date: "20270320",
        chargeback_deadline: "20270410",
      },
    },
    answers: { 200: WEBHOOK_ACK, 401: { rescode: "XXXX", resmsg: "signature_fail" } },
  },
  receivePartnerEvent: {
    request: {
      id: "evt_01J9Z3W8XK",
      eventType: "PAYMENT_COMPLETED",
      timestamp: "2027-03-01T19:00:02+09:00",
      data: {
        invoice: { invoiceNumber: orderId(0), status: "PAID" },
        payment: {
          transactionId: "1A2B3C4D5EW0000000000001",
          amount: "19.90",
          currency: "USD",
          rescode: "0000",
        },
      },
    },
    answers: {
      200: { code: "CMN_0000", message: "Success" },
      400: { code: "INVALID_EVENT", message: "not a partner webhook event" },
    },
  },
  receiveRecurringNotice: {
    query: { subscription_id: SUBSCRIPTION_ID, token: "n0t1fy7ok3nOfTh3P1an" },
    request: { order_id: orderId(1), recurring_id: "RC0000000123" },
    answers: {
      200: WEBHOOK_ACK,
      400: { rescode: "EC00", resmsg: "Invalid parameter: subscription_id must be a subscription id" },
      404: { rescode: "EC00", resmsg: "Invalid parameter: token" },
    },
  },
  createPrice: {
    request: {
      product: { name: "Pro", description: "Every feature, for teams" },
      amount: "19.90",
      currency: "USD",
      interval_months: 1,
      lookup_key: "pro_monthly",
    },
    answers: { 201: price },
  },
  listPrices: {
    query: { active: "true", limit: "20" },
    answers: { 200: { data: [price], next_cursor: null } },
  },
  getPrice: { answers: { 200: price } },
  updatePrice: {
    request: { active: false, lookup_key: null },
    answers: { 200: { ...price, active: false, lookup_key: null } },
  },
  createCoupon: {
    request: {
      percent_off: 20,
      duration: "repeating",
      duration_in_months: 3,
      max_redemptions: 100,
      code: "LAUNCH20",
    },
    answers: { 201: coupon },
  },
  listCoupons: { query: { limit: "20" }, answers: { 200: { data: [coupon], next_cursor: null } } },
  getCoupon: { answers: { 200: { ...coupon, times_redeemed: 42 } } },
  createWebhookEndpoint: {
    request: {
      url: `${SHOP}/billing-webhooks`,
      events: ["charge.succeeded", "charge.failed"],
      description: "access",
    },
    answers: {
      201: { ...webhookEndpoint, secret: "whsec_Jq8v2Yx0cN4mT6pR1sW9uZ3bE5gK7hL2aD4fQ8iO0nM=" },
    },
  },
  listWebhookEndpoints: { answers: { 200: { data: [webhookEndpoint] } } },
  deleteWebhookEndpoint: { request: {}, answers: { 200: webhookEndpoint } },
  listWebhookDeliveries: {
    answers: {
      200: {
        data: [
          {
            id: "wd_8k2m4p6r8t0v2x4z",
            event_id: "6dc263bb-2c8e-4954-9eec-d72397a1ee85",
            event_type: "charge.succeeded",
            status: "retrying",
            attempts: 2,
            last_status: 503,
            last_error: null,
            next_attempt_at: "2027-03-01T10:03:00.000Z",
            first_attempt_at: CREATED_AT,
            last_attempt_at: "2027-03-01T10:01:00.000Z",
            created_at: CREATED_AT,
            updated_at: "2027-03-01T10:01:00.000Z",
          },
        ],
      },
    },
  },
  advanceLocalClock: {
    request: { advance: "P31D" },
    answers: { 200: { now: "2027-04-01T10:00:00.000Z" } },
  },
  listLocalMail: {
    answers: {
      200: {
        mails: [
          {
            template: "payment_failed",
            mail_id: "payment_failed-6dc263bb-2c8e-4954-9eec-d72397a1ee85",
            event_id: "6dc263bb-2c8e-4954-9eec-d72397a1ee85",
            message_id: "0f8e2a4c-9d1b-4e7a-8c3f-5b6d7e8f9a0b",
            from: "Sandbox Shop <billing@sandbox-shop.test>",
            to: [customer.email],
            subject: "Your payment to Sandbox Shop did not go through",
            text: "Hello Ann Lee,\n\nWe could not charge $19.90 for your subscription …",
            html: '<!doctype html><html lang="en">…</html>',
            sent_at: "2027-04-01T10:05:00.000Z",
          },
        ],
      },
    },
  },
};
