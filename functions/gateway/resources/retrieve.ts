import { parseRequest } from "../errors";
import { success } from "../result";
import {
  type ReceiptUrlInput,
  type ReceiptUrlResponse,
  type RetrieveInput,
  type RetrieveResponse,
  receiptUrlRequest,
  receiptUrlResponse,
  retrieveRequest,
  retrieveResponse,
} from "../schemas/retrieve";
import { type Outcome, type PaymentApi, transactionSegment } from "./payment-api";

/** The rescode retrieve answers for an order the gateway never saw ("No Transaction", README, The real gateway). */
const NO_TRANSACTION_RESCODE = "Q004";

/** Retrieve: a transaction looked up, and its receipt page. Both are reads. */
export function createRetrieveResource({ config, post, withMid }: PaymentApi) {
  return {
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
  };
}
