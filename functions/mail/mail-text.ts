import type { DeclineReason } from "../core/base/model";
import type { MailTemplate } from "../core/ports/mailer";
import type { PageLang } from "../pages/shared/page-text";

// What our mails to customers say, in each language we write. Each mail is a subject, paragraphs and at most one
// link (the portal, where the customer acts); render-mail.ts turns it into plain text and HTML.

/** The facts a mail's words are made of, already written in its language (amounts, dates). */
export interface MailFacts {
  readonly merchant: string;
  readonly customerName: string;
  /** The plan's price: "$19.90 every month", with its seats when more than one. */
  readonly price: string;
  /** The charge's amount, with what a coupon took off (payment_failed, receipt, renewal_upcoming). */
  readonly amount?: string;
  /** The charge's day, the renewal's, the trial's end or the card's last day. */
  readonly day?: string;
  readonly last4?: string;
  readonly orderId?: string;
  readonly declineReason?: DeclineReason;
}

export interface MailWords {
  readonly subject: string;
  readonly paragraphs: readonly string[];
  /** The portal link's label, when the mail carries one. */
  readonly action?: string;
}

export interface MailText {
  readonly greeting: (name: string) => string;
  readonly words: Readonly<Record<MailTemplate, (facts: MailFacts) => MailWords>>;
  readonly declineReasons: Readonly<Record<DeclineReason, string>>;
  readonly support: (address: string) => string;
  readonly signature: (merchant: string) => string;
  readonly linkNote: string;
  /** A receipt's invoice: its link's label. */
  readonly invoiceLink: (number: string) => string;
}

/** " (card ending 1111)" in each language; nothing when the card is not known. */
const enCard = (last4: string | undefined) => (last4 === undefined ? "" : ` (card ending ${last4})`);
const koCard = (last4: string | undefined) => (last4 === undefined ? "" : ` (끝자리 ${last4} 카드)`);

const en: MailText = {
  greeting: (name) => `Hello ${name},`,
  words: {
    payment_failed: (facts) => ({
      subject: `Your payment to ${facts.merchant} did not go through`,
      paragraphs: [
        `We could not charge ${facts.amount} for your subscription${enCard(facts.last4)} on ${facts.day}.`,
        facts.declineReason === undefined ? "" : en.declineReasons[facts.declineReason],
        "Your subscription continues for now. Update your card, or retry with the same one, so it does not end.",
      ],
      action: "Update your card",
    }),
    card_expiring: (facts) => ({
      subject: `Your card for ${facts.merchant} expires soon`,
      paragraphs: [
        `The card ending ${facts.last4} that pays for your subscription (${facts.price}) stops working after ${facts.day}.`,
        "Add a new card before then so your subscription continues without a break.",
      ],
      action: "Update your card",
    }),
    renewal_upcoming: (facts) => ({
      subject: `Your ${facts.merchant} subscription renews on ${facts.day}`,
      paragraphs: [
        `On ${facts.day} we will charge ${facts.amount}${enCard(facts.last4)} for your subscription (${facts.price}).`,
        "Nothing to do if that is what you want. You can change your card or cancel before then.",
      ],
      action: "Manage your subscription",
    }),
    trial_ending: (facts) => ({
      subject: `Your free trial of ${facts.merchant} ends on ${facts.day}`,
      paragraphs: [
        `Your free trial ends on ${facts.day}. Then your subscription starts at ${facts.price}${enCard(facts.last4)}.`,
        "Nothing to do if you want to keep it. You can cancel before then and nothing will be charged.",
      ],
      action: "Manage your subscription",
    }),
    receipt: (facts) => ({
      subject: `Your receipt from ${facts.merchant}`,
      paragraphs: [
        `Thank you. We charged ${facts.amount}${enCard(facts.last4)} on ${facts.day} for your subscription (${facts.price}).`,
        `Payment reference: ${facts.orderId}.`,
      ],
      action: "See your payments and receipts",
    }),
    subscription_canceled: (facts) => ({
      subject: `Your ${facts.merchant} subscription has ended`,
      paragraphs: [
        `Your subscription (${facts.price}) has ended. Nothing more will be charged.`,
        "If you did not expect this, contact us and we will help you.",
      ],
    }),
  },
  declineReasons: {
    card_declined: "Your card issuer declined the payment.",
    insufficient_funds: "The card had insufficient funds.",
    limit_exceeded: "The card's limit on payments was reached.",
    try_again_later: "The payment could not be processed at the time; we will try again.",
    expired_card: "The card has expired: a new card is needed.",
    card_unusable: "This card can no longer be used: a new card is needed.",
    authentication_failed: "Your bank could not confirm the payment: it needs your confirmation.",
  },
  support: (address) => `Questions? Write to ${address}.`,
  signature: (merchant) => `— ${merchant}`,
  linkNote: "The link is yours alone and works for 7 days.",
  invoiceLink: (number) => `Your invoice ${number} (page and PDF)`,
};

