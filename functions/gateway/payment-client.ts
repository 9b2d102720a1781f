import type { z } from "zod";
import { type CardCipherKey, encryptField } from "./card-crypto";
import { callMerchantApi, type GatewayContext, joinUrl } from "./context";
import { GatewayRequestError, parseRequest } from "./errors";
import { type CallKind, type GatewayResult, success } from "./result";
import {
  type CancelFundingKind,
  type CancelInput,
  type CancelResponse,
  type CaptureInput,
  type CaptureResponse,
  type ConfirmInput,
  type ConfirmResponse,
  cancelRequestFor,
  cancelResponse,
  captureRequest,
  captureResponse,
  checkRecurringStartDate,
  confirmRequest,
  confirmResponse,
  type PaymentInput,
  type PaymentResponse,
  type PlaintextCard,
  paymentInput,
  paymentRequest,
  paymentResponse,
  type ReadyInput,
  type ReadyResponse,
  type ReceiptUrlInput,
  type ReceiptUrlResponse,
  type RecurringAdjustInput,
  type RecurringResponse,
  type RetrieveInput,
  type RetrieveResponse,
  readyRequest,
  readyResponse,
  receiptUrlRequest,
  receiptUrlResponse,
  recurringAdjustRequest,
  recurringDeleteRequest,
  recurringIdParam,
  recurringResponse,
  retrieveRequest,
  retrieveResponse,
  type SettleInput,
  type SettleResponse,
  settleRequest,
  settleResponse,
  type TokenDeleteResponse,
  type TokenInquiryResponse,
  type TokenRebillInput,
  type TokenRebillResponse,
  tokenDeleteRequest,
  tokenDeleteResponse,
  tokenIdParam,
  tokenInquiryResponse,
  tokenRebillRequest,
  tokenRebillResponse,
  transactionIdParam,
  type VerifyResponse,
  verifyRequest,
  verifyResponse,
} from "./schemas/payment";

export interface CancelOptions {
  /** What the original payment was, when its cancel needs refund_account and/or tax (see cancelRequestFor). */
  readonly fundingKind?: CancelFundingKind;
}

type Outcome<T> = Promise<GatewayResult<T>>;

/**
 * How a merchant's page opens the payment window (README, The real gateway): it loads the SDK at `sdk_url` and calls
 * `EXIMBAY.request_pay(request_pay)`, which must hold the fgkey plus exactly the parameters sent to ready — the fgkey
 * check fails on any difference.
 */
export interface WindowLaunch {
  readonly sdk_url: string;
  readonly request_pay: Readonly<Record<string, unknown>>;
}

/** The SDK integrations load (v1; v2 is the same contract). */
const SDK_PATH = "/v1/javascriptSDK.js";

/** A validated transaction_id path segment (EC1002: exactly 24 characters). */
function transactionSegment(transactionId: string): string {
  return encodeURIComponent(
    parseRequest(transactionIdParam, { transaction_id: transactionId }).transaction_id,
  );
}

function recurringSegment(recurringId: string): string {
  return encodeURIComponent(parseRequest(recurringIdParam, { recurring_id: recurringId }).recurring_id);
}

function tokenSegment(tokenId: string): string {
  return encodeURIComponent(parseRequest(tokenIdParam, { token_id: tokenId }).token_id);
}

/** The seed's payment body requires lang; the token payment leaves it to the gateway, whose default is English. */
const DEFAULT_LANG = "EN";

/** The rescode retrieve answers for an order the gateway never saw ("No Transaction", README, The real gateway). */
export const NO_TRANSACTION_RESCODE = "Q004";

/** The seed's REBILL answers with the flat verify fields: the same facts as the token payment's nested answer. */
function nestedRebillAnswer(flat: PaymentResponse): TokenRebillResponse {
  return {
    rescode: flat.rescode,
    resmsg: flat.resmsg,
    mid: flat.mid,
    payment: {
      order_id: flat.order_id,
      currency: flat.currency,
      amount: flat.amount,
      transaction_id: flat.transaction_id,
      status: flat.status,
      auth_code: flat.auth_code,
      transaction_date: flat.transaction_date,
      access_country: flat.access_country,
      payment_method: flat.payment_method,
      pay_to: flat.pay_to,
    },
    card_info: {
      card_holder: flat.card_holder,
      card_number1: flat.card_number1,
      card_number4: flat.card_number4,
    },
  };
}

