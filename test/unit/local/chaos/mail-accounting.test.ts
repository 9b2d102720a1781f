import { describe, expect, it } from "vitest";
import type { ChargeAttempt, Subscription } from "../../../../functions/core/base/model";
import type { KeptMail } from "../../../../local/aws/ses-stand-in";
import { accountForMails } from "../../../../local/chaos/mail-accounting";

const at = "2027-03-01T10:00:00.000Z";
const charge = { subscription_id: "sub_a", attempt: 0, amount: "19.90", currency: "USD", occurred_at: at };
const succeeded = (id: string, period: number) =>
  JSON.stringify({
    type: "charge.succeeded",
    ...charge,
    period,
    order_id: `sub_a-${period}-0`,
    event_id: id,
  });
const canceled = (id: string, subscription_id: string) =>
  JSON.stringify({
    type: "subscription.canceled",
    subscription_id,
    reason: "merchant",
    event_id: id,
    occurred_at: at,
  });
let sends = 0;
const mail = (template: string, eventId: string): KeptMail => ({
  message_id: `message-${++sends}`,
  template,
  mail_id: `${template}-${eventId}`,
  event_id: eventId,
  from: "shop@example.test",
  to: ["a@example.test"],
  subject: "s",
  text: "t",
  html: "h",
  sent_at: at,
});
const line = (period: number, verification?: true) =>
  ({ order_id: `sub_a-${period}-0`, ...(verification && { verification }) }) as ChargeAttempt;
const subscription = (id: string, period: number) => ({ subscription_id: id, period }) as Subscription;

describe("accountForMails", () => {
  it("owes one mail per receipt and per end of a started subscription, whatever the copies", () => {
    const account = accountForMails({
      details: [
        succeeded("e1", 1),
        succeeded("e1", 1),
        succeeded("e0", 0),
        canceled("e2", "sub_a"),
        canceled("e3", "sub_b"),
      ],
      mails: [mail("receipt", "e1"), mail("subscription_canceled", "e2")],
      attempts: [line(1), line(0, true)],
      subscriptions: [subscription("sub_a", 2), subscription("sub_b", 0)],
      deadLetters: [],
    });
    expect(account).toEqual({ sent: 2, owed: 2, sentTwice: [], lost: [] });
  });

  it("names a mail sent twice, an owed one missing and an event the mail function gave up on", () => {
    const account = accountForMails({
      details: [succeeded("e1", 1), succeeded("e4", 2)],
      mails: [mail("receipt", "e1"), mail("receipt", "e1")],
      attempts: [line(1), line(2)],
      subscriptions: [subscription("sub_a", 3)],
      deadLetters: ["e9"],
    });
    expect(account.sentTwice).toEqual(["receipt-e1 sent 2 times", "event e1 mailed 2 times"]);
    expect(account.lost).toEqual([
      "charge.succeeded e4 (sub_a) without its mail",
      "event e9: the mail function gave up",
    ]);
  });
});
