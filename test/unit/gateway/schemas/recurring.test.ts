import { describe, expect, it } from "vitest";
import { recurringAdjustRequest } from "../../../../functions/gateway/schemas/recurring";
import { rejectedField } from "../../../support/request-errors";

describe("recurring adjust", () => {
  it.each([
    ["12345678.90", undefined],
    ["1.234", "adjust_amount"],
    ["1,000", "adjust_amount"],
    ["0", "adjust_amount"],
  ])("%s → %s", (adjust_amount, field) => {
    expect(rejectedField(recurringAdjustRequest, { adjust_amount })).toBe(field);
  });
});
