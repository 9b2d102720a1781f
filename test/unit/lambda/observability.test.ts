import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { logger } from "../../../functions/lambda/observability";
import { registerSecretValues } from "../../../functions/lambda/redaction";

const PAN = "4111111111111111";
const API_KEY = "sandbox_api_key_test_merchant";
const JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwYXJ0bmVyIn0.c2lnbmF0dXJlX29mX3Rlc3Q";

let written: string[];

beforeEach(() => {
  written = [];
  // The logger writes through a Console bound to process.stdout/stderr (console.* when POWERTOOLS_DEV is set).
  const capture = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, "write").mockImplementation(capture);
  vi.spyOn(process.stderr, "write").mockImplementation(capture);
  for (const method of ["info", "error"] as const) vi.spyOn(console, method).mockImplementation(capture);
});

afterEach(() => {
  logger.resetKeys();
});

const onlyLine = () => {
  const lines = written.join("").trim().split("\n").filter(Boolean);
  expect(lines).toHaveLength(1);
  return lines[0] ?? "";
};

describe("the shared logger", () => {
  it("prints JSON with the service name and never a card number, API key or JWT", () => {
    registerSecretValues([API_KEY]); // as reading the gateway secret does
    logger.appendKeys({ merchant: { apiKey: API_KEY } });
    logger.info(`charging card ${PAN} with key ${API_KEY}`, {
      request: { payment: { card_number: PAN }, headers: { Authorization: `Basic ${API_KEY}` } },
      card: { number: PAN, expiry: "203012", cvc: "123" },
      attempt: { order_id: "sub_1-1-0", token_id: "SBXTK0000000000000000018", note: `retry ${PAN}` },
      failure: new Error(`gateway said ${API_KEY} is wrong for ${PAN}`),
      partner: { token: JWT, apiKey: API_KEY, note: `got ${JWT}` },
    });
    const line = onlyLine();
    for (const secret of [PAN, API_KEY, JWT, "203012"]) expect(line).not.toContain(secret);
    const entry = JSON.parse(line);
    expect(entry).toMatchObject({
      level: "INFO",
      service: "billing",
      message: "charging card [PAN ****1111] with key [REDACTED]",
      attempt: { order_id: "sub_1-1-0", token_id: "SBXTK0000000000000000018", note: "retry [PAN ****1111]" },
      card: { number: "[REDACTED]", cvc: "[REDACTED]" },
      merchant: { apiKey: "[REDACTED]" },
      failure: { name: "Error", message: "gateway said [REDACTED] is wrong for [PAN ****1111]" },
      partner: { token: "[REDACTED]", note: "got [JWT]" },
    });
  });

  it("redacts errors passed as the extra argument, stack included", () => {
    logger.error("charge failed", new Error(`card ${PAN} refused`));
    const line = onlyLine();
    expect(line).not.toContain(PAN);
    const entry = JSON.parse(line);
    expect(entry).toMatchObject({ level: "ERROR", error: { message: "card [PAN ****1111] refused" } });
    expect(entry.error.stack).toContain("[PAN ****1111]");
  });
});