function encryptCard(card: PlaintextCard, key: CardCipherKey) {
  return {
    card_number: encryptField(card.card_number, key),
    expiry_date: encryptField(card.expiry_date, key),
    cvc: encryptField(card.cvc, key),
  };
}

type WalletInput = z.output<typeof paymentInput>["wallet_a"];

/** The merchant decrypts the wallet data, then sends its plain JSON text AES-encrypted (seed, non-ui payment). */
function encryptWallet(wallet: WalletInput, key: CardCipherKey) {
  if (wallet === undefined) return undefined;
  const { payment_data, ...rest } = wallet;
  const text = typeof payment_data === "string" ? payment_data : JSON.stringify(payment_data);
  return { ...rest, payment_data: encryptField(text, key) };
}

/**
 * The payment API (/v1/payments). Every method validates its request before sending (GatewayRequestError naming the
 * field; nothing sent), injects mid from the configuration and encrypts card and wallet data itself. Mutations are
 * sent once; reads (verify, retrieve, receiptUrl) are retried by the transport while the gateway is unavailable.
 */
export function createPaymentClient(context: GatewayContext) {
  const { config } = context;
  const cipherKey: CardCipherKey = { key: config.aesKey, iv: config.aesIv };

  const post = <S extends z.ZodType>(path: string, kind: CallKind, body: unknown, response: S) =>
    callMerchantApi(context, {
      baseUrl: config.paymentBaseUrl,
      path: `/v1/payments${path}`,
      body,
      kind,
      response,
    });
  const withMid = <T extends object>(input: T) => ({ ...input, mid: config.mid });

  async function payment(input: PaymentInput): Outcome<PaymentResponse> {
    const { card, wallet_a, wallet_b, merchant, payment, ...rest } = parseRequest(paymentInput, input);
    const body = parseRequest(paymentRequest, {
      ...rest,
      payment: card === undefined ? payment : { ...payment, ...encryptCard(card, cipherKey) },
      merchant: withMid(merchant ?? {}),
      wallet_a: encryptWallet(wallet_a, cipherKey),
      wallet_b: encryptWallet(wallet_b, cipherKey),
    });
    checkRecurringStartDate(body, context.now());
    return post("/payment", "mutation", body, paymentResponse);
  }

  return {
    /** Prepares a payment window; the fgkey goes to the merchant page unchanged. */
    /** Prepares a payment window; the answer's launch is what the merchant's page hands the SDK. */
    async ready(input: ReadyInput): Outcome<ReadyResponse & { readonly launch: WindowLaunch }> {
      const body = parseRequest(readyRequest, { ...input, merchant: withMid(input.merchant ?? {}) });
      checkRecurringStartDate(body, context.now());
      const outcome = await post("/ready", "mutation", body, readyResponse);
      if (outcome.kind !== "success") return outcome;
      // The parameters as they went on the wire (JSON drops what is undefined), then the fgkey.
      const sent: Record<string, unknown> = JSON.parse(JSON.stringify(body));
      const launch = {
        sdk_url: joinUrl(config.paymentBaseUrl, SDK_PATH),
        request_pay: { ...sent, fgkey: outcome.value.fgkey },
      };
      return success({ ...outcome.value, launch });
    },

    /** Authorizes (and with PAYMENT_PA acquires) a payment authenticated by a PAYER_AUTH window. */
    async confirm(input: ConfirmInput): Outcome<ConfirmResponse> {
      const body = parseRequest(confirmRequest, withMid(input));
      return post("/confirm", "mutation", body, confirmResponse);
    },

    /** Checks a window result: `query` is the status_url query string exactly as received. */
    async verify(query: string): Outcome<VerifyResponse> {
      const body = parseRequest(verifyRequest, { data: query });
      return post("/verify", "read", body, verifyResponse);
    },

    /**
     * Looks a transaction up by order_id, transaction_id (default) or refund_id. An order the gateway never saw is
     * answered Q004 (with or without payment.status NONE): that is a finding, not a failure, so it comes back as a
     * success with status NONE — the proof that an attempt never reached the gateway.
     */
    async retrieve(input: RetrieveInput): Outcome<RetrieveResponse> {
      const body = parseRequest(retrieveRequest, withMid(input));
      const outcome = await post("/retrieve", "read", body, retrieveResponse);
      if (outcome.kind !== "declined" || outcome.code !== NO_TRANSACTION_RESCODE) return outcome;
      return success({
        rescode: outcome.code,
        resmsg: outcome.message,
        mid: config.mid,
        payment: { status: "NONE" },
      });
    },

    /** The customer's receipt page; the payment's e-mail is the proof the seed requires. */
    async receiptUrl(transactionId: string, input: ReceiptUrlInput): Outcome<ReceiptUrlResponse> {
      const path = `/retrieve/receipt-url/${transactionSegment(transactionId)}`;
      const body = parseRequest(receiptUrlRequest, withMid(input));
      return post(path, "read", body, receiptUrlResponse);
    },

    /** Full (F) or partial (P) cancel; refund_amount may not exceed payment.balance. */
    async cancel(
      transactionId: string,
      input: CancelInput,
      options: CancelOptions = {},
    ): Outcome<CancelResponse> {
      const path = `/${transactionSegment(transactionId)}/cancel`;
      const body = parseRequest(cancelRequestFor(options.fundingKind), withMid(input));
      return post(path, "mutation", body, cancelResponse);
    },

    /** Manual acquiring of an AUTH transaction. */
    async capture(transactionId: string, input: CaptureInput): Outcome<CaptureResponse> {
      const path = `/${transactionSegment(transactionId)}/capture`;
      const body = parseRequest(captureRequest, withMid(input));
      return post(path, "mutation", body, captureResponse);
    },

    /** Settlement confirmation. */
    async settle(transactionId: string, input: SettleInput): Outcome<SettleResponse> {
      const path = `/${transactionSegment(transactionId)}/settle`;
      const body = parseRequest(settleRequest, withMid(input));
      return post(path, "mutation", body, settleResponse);
    },

    /** Server-to-server payment; `card` and wallet payment_data are plaintext here and encrypted before sending. */
    payment,

    /**
     * Token payment (REBILL) on a stored token: POST /tokenbilling/{token_id}/rebill, as the real gateway has it.
     * With `rebillEndpoint: "payment"` the seed's form instead (the non-ui payment with tokenbilling.token_id); its
     * flat answer is returned in the same nested shape.
     */
    async rebill(tokenId: string, input: TokenRebillInput): Outcome<TokenRebillResponse> {
      if (config.rebillEndpoint === "payment") {
        const { payment: order, buyer, ...rest } = input;
        // The seed's non-ui payment requires what the token payment leaves optional.
        if (buyer === undefined)
          throw new GatewayRequestError("buyer", "is required by the seed's REBILL form");
        const outcome = await payment({
          ...rest,
          buyer,
          payment: { ...order, lang: order.lang ?? DEFAULT_LANG },
          tokenbilling: { token_id: parseRequest(tokenIdParam, { token_id: tokenId }).token_id },
        });
        return outcome.kind === "success" ? success(nestedRebillAnswer(outcome.value)) : outcome;
      }
      const path = `/tokenbilling/${tokenSegment(tokenId)}/rebill`;
      const body = parseRequest(tokenRebillRequest, { ...input, merchant: withMid(input.merchant ?? {}) });
      return post(path, "mutation", body, tokenRebillResponse);
    },

    /** Deletes a stored token at the gateway; a deleted token can never be charged again. */
    async deleteToken(tokenId: string): Outcome<TokenDeleteResponse> {
      const path = `/tokenbilling/${tokenSegment(tokenId)}/delete`;
      return post(path, "mutation", parseRequest(tokenDeleteRequest, {}), tokenDeleteResponse);
    },

    /** What the gateway holds for a token (the card's identification values). */
    async inquireToken(tokenId: string): Outcome<TokenInquiryResponse> {
      return callMerchantApi(context, {
        baseUrl: config.paymentBaseUrl,
        path: `/v1/payments/tokenbilling/${tokenSegment(tokenId)}`,
        method: "GET",
        kind: "read",
        response: tokenInquiryResponse,
      });
    },

    /** Cancels a gateway-managed recurring payment. */
    async deleteRecurring(recurringId: string): Outcome<RecurringResponse> {
      const path = `/recurring/${recurringSegment(recurringId)}/delete`;
      const body = parseRequest(recurringDeleteRequest, withMid({}));
      return post(path, "mutation", body, recurringResponse);
    },

    /** Changes the amount of a gateway-managed recurring payment. */
    async adjustRecurring(recurringId: string, input: RecurringAdjustInput): Outcome<RecurringResponse> {
      const path = `/recurring/${recurringSegment(recurringId)}/adjust`;
      const body = parseRequest(recurringAdjustRequest, input);
      return post(path, "mutation", body, recurringResponse);
    },
  };
}

export type PaymentClient = ReturnType<typeof createPaymentClient>;
