import { describe, expect, it } from "vitest";
import { checkRecurringStartDate } from "../../../../functions/gateway/schemas/payment-api";

describe("checkRecurringStartDate", () => {
  // 14:30 UTC on 31 January is 23:30 in Korea, where the gateway's "today" is.
  const today = new Date("2030-01-31T14:30:00Z");

  it("accepts a start date after today in Korea, and requests without recurring", () => {
    expect(() =>
      checkRecurringStartDate({ recurring: { recurring_start_date: "20300201" } }, today),
    ).not.toThrow();
    expect(() => checkRecurringStartDate({}, today)).not.toThrow();
  });

  it("rejects tomorrow in UTC when it is already today in Korea", () => {
    // 15:30 UTC on 31 January is 00:30 on 1 February in Korea.
    expect(() =>
      checkRecurringStartDate(
        { recurring: { recurring_start_date: "20300201" } },
        new Date("2030-01-31T15:30:00Z"),
      ),
    ).toThrow(expect.objectContaining({ field: "recurring.recurring_start_date" }));
  });

  it.each(["20300131", "20291231"])("rejects %s", (date) => {
    expect(() => checkRecurringStartDate({ recurring: { recurring_start_date: date } }, today)).toThrow(
      expect.objectContaining({ field: "recurring.recurring_start_date" }),
    );
  });
});
