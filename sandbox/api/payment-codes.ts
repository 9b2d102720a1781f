import type { z } from "zod";
import { DuplicateCall, type Refusal } from "../acquirer/result-codes";
import { fieldOfIssue, type Reply, ReplyError, rescodeReply } from "../http/replies";

// The payment API's answers beyond success. EC00 / EC1002 / HE00–HE03 / EEEE are the vendor's codes (README, The real
// gateway: production settings); the rest are invented and marked. Validation errors answer HTTP 400, business
// refusals HTTP 200.

/** Invented: the transaction's status does not allow the operation (capture a SALE, cancel a REGISTERED…). */
export const STATE_REFUSAL_CODE = "ST01";

const INVALID_PARAMETER: Refusal = { rescode: "EC00", resmsg: "Invalid parameter" };

/** The vendor's card and amount codes, by the last segment of the field name. */
const FIELD_CODES: Readonly<Record<string, Refusal>> = {
  card_number: { rescode: "HE00", resmsg: "Invalid card number" },
  expiry_date: { rescode: "HE01", resmsg: "Invalid expiry date" },
  cvc: { rescode: "HE02", resmsg: "Invalid CVC" },
  amount: { rescode: "HE03", resmsg: "Invalid amount" },
  refund_amount: { rescode: "HE03", resmsg: "Invalid amount" },
  recurring_amount: { rescode: "HE03", resmsg: "Invalid amount" },
  adjust_amount: { rescode: "HE03", resmsg: "Invalid amount" },
};

/** HE00–HE03 for card and amount fields, EC00 "Invalid parameter: <field>" otherwise; never the value. */
export function invalidField(field: string, detail?: string): Reply {
  const name = field.split(".").at(-1) ?? field;
  // Own keys only: a field named "__proto__" or "constructor" must not find Object.prototype's members.
  const { rescode, resmsg } = (Object.hasOwn(FIELD_CODES, name) && FIELD_CODES[name]) || INVALID_PARAMETER;
  return rescodeReply(400, rescode, `${resmsg}: ${field}${detail === undefined ? "" : ` (${detail})`}`);
}

/** Answers invalidField from any depth of a handler. */
export function refuseField(field: string, detail?: string): never {
  throw new ReplyError(invalidField(field, detail));
}

/** Validates a body with the client's own schema; the first issue answers invalidField (`at` prefixes the field). */
export function parseBody<T extends z.ZodType>(schema: T, input: unknown, at = ""): z.output<T> {
  const result = schema.safeParse(input, { reportInput: false });
  if (result.success) return result.data;
  // Issue messages of these schemas describe the rule, never the value.
  const [issue] = result.error.issues;
  return refuseField(`${at}${issue ? fieldOfIssue(issue) : "(body)"}`, issue?.message);
}

/** A body mid (or merchant.mid) other than the authenticated merchant's: EC00 naming the field. */
export function checkMid(field: string, mid: string, authenticated: string): void {
  if (mid !== authenticated) refuseField(field, "not the authenticated merchant");
}

/** EC1002: transaction_id path parameter not 24 characters, or no such transaction of this merchant. */
export function unknownTransaction(): never {
  throw new ReplyError(rescodeReply(400, "EC1002", "Invalid transaction_id"));
}

/** EEEE: the order_id was used before (success or failure) or the same operation was already done. */
export function duplicateCall(what: string): never {
  throw new DuplicateCall(what);
}

/** ST01 (invented): a business refusal, HTTP 200. */
export function stateRefusal(resmsg: string): never {
  throw new ReplyError(rescodeReply(200, STATE_REFUSAL_CODE, resmsg));
}