const ko: MailText = {
  greeting: (name) => `${name} 님, 안녕하세요.`,
  words: {
    payment_failed: (facts) => ({
      subject: `${facts.merchant} 결제가 완료되지 않았습니다`,
      paragraphs: [
        `${facts.day}에 구독 요금 ${facts.amount}을(를) 결제하지 못했습니다${koCard(facts.last4)}.`,
        facts.declineReason === undefined ? "" : ko.declineReasons[facts.declineReason],
        "구독은 아직 유지됩니다. 구독이 해지되지 않도록 카드를 변경하거나 같은 카드로 다시 결제해 주세요.",
      ],
      action: "카드 변경하기",
    }),
    card_expiring: (facts) => ({
      subject: `${facts.merchant} 결제 카드의 유효기간이 곧 끝납니다`,
      paragraphs: [
        `구독(${facts.price}) 결제에 쓰이는 끝자리 ${facts.last4} 카드는 ${facts.day} 이후 사용할 수 없습니다.`,
        "구독이 끊기지 않도록 그 전에 새 카드를 등록해 주세요.",
      ],
      action: "카드 변경하기",
    }),
    renewal_upcoming: (facts) => ({
      subject: `${facts.merchant} 구독이 ${facts.day}에 갱신됩니다`,
      paragraphs: [
        `${facts.day}에 구독(${facts.price}) 요금 ${facts.amount}이(가) 결제됩니다${koCard(facts.last4)}.`,
        "계속 이용하신다면 하실 일은 없습니다. 그 전에 카드를 변경하거나 해지할 수 있습니다.",
      ],
      action: "구독 관리",
    }),
    trial_ending: (facts) => ({
      subject: `${facts.merchant} 무료 체험이 ${facts.day}에 끝납니다`,
      paragraphs: [
        `무료 체험이 ${facts.day}에 끝나고 ${facts.price} 구독이 시작됩니다${koCard(facts.last4)}.`,
        "계속 이용하신다면 하실 일은 없습니다. 그 전에 해지하시면 요금이 결제되지 않습니다.",
      ],
      action: "구독 관리",
    }),
    receipt: (facts) => ({
      subject: `${facts.merchant} 결제 영수증`,
      paragraphs: [
        `감사합니다. ${facts.day}에 구독(${facts.price}) 요금 ${facts.amount}이(가) 결제되었습니다${koCard(facts.last4)}.`,
        `결제 번호: ${facts.orderId}`,
      ],
      action: "결제 내역과 영수증 보기",
    }),
    subscription_canceled: (facts) => ({
      subject: `${facts.merchant} 구독이 종료되었습니다`,
      paragraphs: [
        `구독(${facts.price})이 종료되었습니다. 더 이상 결제되지 않습니다.`,
        "예상하지 못한 종료라면 연락해 주세요. 도와드리겠습니다.",
      ],
    }),
  },
  declineReasons: {
    card_declined: "카드사가 결제를 거절했습니다.",
    insufficient_funds: "카드 잔액이 부족했습니다.",
    limit_exceeded: "카드 결제 한도에 도달했습니다.",
    try_again_later: "당시 결제를 처리할 수 없었습니다. 다시 시도하겠습니다.",
    expired_card: "카드 유효기간이 지났습니다. 새 카드가 필요합니다.",
    card_unusable: "이 카드는 더 이상 사용할 수 없습니다. 새 카드가 필요합니다.",
    authentication_failed: "카드 본인 인증이 필요합니다.",
  },
  support: (address) => `문의: ${address}`,
  signature: (merchant) => `${merchant} 드림`,
  linkNote: "이 링크는 본인 전용이며 7일 동안 사용할 수 있습니다.",
  invoiceLink: (number) => `인보이스 ${number} (페이지와 PDF)`,
};

export const MAIL_TEXT: Readonly<Record<PageLang, MailText>> = { en, ko };
