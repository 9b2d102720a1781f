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

  it("leaves ids (UUIDs too), phone numbers, timestamps and numbers that fail Luhn alone", () => {
    for (const text of [
      "4111 1111 1111 1112",
      "acct4111111111111111",
      "SBXTK0000000000000000018",
      "+82 10-1234-5678",
      "20270301101500",
      "order 1234 5678 9012",
      "12345678901234567890123",
      "ac39dbf1-4f98-4d8c-9252-217368970725",
      "key 23481386-4668-4527-a8ea-c2bbe5c72d9e",
      "",
    ])
      expect(holdsCardNumber(text), text).toBe(false);
  });
});
