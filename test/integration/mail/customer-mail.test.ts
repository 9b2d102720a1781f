import { describe, expect, it } from "vitest";
import { z } from "zod";
import { functionNamed } from "../../../functions/function-table";
import type { KeptMail } from "../../../local/aws/ses-stand-in";
import { scheduledEvent } from "../../../local/lambda/lambda-context";
import { requestPage } from "../../support/pages";
import { stackWithWebhooks } from "../../support/webhook-stack";

// The customer mails (README, Customer e-mails) as deployed: the bus's rule hands each billing event to
// notify-customer, the daily schedule runs send-reminders, both send through SES's real SDK to local mode's stand-in.
// One mail per event however often the bus delivers it, one per reminder and date however often the run repeats.

const START = new Date("2027-02-01T09:00:00.000Z");
const DECLINES_ON_RENEWAL = "4000000000000341";

const { stack, container, call } = stackWithWebhooks({ start: START });

async function signUp(options: {
  readonly email: string;
  readonly cardNumber?: string;
  readonly expiry?: string;
  readonly lang?: "en" | "ko";
  readonly trialDays?: number;
}) {
  const answer = await call("POST", "/v1/subscriptions", {
    body: {
      customer: { name: "Mail Customer", email: options.email, ...(options.lang && { lang: options.lang }) },
      plan: {
        amount: "19.90",
        currency: "USD",
        interval_months: 1,
        ...(options.trialDays && { trial_days: options.trialDays }),
      },
      card: {
        number: options.cardNumber ?? "4111111111111111",
        expiry: options.expiry ?? "203012",
        cvc: "123",
      },
    },
  });
  expect(answer.status, answer.text).toBe(201);
  await stack().deliverEvents();
  return z.object({ subscription_id: z.string() }).parse(answer.json).subscription_id;
}

const mailsTo = (email: string): KeptMail[] => stack().ses.mails.filter((mail) => mail.to.includes(email));
const templatesTo = (email: string) => mailsTo(email).map((mail) => mail.template);

async function runReminders(at: string) {
  await stack().clock.set(new Date(at));
  return stack().functions.invoker(functionNamed("send-reminders"))(scheduledEvent(at));
}

