import { beforeEach, describe, expect, it } from "vitest";
import type { TokenRecord } from "../../../../functions/core/base/model";
import { retireToken } from "../../../../functions/core/refunds/token-retirement";
import { ScriptedGateway, START } from "../../../support/fake-billing";
import { MemoryBillingRepository } from "../../../support/memory-billing-repository";

const token = (status: TokenRecord["status"] = "active"): TokenRecord => ({
  token_id: "tok_1",
  subscription_id: "sub_1",
  card: { first4: "4111", last4: "1111" },
  status,
  created_at: "2027-01-01T00:00:00.000Z",
  updated_at: "2027-01-01T00:00:00.000Z",
});

let repository: MemoryBillingRepository;
let gateway: ScriptedGateway;
const deps = () => ({ repository, gateway, clock: { now: () => new Date(START) } });

beforeEach(() => {
  repository = new MemoryBillingRepository();
  gateway = new ScriptedGateway();
});

describe("retireToken", () => {
  it("deletes an active token at the gateway, then marks it deleted in the vault", async () => {
    await repository.putToken(token());
    expect(await retireToken({ token_id: "tok_1" }, deps())).toMatchObject({ kind: "retired" });
    expect(gateway.deletedTokens).toEqual(["tok_1"]);
    expect(await repository.getToken("tok_1")).toMatchObject({
      status: "deleted",
      updated_at: START.toISOString(),
    });
  });

  it("asks nothing when there is no token, or it is already deleted, expired or revoked", async () => {
    expect(await retireToken({ token_id: undefined }, deps())).toMatchObject({ kind: "retired" });
    expect(await retireToken({ token_id: "tok_unknown" }, deps())).toMatchObject({ kind: "retired" });
    for (const status of ["deleted", "expired", "revoked"] as const) {
      await repository.putToken(token(status));
      expect(await retireToken({ token_id: "tok_1" }, deps())).toMatchObject({ kind: "retired" });
    }
    expect(gateway.deletedTokens).toEqual([]);
  });

  it("asks again later when the gateway did not confirm, and leaves the token active meanwhile", async () => {
    await repository.putToken(token());
    for (const deletion of [
      { kind: "unavailable" as const, reason: "HTTP 503" },
      { kind: "unknown" as const, reason: "timed out after sending" },
    ]) {
      gateway.deletion = deletion;
      expect(await retireToken({ token_id: "tok_1" }, deps())).toMatchObject({ kind: "retry" });
    }
    expect(await repository.getToken("tok_1")).toMatchObject({ status: "active" });
  });

  it("reports a refused deletion for a human, without retrying it", async () => {
    await repository.putToken(token());
    gateway.deletion = { kind: "declined", code: "TK09", message: "Cannot delete" };
    expect(await retireToken({ token_id: "tok_1" }, deps())).toEqual({
      kind: "refused",
      note: "token deletion refused (TK09: Cannot delete)",
    });
    expect(await repository.getToken("tok_1")).toMatchObject({ status: "active" });
  });
});
