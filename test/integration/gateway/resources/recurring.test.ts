import { describe, expect, it } from "vitest";
import { MID, OK, paymentApiServer } from "../../../support/payment-api-server";

const gateway = paymentApiServer();

describe("recurring", () => {
  it("deletes with mid and adjusts with adjust_amount", async () => {
    expect(await gateway.client.deleteRecurring("REC-1")).toEqual({ kind: "success", value: OK });
    expect(gateway.onlyRequest()).toMatchObject({
      url: "/v1/payments/recurring/REC-1/delete",
      json: { mid: MID },
    });
    gateway.server.reset();
    expect(await gateway.client.adjustRecurring("REC-1", { adjust_amount: "12.50" })).toEqual({
      kind: "success",
      value: OK,
    });
    expect(gateway.onlyRequest()).toMatchObject({
      url: "/v1/payments/recurring/REC-1/adjust",
      json: { adjust_amount: "12.50" },
    });
  });

  it("refuses invalid requests without sending", async () => {
    await gateway.expectRefused(() => gateway.client.deleteRecurring("R".repeat(21)), "recurring_id");
    await gateway.expectRefused(
      () => gateway.client.adjustRecurring("", { adjust_amount: "1" }),
      "recurring_id",
    );
    await gateway.expectRefused(
      () => gateway.client.adjustRecurring("REC-1", { adjust_amount: "1.005" }),
      "adjust_amount",
    );
  });
});
