import { beforeEach, describe, expect, it } from "vitest";
import { AD_HOC_FIRST_PERIOD } from "../../../../functions/core/base/charge-kind";
import type { OutboxEvent } from "../../../../functions/core/base/events";
import type { ChargeAttempt } from "../../../../functions/core/base/model";
import {
  DEFAULT_MAIL_TEMPLATES,
  MailRefused,
  mailForEvent,
} from "../../../../functions/core/delivery/customer-mail";
import type { CustomerMail, Mailer } from "../../../../functions/core/ports/mailer";
import { renderMail } from "../../../../functions/mail/render-mail";
import { dueSubscription, START } from "../../../support/fake-billing";
import { MemoryBillingRepository } from "../../../support/memory-billing-repository";
import { LAUNCH20, TEAM_PLAN } from "../../../support/pricing";

// Which event calls for which mail, and that a mail is claimed before it is sent: a repeated event finds the claim,
// a refused send gives it back. The mail service is a recording fake; the repository the in-memory one.

class RecordingMailer implements Mailer {
  readonly sent: CustomerMail[] = [];
  refuse = false;
  async send(mail: CustomerMail) {
    if (this.refuse) return { kind: "refused" as const, reason: "MessageRejected" };
    this.sent.push(mail);
    return { kind: "sent" as const };
  }
}

let repository: MemoryBillingRepository;
let mailer: RecordingMailer;
const deps = (templates = DEFAULT_MAIL_TEMPLATES) => ({
  repository,
  mailer,
  mailPolicy: { templates: new Set(templates), renewalNoticeDays: 7 },
  clock: { now: () => START },
});

const subscription = dueSubscription("sub_mail", {
  status: "past_due",
  card: { first4: "4111", last4: "1111" },
});

function attempt(period: number, overrides: Partial<ChargeAttempt> = {}): ChargeAttempt {
  return {
    subscription_id: subscription.subscription_id,
    period,
    attempt: 0,
    order_id: `${subscription.subscription_id}-${period}-0`,
    amount: "19.90",
    currency: "USD",
    status: "declined",
    decline_reason: "insufficient_funds",
    created_at: START.toISOString(),
    updated_at: START.toISOString(),
    ...overrides,
  } as ChargeAttempt;
}

function chargeEvent(
  type: "charge.failed" | "charge.succeeded",
  line: ChargeAttempt,
  id = "evt_1",
): OutboxEvent {
  const { period, order_id, amount, currency } = line;
  const facts = {
    subscription_id: line.subscription_id,
    period,
    attempt: line.attempt,
    order_id,
    amount,
    currency,
  };
  return type === "charge.failed"
    ? { type, ...facts, reason: "declined", event_id: id, occurred_at: START.toISOString() }
    : { type, ...facts, event_id: id, occurred_at: START.toISOString() };
}

beforeEach(async () => {
  repository = new MemoryBillingRepository({ clock: { now: () => START } });
  mailer = new RecordingMailer();
  await repository.createSubscription(subscription);
});

describe("mailForEvent", () => {
  it("a renewal's failure: one payment_failed mail, however often the event comes", async () => {
    const line = attempt(1);
    await repository.claimAttempt(line);
    const event = chargeEvent("charge.failed", line);
    expect(await mailForEvent(event, deps())).toEqual({ kind: "sent", mail_id: "payment_failed-evt_1" });
    expect(await mailForEvent(event, deps())).toEqual({ kind: "duplicate", mail_id: "payment_failed-evt_1" });
    expect(mailer.sent.map((mail) => [mail.template, mail.charge?.order_id])).toEqual([
      ["payment_failed", "sub_mail-1-0"],
    ]);
  });

  it("no failed-payment mail for a sign-up, an ad hoc charge or a subscription already canceled", async () => {
    for (const line of [attempt(0), attempt(AD_HOC_FIRST_PERIOD)]) {
      await repository.claimAttempt(line);
      expect(await mailForEvent(chargeEvent("charge.failed", line), deps())).toEqual({ kind: "none" });
    }
    const renewal = attempt(2);
    await repository.claimAttempt(renewal);
    await repository.updateSubscription(subscription.subscription_id, {
      expect: { status: "past_due" },
      set: { status: "canceled" },
    });
    expect(await mailForEvent(chargeEvent("charge.failed", renewal), deps())).toEqual({ kind: "none" });
    expect(mailer.sent).toEqual([]);
  });

  it("a receipt for every paid charge but a card check", async () => {
    const paid = attempt(1, { status: "succeeded", decline_reason: undefined });
    const check = attempt(0, { status: "succeeded", decline_reason: undefined, verification: true });
    await repository.claimAttempt(paid);
    await repository.claimAttempt(check);
    expect(await mailForEvent(chargeEvent("charge.succeeded", paid, "evt_paid"), deps())).toMatchObject({
      kind: "sent",
    });
    expect(await mailForEvent(chargeEvent("charge.succeeded", check, "evt_check"), deps())).toEqual({
      kind: "none",
    });
  });

  it("sends nothing the merchant turned off", async () => {
    const line = attempt(1);
    await repository.claimAttempt(line);
    expect(await mailForEvent(chargeEvent("charge.failed", line), deps(["receipt"]))).toEqual({
      kind: "none",
    });
  });

  it("a refused send gives the claim back, so the bus's retry sends it", async () => {
    const line = attempt(1);
    await repository.claimAttempt(line);
    const event = chargeEvent("charge.failed", line);
    mailer.refuse = true;
    await expect(mailForEvent(event, deps())).rejects.toBeInstanceOf(MailRefused);
    mailer.refuse = false;
    expect(await mailForEvent(event, deps())).toMatchObject({ kind: "sent" });
    expect(mailer.sent).toHaveLength(1);
  });
});

