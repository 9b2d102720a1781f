import { describe, expect, it } from "vitest";
import { API_KEY, PAYMENT, paymentApiServer, TRANSACTION_ID } from "../../../support/payment-api-server";

// The call every payment resource makes (resources/payment-api.ts): JSON with Basic auth, the reply classified, reads
// retried and mutations sent once.

const gateway = paymentApiServer();

describe("transport contract", () => {
  it("posts JSON with Basic auth built from the API key and an empty password", async () => {
    await gateway.client.capture(TRANSACTION_ID, { payment: PAYMENT });
    const request = gateway.onlyRequest();
    expect(request.method).toBe("POST");
    expect(request.url).toBe(`/v1/payments/${TRANSACTION_ID}/capture`);
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`${API_KEY}:`).toString("base64")}`);
    expect(request.headers["content-type"]).toMatch(/^application\/json/);
  });

  it.each([
    [
      { rescode: "1001", resmsg: "Declined" },
      { kind: "declined", code: "1001" },
    ],
    [
      { rescode: "EC00", resmsg: "Invalid parameter" },
      { kind: "invalid", code: "EC00" },
    ],
    [{ rescode: "EX00", resmsg: "Internal" }, { kind: "unknown" }],
  ])("classifies a mutation answered %j", async (reply, outcome) => {
    gateway.answer(reply);
    expect(await gateway.client.capture(TRANSACTION_ID, { payment: PAYMENT })).toMatchObject(outcome);
    expect(gateway.server.requests).toHaveLength(1);
  });

  it("retries a read while the gateway is unavailable, never a mutation", async () => {
    gateway.answer({ rescode: "EX00", resmsg: "Internal" });
    const retrieved = await gateway.client.retrieve({ key_field: "order_id", payment: PAYMENT });
    expect(retrieved.kind).toBe("unavailable");
    expect(gateway.server.requests).toHaveLength(3);
    gateway.server.reset();
    expect((await gateway.client.capture(TRANSACTION_ID, { payment: PAYMENT })).kind).toBe("unknown");
    expect(gateway.server.requests).toHaveLength(1);
  });
});
