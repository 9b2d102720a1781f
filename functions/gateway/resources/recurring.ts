import { parseRequest } from "../errors";
import {
  type RecurringAdjustInput,
  type RecurringResponse,
  recurringAdjustRequest,
  recurringDeleteRequest,
  recurringIdParam,
  recurringResponse,
} from "../schemas/recurring";
import type { Outcome, PaymentApi } from "./payment-api";

function recurringSegment(recurringId: string): string {
  return encodeURIComponent(parseRequest(recurringIdParam, { recurring_id: recurringId }).recurring_id);
}

/** Recurring: the payments the gateway itself repeats, deleted or adjusted by recurring_id. */
export function createRecurringResource({ post, withMid }: PaymentApi) {
  return {
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