describe("renderMail", () => {
  const sender = { merchantName: "Shop & Co", supportAddress: "help@shop.test" };
  const portal = {
    portalUrlOf: (id: string, lang: string) => `https://pages.test/portal/${id}?lang=${lang}`,
    invoiceUrlOf: (number: string, lang: string) => `https://pages.test/documents/${number}?lang=${lang}`,
  };

  it("writes plain text and HTML from the same words, every value escaped in the HTML", () => {
    const mail: CustomerMail = {
      mail_id: "payment_failed-evt_1",
      template: "payment_failed",
      subscription: { ...subscription, customer: { name: "<b>Eve</b>", email: "eve@example.com" } },
      charge: attempt(1),
    };
    const rendered = renderMail(mail, sender, portal);
    expect(rendered.subject).toBe("Your payment to Shop & Co did not go through");
    expect(rendered.text).toContain("Hello <b>Eve</b>,");
    expect(rendered.text).toContain("The card had insufficient funds.");
    expect(rendered.text).toContain("Update your card: https://pages.test/portal/sub_mail?lang=en");
    expect(rendered.html).toContain("Hello &lt;b&gt;Eve&lt;/b&gt;,");
    expect(rendered.html).not.toContain("<b>Eve");
    expect(rendered.html).toContain("Shop &amp; Co");
    expect(rendered.html).toContain('href="https://pages.test/portal/sub_mail?lang=en"');
  });

  it("a receipt and a renewal ahead tell the seats and what the coupon takes off, as the charge does", () => {
    const seated = { ...subscription, status: "active" as const, plan: TEAM_PLAN, discount: LAUNCH20 };
    const charged = attempt(1, {
      status: "succeeded",
      amount: "47.76",
      amount_before_discount: "59.70",
      discount: "11.94",
      coupon_id: LAUNCH20.coupon_id,
    });
    const receipt = renderMail(
      { mail_id: "r", template: "receipt", subscription: seated, charge: charged },
      sender,
      portal,
    );
    expect(receipt.text).toContain("We charged $47.76 ($11.94 off)");
    expect(receipt.text).toContain("for your subscription ($59.70 every month, 3 seats × $19.90).");
    expect(receipt.text).not.toContain("invoice");
    const ahead = renderMail(
      {
        mail_id: "u",
        template: "renewal_upcoming",
        subscription: { ...seated, customer: { ...seated.customer, lang: "ko" } },
        due_at: START.toISOString(),
      },
      sender,
      portal,
    );
    expect(ahead.text).toContain("요금 US$47.76 (US$11.94 할인)");
  });

  it("a receipt of an invoiced charge links its invoice's page, in the customer's language", () => {
    const charged = attempt(1, { status: "succeeded", invoice_number: "INV-2027-000042" });
    const korean = { ...subscription, customer: { ...subscription.customer, lang: "ko" as const } };
    const receipt = renderMail(
      { mail_id: "r", template: "receipt", subscription: korean, charge: charged },
      sender,
      portal,
    );
    expect(receipt.text).toContain(
      "인보이스 INV-2027-000042 (페이지와 PDF): https://pages.test/documents/INV-2027-000042?lang=ko",
    );
    expect(receipt.html).toContain(
      '<a href="https://pages.test/documents/INV-2027-000042?lang=ko">인보이스 INV-2027-000042 (페이지와 PDF)</a>',
    );
  });

  it("the customer's language, else the checkout's, else English; a canceled subscription's mail has no link", () => {
    const korean = { ...subscription, customer: { ...subscription.customer, lang: "ko" as const } };
    const viaCheckout = { ...subscription, hosted_checkout: { lang: "KR" } };
    for (const sub of [korean, viaCheckout]) {
      const rendered = renderMail(
        { mail_id: "m", template: "subscription_canceled", subscription: sub },
        sender,
        portal,
      );
      expect(rendered.lang).toBe("ko");
      expect(rendered.subject).toBe("Shop & Co 구독이 종료되었습니다");
      expect(rendered.text).not.toContain("https://");
    }
  });
});
