import passesLuhn from "fast-luhn";

// Card numbers in free text: what the log redactor masks and what the intake refuses to queue.

// A whole run of digits (maximal, so a 20-digit id never yields a 16-digit "PAN") with what touches it on each side.
export const DIGIT_RUN = /(^|[^0-9])([0-9]{13,})(?=([^0-9]|$))/g;
const LETTER = /[A-Za-z]/;
// The gateway's yyyyMMddHHmmss stamps are 14 digits; no 14-digit card number starts with 19 or 20.
const TIMESTAMP_14 = /^(19|20)\d\d(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])([01]\d|2[0-3])[0-5]\d[0-5]\d$/;

/** Whether a digit run, with the characters touching it, is a card number rather than an id or a timestamp. */
export function looksLikePan(run: string, before: string, after: string | undefined): boolean {
  if (run.length > 19 || !passesLuhn(run) || TIMESTAMP_14.test(run)) return false;
  // Identifiers glue digits to a letter prefix (SBXTK0000000000000000018): those are ids, not card numbers.
  return !LETTER.test(before) && !LETTER.test(after ?? "");
}

/** Whether a text holds a card-number-shaped digit run: what redactText would mask as a PAN. */
export function containsCardNumber(text: string): boolean {
  for (const [, before = "", run = "", after] of text.matchAll(DIGIT_RUN)) {
    if (looksLikePan(run, before, after)) return true;
  }
  return false;
}

// Digit groups joined by single spaces or dashes, as people type card numbers: 4111 1111 1111 1111, 4111-1111-….
const GROUPED_DIGITS = /(^|[^0-9])([0-9]+(?:[ -][0-9]+)+)(?=([^0-9]|$))/g;
// A UUID's dashed hex groups often end in digits only (…-9252-217368970725): an id, never a card someone typed.
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * Whether a free-text field holds a card number: a Luhn-valid run of 13–19 digits, written whole or in groups
 * separated by spaces or dashes (what a request must never carry outside its card fields). UUIDs are ids.
 */
export function holdsCardNumber(text: string): boolean {
  if (containsCardNumber(text)) return true;
  for (const [, before = "", grouped = "", after] of text.replace(UUID, " ").matchAll(GROUPED_DIGITS)) {
    const digits = grouped.replace(/[ -]/g, "");
    if (digits.length >= 13 && looksLikePan(digits, before, after)) return true;
  }
  return false;
}