describe("customer mails", () => {
  it("a declined renewal sends one failed-payment mail, whose link opens the customer's portal", async () => {
    const email = "declined@example.com";
    const id = await signUp({ email, cardNumber: DECLINES_ON_RENEWAL });
    expect(templatesTo(email)).toEqual(["receipt"]);
    await stack().clock.advance("P31D");
    await stack().chargeRun();
    await stack().drainChargeQueue();
    await stack().deliverEvents();

    const failed = mailsTo(email).filter((mail) => mail.template === "payment_failed");
    expect(failed).toHaveLength(1);
    const [mail] = failed;
    expect(mail?.subject).toBe("Your payment to Sandbox Shop did not go through");
    expect(mail?.text).toContain("Your card issuer declined the payment.");
    expect(mail?.text).toContain("$19.90");
    expect(mail?.text).toContain("support@sandbox-shop.test");
    expect(mail?.from).toBe("Sandbox Shop <billing@sandbox-shop.test>");
    const event = (await stack().events()).find(
      (candidate) => candidate.type === "charge.failed" && candidate.subscription_id === id,
    );
    expect(mail?.event_id).toBe(event?.event_id);

    const link = /https?:\/\/\S+\/portal\/\S+/.exec(mail?.text ?? "")?.[0] ?? "";
    expect(mail?.html).toContain(`href="${link}"`);
    const portal = await requestPage(container, "GET", link);
    expect(portal.status).toBe(200);
    expect(portal.text).toContain("Your last payment of $19.90 did not go through.");
  });

  it("a redelivered event sends no second mail", async () => {
    const email = "redelivered@example.com";
    const id = await signUp({ email });
    const receipt = (await stack().events()).find(
      (event) => event.type === "charge.succeeded" && event.subscription_id === id,
    );
    if (receipt === undefined) throw new Error("no charge.succeeded");
    // The bus delivers at least once: the same event, published again, reaches notify-customer again.
    await stack().delivery.events.publish([receipt, receipt]);
    await stack().eventBridge.settled();
    expect(templatesTo(email)).toEqual(["receipt"]);
    expect(stack().eventBridge.deadLetters).toEqual([]);
  });

  it("writes in the customer's language", async () => {
    const email = "korean@example.com";
    await signUp({ email, lang: "ko" });
    const [receipt] = mailsTo(email);
    expect(receipt?.subject).toBe("Sandbox Shop 결제 영수증");
    expect(receipt?.text).toContain("US$19.90");
    expect(receipt?.html).toContain('<html lang="ko">');
    // The receipt links the charge's invoice, whose page opens in Korean.
    const invoiceLink = /(https?:\/\/\S+\/documents\/\S+)/.exec(receipt?.text ?? "")?.[1] ?? "";
    expect(receipt?.text).toMatch(/인보이스 INV-\d{4}-\d{6} \(페이지와 PDF\): http/);
    expect(receipt?.html).toContain(`href="${invoiceLink}"`);
    const invoice = await requestPage(container, "GET", invoiceLink);
    expect(invoice.status).toBe(200);
    expect(invoice.text).toMatch(/<h1>인보이스 INV-\d{4}-\d{6}<\/h1>/);
    // No seller in the charge policy: the merchant's name is the seller's.
    expect(invoice.text).toContain("<strong>Sandbox Shop</strong>");
  });

  it("an expiring card is mailed once at 30 days and once at 7 days before its month ends", async () => {
    const email = "expiring@example.com";
    await signUp({ email, expiry: "202704" });
    const expiring = () => mailsTo(email).filter((mail) => mail.template === "card_expiring");
    await runReminders("2027-03-31T09:00:00.000Z");
    expect(expiring()).toHaveLength(0);
    expect(await runReminders("2027-04-02T09:00:00.000Z")).toMatchObject({ sent: 1 });
    await runReminders("2027-04-03T09:00:00.000Z");
    expect(expiring()).toHaveLength(1);
    expect(expiring()[0]?.text).toContain("stops working after April 30, 2027");
    await runReminders("2027-04-24T09:00:00.000Z");
    await runReminders("2027-04-25T09:00:00.000Z");
    expect(expiring()).toHaveLength(2);
    expect(expiring().map((mail) => mail.mail_id)).toEqual([
      expect.stringMatching(/-30$/),
      expect.stringMatching(/-7$/),
    ]);
  });

  it("a trial's end is announced 3 days before, a renewal 7 days before, and a started subscription's end", async () => {
    const email = "trial@example.com";
    const id = await signUp({ email, trialDays: 14 });
    const subscription = await stack().services.repository.getSubscription(id);
    const trialEnd = new Date(subscription?.trial_end ?? "");
    const dayBefore = (days: number) => new Date(trialEnd.getTime() - days * 86_400_000).toISOString();
    await runReminders(dayBefore(4));
    expect(templatesTo(email)).not.toContain("trial_ending");
    await runReminders(dayBefore(3));
    await runReminders(dayBefore(3));
    const trialMails = mailsTo(email).filter((mail) => mail.template === "trial_ending");
    expect(trialMails).toHaveLength(1);
    expect(trialMails[0]?.text).toContain("Your free trial ends on");

    const renewing = "renewing@example.com";
    const renewingId = await signUp({ email: renewing });
    const next = (await stack().services.repository.getSubscription(renewingId))?.next_charge_at ?? "";
    await runReminders(new Date(Date.parse(next) - 7 * 86_400_000).toISOString());
    expect(templatesTo(renewing)).toEqual(["receipt", "renewal_upcoming"]);

    const canceled = await call("DELETE", `/v1/subscriptions/${renewingId}`);
    expect(canceled.status, canceled.text).toBe(200);
    await stack().deliverEvents();
    expect(templatesTo(renewing)).toEqual(["receipt", "renewal_upcoming", "subscription_canceled"]);
  });
});
