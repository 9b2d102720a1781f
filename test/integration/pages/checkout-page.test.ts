import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { LOCAL_MERCHANT_NAME } from "../../../local/stack/billing-stack";
import { hiddenField, type PageRequest, requestPage, scriptJson } from "../../support/pages";
import { drainIntake } from "../../support/webhook-receiver";
import { stackWithWebhooks } from "../../support/webhook-stack";

// The hosted checkout (README, Hosted checkout) through serve-checkout-page as deployed, on dynalite and the sandbox:
// a checkout without return_url answers checkout_url; its page opens the window with the answer's request_pay; the
// outcome shows once status_url's result is processed; a refused payment is offered another try on the same
// subscription. Links are signed: a tampered or expired one opens nothing. (In a browser:
// test/integration/pages/checkout-in-browser.test.ts.)

const START = new Date("2027-05-03T09:00:00.000Z");
const INSUFFICIENT_FUNDS = "4000000000009995";

const { stack, container, call, checkout, payInWindow } = stackWithWebhooks({ start: START });

beforeEach(async () => {
  await stack().clearEvents();
});

const hosted = (body: Record<string, unknown> = {}) =>
  checkout({
    return_url: undefined,
    description: "Pro plan",
    success_url: "https://merchant.example/welcome",
    cancel_url: "https://merchant.example/pricing",
    ...body,
  });

const open = (url: string, headers: Record<string, string> = {}) =>
  requestPage(container, "GET", url, { headers });

const subscriptionView = z.looseObject({ status: z.string(), status_reason: z.string().optional() });
const subscriptionOf = async (id: string) =>
  subscriptionView.parse((await call("GET", `/v1/subscriptions/${id}`)).json);

/** The customer pays in the window, and its result (posted to status_url) is processed. */
async function pay(fgkey: string, cardNumber?: string) {
  await payInWindow(fgkey, cardNumber);
  await drainIntake(container);
}

