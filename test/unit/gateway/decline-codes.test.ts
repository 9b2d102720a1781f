import { describe, expect, it } from "vitest";
import { DEFAULT_DECLINE_CODES, deadEndOf } from "../../../functions/gateway/decline-codes";

describe("deadEndOf", () => {
  it.each([
    [{ code: "TK01" }, "token_expired"],
    [{ code: "TK02" }, "token_revoked"],
    [{ code: "1001", errcode: "STOLEN_OR_LOST_CARD" }, "dead_card"],
    [{ code: "1001", errcode: "INVAILD_CARD_DATA" }, "dead_card"],
    [{ code: "XXXX" }, "dead_card"],
    [{ code: "1001", errcode: "GENERIC_DECLINE" }, undefined],
    [{ code: "DC05" }, undefined],
  ])("reads %o as %s under the defaults", (refusal, deadEnd) => {
    expect(deadEndOf(DEFAULT_DECLINE_CODES, refusal)).toBe(deadEnd);
  });

  it("reads only the lists it is given", () => {
    const codes = { ...DEFAULT_DECLINE_CODES, tokenExpiredCodes: [], deadCardRescodes: ["DC05"] };
    expect(deadEndOf(codes, { code: "TK01" })).toBeUndefined();
    expect(deadEndOf(codes, { code: "DC05" })).toBe("dead_card");
  });
});
