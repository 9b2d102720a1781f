import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { portalSessionView } from "../../../functions/api/merchant-api-schemas";
import { hiddenField, type PageRequest, requestPage, scriptJson } from "../../support/pages";
import { drainIntake } from "../../support/webhook-receiver";
import { stackWithWebhooks } from "../../support/webhook-stack";

// The customer portal (README, Customer portal) through create-portal-session and serve-portal-page as deployed, on
// dynalite and the sandbox: a signed link scoped to one subscription or to a customer's; what it shows; each action
// through the same core operation as the merchant API, only when offered and only from our page; a past_due customer
// pays the overdue period with a new card in the window. (In a browser: test/e2e/pages/portal-in-browser.test.ts.)

const START = new Date("2027-02-01T09:00:00.000Z");
const DECLINES_ON_RENEWAL = "4000000000000341";

const { stack, container, call, payInWindow } = stackWithWebhooks({ start: START });

beforeEach(async () => {
  await stack().clearEvents();
});

const subscriptionView = z.looseObject({
  subscription_id: z.string(),
  status: z.string(),
  period: z.number().optional(),
  cancel_at: z.string().nullable(),
});

async function signUp(externalId: string, cardNumber = "4111111111111111") {
  const answer = await call("POST", "/v1/subscriptions", {
    body: {
      customer: { name: "Portal Customer", email: "portal@example.com", external_id: externalId },
      plan: { amount: "19.90", currency: "USD", interval_months: 1 },
      card: { number: cardNumber, expiry: "203012", cvc: "123" },
    },
  });
  expect(answer.status, answer.text).toBe(201);
  return subscriptionView.parse(answer.json).subscription_id;
}

async function portalOf(body: Record<string, unknown>) {
  const answer = await call("POST", "/v1/portal-sessions", { body });
  expect(answer.status, answer.text).toBe(201);
  return portalSessionView.parse(answer.json);
}

const subscriptionOf = async (id: string) =>
  subscriptionView.parse((await call("GET", `/v1/subscriptions/${id}`)).json);
const open = (url: string) => requestPage(container, "GET", url);
/** An action posted from the portal's own page (its form token, same origin). */
const act = (page: string, url: string, request: PageRequest = {}) =>
  requestPage(container, "POST", url, {
    headers: { "sec-fetch-site": "same-origin" },
    form: { form_token: hiddenField(page, "form_token") },
    ...request,
  });
/** The action URL of a form on the page, by its button's label. */
function actionOf(page: string, label: string): string {
  const found = new RegExp(
    `<form method="post" action="([^"]+)">(?:(?!</form>)[^])*<button type="submit"[^>]*>${label}</button>`,
  ).exec(page);
  if (found?.[1] === undefined) throw new Error(`the page offers no “${label}”`);
  return found[1];
}

/** A month on: the renewal of a card that declines on renewal makes the subscription past_due. */
async function renewalDeclined(id: string) {
  await stack().clock.advance("P31D");
  await stack().chargeRun();
  await stack().drainChargeQueue();
  expect(await subscriptionOf(id)).toMatchObject({ status: "past_due" });
}

describe("POST /v1/portal-sessions", () => {
  it("answers a 15-minute link for a subscription or a customer, 404 for neither, 400 naming the field", async () => {
    const id = await signUp("acct_sessions");
    const session = await portalOf({ subscription_id: id, return_url: "https://app.example/billing" });
    expect(Date.parse(session.expires_at) - stack().clock.now().getTime()).toBe(15 * 60_000);
    expect(session.url).toMatch(/\/portal\/[\w-]+\.[\w-]+$/);
    const longer = await portalOf({ external_id: "acct_sessions", expires_in_minutes: 60 });
    expect(Date.parse(longer.expires_at) - stack().clock.now().getTime()).toBe(60 * 60_000);
    expect(
      (await call("POST", "/v1/portal-sessions", { body: { subscription_id: "sub_nobody" } })).status,
    ).toBe(404);
    expect((await call("POST", "/v1/portal-sessions", { body: { external_id: "acct_nobody" } })).status).toBe(
      404,
    );
    const both = await call("POST", "/v1/portal-sessions", {
      body: { subscription_id: id, external_id: "x" },
    });
    expect(both.status).toBe(400);
    expect(both.text).toContain("subscription_id");
  });
});

