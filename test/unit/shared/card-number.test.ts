import { describe, expect, it } from "vitest";
import { holdsCardNumber } from "../../../functions/shared/card-number";

describe("holdsCardNumber", () => {
  it("finds a Luhn-valid card number written whole or in groups of digits", () => {
    for (const text of [
      "4111111111111111",
      "Ann 4111 1111 1111 1111",
      "card: 4111-1111-1111-1111.",
      "5555 5555 5555 4444 is mine",
      "3569-9900-1008-3722",
      "378282246310005",
    ])
      expect(holdsCardNumber(text), text).toBe(true);
  });

  it("leaves ids, phone numbers, timestamps and numbers that fail Luhn alone", () => {
    for (const text of [
      "4111 1111 1111 1112",
      "acct4111111111111111",
      "SBXTK0000000000000000018",
      "+82 10-1234-5678",
      "20270301101500",
      "order 1234 5678 9012",
      "12345678901234567890123",
      "",
    ])
      expect(holdsCardNumber(text), text).toBe(false);
  });
});
