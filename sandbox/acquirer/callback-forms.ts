/**
 * How a window result reaches status_url:
 * - real: as the real gateway sends it (README, The real gateway) — no `status`, `ver=230`, long names, posted as
 *   a form;
 * - short: the same with the older short names the test server still sent in 2023 (`txntype`, `ref`, `amt`, …);
 * - seed: the seed's documented form, with `status`, as a GET query string.
 */
export const CALLBACK_FORMS = ["real", "short", "seed"] as const;
export type CallbackForm = (typeof CALLBACK_FORMS)[number];

/** The real gateway posts the result as an `application/x-www-form-urlencoded` body; the seed calls with a query. */
export const CALLBACK_METHODS = {
  real: "POST",
  short: "POST",
  seed: "GET",
} as const satisfies Record<CallbackForm, "GET" | "POST">;
