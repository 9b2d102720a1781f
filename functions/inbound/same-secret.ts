import { createHash, timingSafeEqual } from "node:crypto";

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

/**
 * Whether a presented secret is the expected one, in time that does not depend on where they differ (both are hashed
 * to equal lengths first). Nothing presented, or nothing expected, never matches.
 */
export function sameSecret(presented: string | null | undefined, expected: string | undefined): boolean {
  if (presented === null || presented === undefined || expected === undefined) return false;
  return timingSafeEqual(digest(presented), digest(expected));
}
