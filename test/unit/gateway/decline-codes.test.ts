import { describe, expect, it } from "vitest";
import { DEFAULT_DECLINE_CODES, deadEndOf, declineReasonOf } from "../../../functions/gateway/decline-codes";

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

describe("declineReasonOf", () => {
  it.each([
    [{ code: "DC51", errcode: "INSUFFICIENT_FUNDS" }, "insufficient_funds"],
    [{ code: "1001", errcode: "CARD_VELOCITY_EXCEEDED" }, "limit_exceeded"],
    [{ code: "1001", errcode: "TEMPORARY_ERROR" }, "try_again_later"],
    [{ code: "DC54", errcode: "EXPIRED_CARD" }, "expired_card"],
    [{ code: "TK01" }, "expired_card"],
    [{ code: "S023" }, "expired_card"],
    [{ code: "1001", errcode: "INVALID_AUTHENTICATION" }, "authentication_failed"],
    [{ code: "DC43", errcode: "STOLEN_OR_LOST_CARD" }, "card_unusable"],
    [{ code: "TK02" }, "card_unusable"],
    [{ code: "XXXX" }, "card_unusable"],
    [{ code: "DC05", errcode: "GENERIC_DECLINE" }, "card_declined"],
    [{ code: "DC05" }, "card_declined"],
  ])("reads %o as %s under the defaults", (refusal, reason) => {
    expect(declineReasonOf(DEFAULT_DECLINE_CODES, refusal)).toBe(reason);
  });
});