describe("the hosted checkout page", () => {
  it("shows what is bought and opens the window with the checkout's request_pay, under a strict CSP", async () => {
    const started = await hosted();
    expect(started.request_pay).toMatchObject({ url: { return_url: `${started.checkout_url}/return` } });
    const page = await open(started.checkout_url);
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.text).toContain("Pro plan");
    expect(page.text).toContain("$29.00 every month");
    expect(page.text).toContain(LOCAL_MERCHANT_NAME);
    expect(page.text).toContain(`<script src="${started.sdk_url}"></script>`);
    expect(page.text).toContain('<button type="submit">Pay with card</button>');
    expect(page.text).toContain('href="https://merchant.example/pricing"');
    expect(scriptJson(page.text, "request-pay")).toEqual(started.request_pay);
    const csp = page.headers["content-security-policy"] ?? "";
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(csp).toContain(`script-src 'nonce-${nonce}' ${new URL(started.sdk_url).origin}`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.text).not.toMatch(/<script(?![^>]*(nonce="|type="application\/json"|src="))/);
    expect(page.headers).toMatchObject({
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "referrer-policy": "same-origin",
    });
  });

  it("waits for the verified result after the window returns, then shows the subscription", async () => {
    const started = await hosted();
    const back = await requestPage(container, "POST", `${started.checkout_url}/return`, {
      form: { rescode: "0000", order_id: started.order_id },
    });
    expect(back.status).toBe(303);
    expect(back.headers.location).toBe(`${started.checkout_url}?returned=1`);
    // What the browser brings back is never trusted: the page waits for status_url's verified result.
    const waiting = await open(back.headers.location ?? "");
    expect(waiting.text).toContain("Checking your payment");
    expect(waiting.text).toContain('<meta http-equiv="refresh" content="2">');
    await pay(started.fgkey);
    const paid = await open(`${started.checkout_url}?returned=1`);
    expect(paid.text).toContain("You are subscribed");
    expect(paid.text).toContain("Next charge: $29.00 on June 3, 2027");
    expect(paid.text).toContain("4111 •••• 1111");
    expect(paid.text).toContain('href="https://merchant.example/welcome"');
    expect(await subscriptionOf(started.subscription_id)).toMatchObject({ status: "active" });
  });

  it("shows the seats, the coupon and the first charge less it; once paid, the next charge less its next turn", async () => {
    const coupon = await call("POST", "/v1/coupons", {
      body: { percent_off: 20, duration: "repeating", duration_in_months: 3, code: "PAGES20" },
    });
    expect(coupon.status, coupon.text).toBe(201);
    const started = await hosted({ quantity: 3, coupon: "pages20", lang: "ko" });
    const korean = await open(started.checkout_url);
    expect(korean.text).toContain("<p>매월 US$87.00, 좌석 3개 × US$29.00</p>");
    expect(korean.text).toContain("<dt>쿠폰</dt><dd>PAGES20: −US$17.40 (20% 할인, 3회)</dd>");
    expect(korean.text).toContain("<dt>오늘 결제 금액</dt><dd>US$69.60</dd>");
    await pay(started.fgkey);
    const paid = await open(`${started.checkout_url}?returned=1&lang=en`);
    expect(paid.text).toContain("You are subscribed");
    expect(paid.text).toContain("<p>$87.00 every month, 3 seats × $29.00</p>");
    expect(paid.text).toContain("PAGES20: −$17.40 (20% off, 2 more charges, the last on July 3, 2027)");
    expect(paid.text).toContain("Next charge: $69.60 on June 3, 2027");
  });

  it("a refused payment leaves the checkout pending and a retry pays on the same subscription's next attempt", async () => {
    const started = await hosted();
    await pay(started.fgkey, INSUFFICIENT_FUNDS);
    expect(await subscriptionOf(started.subscription_id)).toMatchObject({
      status: "pending",
      status_reason: "checkout_declined",
    });
    const events = (await stack().events()).filter(
      (event) => event.subscription_id === started.subscription_id,
    );
    expect(events.map((event) => event.type).sort()).toEqual(["charge.failed", "subscription.created"]);

    const refused = await open(started.checkout_url);
    expect(refused.text).toContain("The payment did not go through");
    expect(refused.text).toContain("The card has insufficient funds. Nothing was charged.");
    const form_token = hiddenField(refused.text, "form_token");
    const retried = await requestPage(container, "POST", `${started.checkout_url}/retry`, {
      headers: { "sec-fetch-site": "same-origin" },
      form: { form_token },
    });
    expect(retried.status).toBe(303);
    expect(retried.headers.location).toBe(started.checkout_url);
    // A second press of the button (or a reload) opens nothing more.
    await requestPage(container, "POST", `${started.checkout_url}/retry`, { form: { form_token } });

    const again = await open(started.checkout_url);
    const requestPay = z
      .object({ fgkey: z.string(), payment: z.object({ order_id: z.string() }) })
      .parse(scriptJson(again.text, "request-pay"));
    expect(requestPay.payment.order_id).toBe(`${started.subscription_id}-0-1`);
    await pay(requestPay.fgkey);
    expect(await subscriptionOf(started.subscription_id)).toMatchObject({ status: "active" });
    const charges = z
      .object({ charges: z.array(z.object({ order_id: z.string(), status: z.string() })) })
      .parse((await call("GET", `/v1/subscriptions/${started.subscription_id}/charges`)).json);
    expect(charges.charges.map(({ order_id, status }) => [order_id, status])).toEqual([
      [`${started.subscription_id}-0-0`, "declined"],
      [`${started.subscription_id}-0-1`, "succeeded"],
    ]);
  });

  it("refuses a retry posted from another site or without the page's form token, changing nothing", async () => {
    const started = await hosted();
    await pay(started.fgkey, INSUFFICIENT_FUNDS);
    const form_token = hiddenField((await open(started.checkout_url)).text, "form_token");
    const attempts: PageRequest[] = [
      { headers: { "sec-fetch-site": "cross-site" }, form: { form_token } },
      { headers: { origin: "https://attacker.example" }, form: { form_token } },
      { form: { form_token: "forged" } },
      { form: {} },
    ];
    for (const request of attempts) {
      const refused = await requestPage(container, "POST", `${started.checkout_url}/retry`, request);
      expect(refused.status).toBe(403);
      expect(refused.text).toContain("This action was refused");
    }
    expect((await open(started.checkout_url)).text).toContain("The payment did not go through");
  });

  it("a checkout returning to the merchant's page ends canceled when refused: its page says it is closed", async () => {
    const started = await checkout();
    await pay(started.fgkey, INSUFFICIENT_FUNDS);
    expect(await subscriptionOf(started.subscription_id)).toMatchObject({ status: "canceled" });
    const closed = await open(started.checkout_url);
    expect(closed.text).toContain("This checkout is closed");
    expect(closed.text).not.toContain("form_token");
  });

  it("speaks Korean when asked, by the checkout's lang or the browser's", async () => {
    const started = await hosted({ lang: "KR" });
    const korean = await open(started.checkout_url);
    expect(korean.text).toContain('<html lang="ko">');
    expect(korean.text).toContain("카드로 결제");
    expect(korean.text).toContain("매월 US$29.00");
    const asked = await open(`${started.checkout_url}?lang=en`);
    expect(asked.text).toContain("Pay with card");
    const english = await hosted();
    expect(
      (await open(english.checkout_url, { "accept-language": "ko-KR,ko;q=0.9,en;q=0.8" })).text,
    ).toContain("카드로 결제");
  });

  it("a checkout past its end says so, in its language, and offers nothing to pay; a retry meets the same page", async () => {
    const started = await hosted({ expires_in_minutes: 10 });
    await pay(started.fgkey, INSUFFICIENT_FUNDS);
    const refused = await open(started.checkout_url);
    expect(refused.text).toContain("The payment did not go through");
    const form_token = hiddenField(refused.text, "form_token");

    await stack().clock.advance("PT11M");
    // Before the sweep has closed it, and after: the same page.
    for (const sweep of [false, true]) {
      if (sweep) await stack().attemptSweep();
      const expired = await open(started.checkout_url);
      expect(expired.status).toBe(410);
      expect(expired.text).toContain("This checkout has expired");
      expect(expired.text).toContain("a payment completed after that is refunded in full");
      expect(expired.text).toContain('href="https://merchant.example/pricing"');
      expect(expired.text).not.toContain("request-pay");
      expect(expired.text).not.toContain("form_token");
      const korean = await open(`${started.checkout_url}?lang=ko`);
      expect(korean.text).toContain("결제 기한이 지났습니다");
      const retried = await requestPage(container, "POST", `${started.checkout_url}/retry`, {
        headers: { "sec-fetch-site": "same-origin" },
        form: { form_token },
      });
      expect(retried.status).toBe(410);
      expect(retried.text).toContain("This checkout has expired");
      const back = await requestPage(container, "GET", `${started.checkout_url}/return`);
      expect(back.status).toBe(410);
    }
    expect(await subscriptionOf(started.subscription_id)).toMatchObject({
      status: "canceled",
      status_reason: "checkout_expired",
    });
    // Nothing was opened for another try.
    const charges = z
      .object({ charges: z.array(z.object({ order_id: z.string() })) })
      .parse((await call("GET", `/v1/subscriptions/${started.subscription_id}/charges`)).json);
    expect(charges.charges.map(({ order_id }) => order_id)).toEqual([started.order_id]);
  });

  it("a tampered, foreign or expired link opens nothing: a clear 4xx page, never a stack trace", async () => {
    const started = await hosted();
    const paid = await hosted();
    await pay(paid.fgkey);
    const [payload = "", signature = ""] =
      new URL(started.checkout_url).pathname.split("/")[2]?.split(".") ?? [];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: "sub_someoneelse00000" })).toString(
      "base64url",
    );
    const base = started.checkout_url.slice(0, started.checkout_url.indexOf("/pay/"));
    for (const url of [
      `${base}/pay/${forged}.${signature}`,
      `${base}/pay/${payload}.${signature.slice(0, -2)}`,
      `${base}/pay/not-a-link`,
      `${base}/pay/${payload}`,
    ]) {
      const refused = await open(url);
      expect(refused.status, url).toBe(403);
      expect(refused.text).toContain("This link is not valid");
      expect(refused.text).not.toMatch(/Error|at .*\.ts/);
    }
    await stack().clock.advance("PT25H");
    // The link expired with the checkout, unpaid: the page says the checkout expired.
    const expired = await open(started.checkout_url);
    expect(expired.status).toBe(410);
    expect(expired.text).toContain("This checkout has expired");
    // A paid checkout's link only says that it expired.
    const paidLink = await open(paid.checkout_url);
    expect(paidLink.status).toBe(403);
    expect(paidLink.text).toContain("This link has expired");
    expect(paidLink.text).not.toMatch(/subscribed|4111/);
  });
});
