import type { Discount, Plan } from "../../functions/core/base/model";

// A priced subscription's parts for the tests of what pages and mails say it costs: three seats, and a coupon of
// 20 % off three period charges (LAUNCH20 takes $11.94 off the seats' $59.70).

export const TEAM_PLAN: Plan = { amount: "19.90", currency: "USD", interval_months: 1, quantity: 3 };

export const LAUNCH20: Discount = {
  coupon_id: "co_launch",
  code: "LAUNCH20",
  percent_off_bp: 2000,
  duration: "repeating",
  charges_left: 3,
  applied_at: "2027-01-01T00:00:00.000Z",
};