describe("the customer portal", () => {
  it("shows the customer's subscriptions and charges with receipts, and nothing of anyone else's", async () => {
    const first = await signUp("acct_portal_one");
    const second = await signUp("acct_portal_one");
    const stranger = await signUp("acct_portal_other");
    const { url } = await portalOf({
      external_id: "acct_portal_one",
      return_url: "https://app.example/billing",
    });
    const page = await open(url);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Your subscriptions");
    expect(page.text).toContain(`id="${first}"`);
    expect(page.text).toContain(`id="${second}"`);
    expect(page.text).not.toContain(stranger);
    expect(page.text).toContain("$19.90 every month");
    expect(page.text).toContain("Next charge: $19.90 on March 1, 2027");
    expect(page.text).toContain("4111 •••• 1111");
    expect(page.text).toContain('href="https://app.example/billing"');
    expect(page.headers["content-security-policy"]).toContain("frame-ancestors 'none'");

    const receipt = /href="([^"]+\/receipt)"/.exec(page.text)?.[1] ?? "";
    const redirected = await open(receipt);
    expect(redirected.status).toBe(303);
    expect(redirected.headers.location).toMatch(/^http/);
    const foreignReceipt = receipt.replace(/charges\/[^/]+\//, `charges/${stranger}-0-0/`);
    expect((await open(foreignReceipt)).status).toBe(404);
  });

  it("cancels at the period's end and undoes it, only from its own page and only what it offers", async () => {
    const id = await signUp("acct_portal_cancel");
    const stranger = await signUp("acct_portal_cancel_other");
    const { url } = await portalOf({ subscription_id: id });
    const page = (await open(url)).text;
    const cancel = actionOf(page, "Cancel at the end of the period");

    const forged: PageRequest[] = [
      { headers: { "sec-fetch-site": "cross-site" } },
      { headers: { origin: "https://attacker.example" } },
      { form: { form_token: "forged" } },
    ];
    for (const refused of forged) {
      const answer = await act(page, cancel, refused);
      expect(answer.status).toBe(403);
    }
    // Not offered (an active subscription resumes nothing), or not this link's subscription: nothing is said of it.
    expect((await act(page, cancel.replace(/cancel$/, "resume"))).status).toBe(404);
    expect((await act(page, cancel.replace(id, stranger))).status).toBe(404);
    expect((await subscriptionOf(id)).cancel_at).toBeNull();

    const canceled = await act(page, cancel);
    expect(canceled.status).toBe(303);
    expect(canceled.headers.location).toBe(`${url}?done=cancel_scheduled`);
    const after = (await open(canceled.headers.location ?? "")).text;
    expect(after).toContain("Your subscription will end when the paid period is over.");
    expect(after).toContain("Ends on March 1, 2027");
    expect((await subscriptionOf(id)).cancel_at).toBe("2027-03-01T09:00:00.000Z");
    // Pressed twice: the page no longer offers it.
    expect((await act(page, cancel)).status).toBe(404);

    const kept = await act(after, actionOf(after, "Keep my subscription"));
    expect(kept.headers.location).toBe(`${url}?done=kept`);
    expect((await subscriptionOf(id)).cancel_at).toBeNull();
  });

  it("a past_due customer pays the overdue period with a new card in the window and is active again", async () => {
    const id = await signUp("acct_portal_overdue", DECLINES_ON_RENEWAL);
    await renewalDeclined(id);
    const { url } = await portalOf({ subscription_id: id });
    const page = (await open(url)).text;
    expect(page).toContain("Payment overdue");
    expect(page).toContain("Your last payment of $19.90 did not go through.");
    expect(page).toContain("Retry with the card ending 0341");

    const started = await act(page, actionOf(page, "Pay \\$19.90 with a new card"));
    expect(started.status).toBe(303);
    const cardPage = await open(started.headers.location ?? "");
    expect(cardPage.text).toContain("Your new card pays the overdue $19.90 at once.");
    const requestPay = z
      .object({ fgkey: z.string(), url: z.object({ return_url: z.string() }) })
      .parse(scriptJson(cardPage.text, "request-pay"));
    expect(requestPay.url.return_url).toBe(`${url}/return`);
    // Pressed again before paying: the same window, not a second payment.
    const again = await act(page, actionOf(page, "Pay \\$19.90 with a new card"));
    expect(again.headers.location).toBe(started.headers.location);
    expect(scriptJson((await open(again.headers.location ?? "")).text, "request-pay")).toEqual(
      scriptJson(cardPage.text, "request-pay"),
    );

    const back = await requestPage(container, "POST", `${url}/return`, { form: { rescode: "0000" } });
    expect(back.headers.location).toBe(`${url}?returned=1`);
    expect((await open(`${url}?returned=1`)).text).toContain("Checking your new card");
    await payInWindow(requestPay.fgkey);
    await drainIntake(container);
    const updated = (await open(`${url}?returned=1`)).text;
    expect(updated).toContain("Your card was updated.");
    expect(updated).toContain("Status: Active");
    expect(await subscriptionOf(id)).toMatchObject({ status: "active" });
    const charges = z
      .object({ charges: z.array(z.object({ period: z.number(), status: z.string() })) })
      .parse((await call("GET", `/v1/subscriptions/${id}/charges`)).json).charges;
    expect(charges.filter((charge) => charge.period === 1).map((charge) => charge.status)).toEqual([
      "declined",
      "succeeded",
    ]);
  });

  it("retries the overdue period with the card on file at once", async () => {
    const id = await signUp("acct_portal_retry", DECLINES_ON_RENEWAL);
    await renewalDeclined(id);
    const { url } = await portalOf({ subscription_id: id });
    const page = (await open(url)).text;
    const retried = await act(page, actionOf(page, "Retry with the card ending 0341"));
    expect(retried.headers.location).toBe(`${url}?done=retrying`);
    expect((await open(retried.headers.location ?? "")).text).toContain("We are charging your card now");
    await stack().drainChargeQueue();
    const charges = z
      .object({ charges: z.array(z.object({ period: z.number(), attempt: z.number(), status: z.string() })) })
      .parse((await call("GET", `/v1/subscriptions/${id}/charges`)).json).charges;
    // The retry is the schedule's next attempt, charged now (this card keeps declining renewals).
    expect(charges.filter((charge) => charge.period === 1)).toMatchObject([
      { attempt: 0, status: "declined" },
      { attempt: 1, status: "declined" },
    ]);
  });

  it("a tampered link opens nothing, and an expired one says so", async () => {
    const id = await signUp("acct_portal_expiry");
    const { url } = await portalOf({ subscription_id: id });
    const [payload = "", signature = ""] = url.split("/").at(-1)?.split(".") ?? [];
    const widened = Buffer.from(
      JSON.stringify({ s: "portal", sub: "ext:acct_portal_one", exp: 9e9 }),
    ).toString("base64url");
    const tampered = await open(url.replace(`${payload}.${signature}`, `${widened}.${signature}`));
    expect(tampered.status).toBe(403);
    expect(tampered.text).toContain("This link is not valid");
    await stack().clock.advance("PT16M");
    const expired = await open(url);
    expect(expired.status).toBe(403);
    expect(expired.text).toContain("This link has expired");
    expect(expired.text).not.toContain(id);
  });
});
