import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { standardWebhookHeaders } from "../../../functions/shared/standard-webhooks";

// Our signing by the Standard Webhooks spec, held to the spec's own library (`standardwebhooks`): it signs the same
// and verifies ours. The library checks the timestamp against the wall clock, so these sign at the present.

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const ID = "6dc263bb-2c8e-4954-9eec-d72397a1ee85";
const BODY =
  '{"type":"charge.succeeded","event_id":"6dc263bb-2c8e-4954-9eec-d72397a1ee85","amount":"₩1,000"}';

describe("the Standard Webhooks headers", () => {
  it("sign the README's example as the README shows it, as the library signs it", () => {
    const at = new Date(1_809_331_205_000);
    const headers = standardWebhookHeaders(ID, "{}", SECRET, at);
    expect(headers).toEqual({
      "webhook-id": ID,
      "webhook-timestamp": "1809331205",
      "webhook-signature": "v1,8Z5MTnv4Ev9F464b9wXvm7Fh3GrHOWusZFwh+8PcSSM=",
    });
    expect(headers["webhook-signature"]).toBe(new Webhook(SECRET).sign(ID, at, "{}"));
  });

  it("are verified by the library, and refused by it when the body, id, time or key differ", () => {
    const headers = standardWebhookHeaders(ID, BODY, SECRET, new Date());
    expect(new Webhook(SECRET).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    const refused = [
      () => new Webhook(SECRET).verify(BODY.replace("1,000", "1,001"), headers),
      () => new Webhook(SECRET).verify(BODY, { ...headers, "webhook-id": "e2" }),
      () =>
        new Webhook(SECRET).verify(BODY, { ...headers, "webhook-timestamp": String(Date.now() / 1000 - 1) }),
      () => new Webhook(`whsec_${Buffer.from("another key").toString("base64")}`).verify(BODY, headers),
    ];
    for (const verify of refused) expect(verify).toThrow(/No matching signature/);
    const stale = standardWebhookHeaders(ID, BODY, SECRET, new Date(Date.now() - 301_000));
    expect(() => new Webhook(SECRET).verify(BODY, stale)).toThrow(/too old/);
  });
});
