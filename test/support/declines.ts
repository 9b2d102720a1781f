import type { DeclineView } from "../../functions/api/merchant-api-views";

/** How the merchant API shows the sandbox's insufficient-funds card's decline (4000000000009995). */
export const INSUFFICIENT_FUNDS_DECLINE: DeclineView = {
  rescode: "DC51",
  errcode: "INSUFFICIENT_FUNDS",
  reason: "insufficient_funds",
  message: "The card has insufficient funds.",
  next_step: "retry_later",
};
