import { parseRequest } from "../errors";
import {
  type CancelFundingKind,
  type CancelInput,
  type CancelResponse,
  cancelRequestFor,
  cancelResponse,
} from "../schemas/cancel";
import { type Outcome, type PaymentApi, transactionSegment } from "./payment-api";

export interface CancelOptions {
  /** What the original payment was, when its cancel needs refund_account and/or tax (see cancelRequestFor). */
  readonly fundingKind?: CancelFundingKind;
}

/** Cancel: the refund of a transaction, in full or in part. */
export function createCancelResource({ post, withMid }: PaymentApi) {
  return {
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
  };
}
