import { z } from "zod";
import { InvalidField } from "../http/replies";
import type { Merchant, MerchantRegistry } from "../state/merchant-config";

/** The optional `mid` of a sandbox-only control body. */
export const controlMid = z.string().min(1, "is required").optional();

/**
 * The merchant a sandbox-only control acts on: the given mid, or the only merchant when the sandbox has one.
 * Throws an InvalidField on `mid` (EC00) when it names no merchant or is needed and absent.
 */
export function controlMerchant(merchants: MerchantRegistry, mid: string | undefined): Merchant {
  const [only, ...others] = merchants.list();
  const merchant = mid === undefined ? (others.length === 0 ? only : undefined) : merchants.byMid(mid);
  if (!merchant) {
    throw new InvalidField("mid", mid === undefined ? "is required with several merchants" : "is unknown");
  }
  return merchant;
}
