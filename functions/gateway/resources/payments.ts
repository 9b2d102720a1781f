import type { z } from "zod";
import { type CardCipherKey, encryptField } from "../card-crypto";
import { parseRequest } from "../errors";
import { checkRecurringStartDate } from "../schemas/payment-api";
import {
  type CaptureInput,
  type CaptureResponse,
  captureRequest,
  captureResponse,
  type PaymentInput,
  type PaymentResponse,
  type PlaintextCard,
  paymentInput,
  paymentRequest,
  paymentResponse,
  type SettleInput,
  type SettleResponse,
  settleRequest,
  settleResponse,
} from "../schemas/payments";
import { type Outcome, type PaymentApi, transactionSegment } from "./payment-api";

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

/** Payments: the non-ui (server-to-server) payment, and the capture and settlement of a transaction. */
export function createPaymentsResource({ context, config, post, withMid }: PaymentApi) {
  const cipherKey: CardCipherKey = { key: config.aesKey, iv: config.aesIv };
  return {
    /** Server-to-server payment; `card` and wallet payment_data are plaintext here and encrypted before sending. */
    async payment(input: PaymentInput): Outcome<PaymentResponse> {
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
  };
}
