import { type ChargeAttempt, customerLangSchema, type DeclineReason } from "../../core/base/model";

// What our pages say, in each language they speak. A page's language is the one asked for (`?lang=`), else the
// checkout's, else the browser's (Accept-Language), else English.

export const PAGE_LANGS = customerLangSchema.options;
export type PageLang = (typeof PAGE_LANGS)[number];

/** Why a payment did not go through, as the customer is told: a decline's reason, or a try that never paid. */
export type RefusalReason = DeclineReason | "not_completed";

type SubscriptionStatusName = "active" | "trialing" | "past_due" | "paused" | "canceled" | "pending";

/** How a charge reads to the customer. */
export type ChargeStatusName = "paid" | "refunded" | "partly_refunded" | "declined" | "processing";

/** What the portal says after an action (its `?done=`). */
export const PORTAL_NOTICES = [
  "cancel_scheduled",
  "kept",
  "resumed",
  "retrying",
  "card_checking",
  "card_updated",
  "not_done",
] as const;
export type PortalNotice = (typeof PORTAL_NOTICES)[number];

const en = {
  checkoutTitle: "Subscribe",
  soldBy: (merchant: string) => `Sold by ${merchant}`,
  price: (amount: string, months: number) =>
    months === 1 ? `${amount} every month` : `${amount} every ${months} months`,
  seats: (count: number, unit: string) => `${count} seats × ${unit}`,
  /** A tax added on top of the price. */
  taxAdded: (name: string, percent: string) => `plus ${name} ${percent}%`,
  coupon: "Coupon",
  off: (what: string) => `${what} off`,
  /** How many period charges a coupon still takes off (none: every one); `more`, counted from a charge already made. */
  discountLasts: (charges: number | undefined, more: boolean) =>
    charges === undefined
      ? "forever"
      : `${charges}${more ? " more" : ""} ${charges === 1 ? "charge" : "charges"}`,
  lastDiscounted: (date: string) => `the last on ${date}`,
  trial: (days: number, firstCharge: string, amount: string) =>
    `${days}-day free trial: the first charge, ${amount}, is on ${firstCharge}.`,
  verification: "Your card is checked with the smallest amount, refunded at once.",
  dueToday: "Due today",
  pay: "Pay with card",
  cardNote: "You type your card in the payment company's secure window; it never passes through this page.",
  noScript: "Your browser must run JavaScript to open the payment window.",
  windowBlocked: "The payment window did not open. Allow pop-ups for this page and press the button again.",
  cancel: "Cancel and go back",
  verifyingTitle: "Checking your payment…",
  verifyingNote: "This takes a few seconds; the page updates by itself.",
  paidTitle: "You are subscribed",
  nextCharge: (date: string, amount: string) => `Next charge: ${amount} on ${date}`,
  trialEnds: (date: string) => `Free trial until ${date}`,
  card: (first4: string, last4: string) => `Card: ${first4} •••• ${last4}`,
  continue: "Continue",
  declinedTitle: "The payment did not go through",
  reasons: {
    card_declined:
      "Your card issuer declined the payment. Nothing was charged. Try again or use another card.",
    insufficient_funds: "The card has insufficient funds. Nothing was charged. Try another card.",
    limit_exceeded:
      "The card's limit on payments was reached. Nothing was charged. Try another card or later.",
    try_again_later:
      "The payment could not be processed just now. Nothing was charged. Try again in a moment.",
    expired_card: "The card has expired. Nothing was charged. Try another card.",
    card_unusable: "This card cannot be used. Nothing was charged. Try another card.",
    authentication_failed: "Your bank could not confirm it was you. Nothing was charged. Try again.",
    not_completed: "The payment was not completed. Nothing was charged.",
  } satisfies Record<RefusalReason, string>,
  retry: "Try again",
  closedTitle: "This checkout is closed",
  closedNote: "Nothing more can be paid here. Ask the shop for a new link.",
  checkoutExpiredTitle: "This checkout has expired",
  checkoutExpiredNote:
    "The time to pay has run out, so nothing can be paid here. Nothing was charged, and a payment completed after that is refunded in full. Ask the shop for a new link.",
  expiredTitle: "This link has expired",
  expiredNote: "Ask the shop for a new link.",
  invalidTitle: "This link is not valid",
  invalidNote: "Check that you opened the whole link, or ask the shop for a new one.",
  refusedTitle: "This action was refused",
  refusedNote: "Open the page again and use its button.",
  errorTitle: "Something went wrong",
  errorNote: "Nothing was charged. Try again in a minute.",
  portalTitle: "Your subscriptions",
  portalEmpty: "There is no subscription to show.",
  back: "Back",
  statuses: {
    active: "Active",
    trialing: "Free trial",
    past_due: "Payment overdue",
    paused: "Paused",
    canceled: "Canceled",
    pending: "Not started",
  } satisfies Record<SubscriptionStatusName, string>,
  status: (status: string) => `Status: ${status}`,
  cancelsOn: (date: string) => `Ends on ${date}; nothing more will be charged.`,
  pausedUntil: (date: string) => `Paused until ${date}`,
  overdue: (amount: string) => `Your last payment of ${amount} did not go through.`,
  updateCard: "Update card",
  payWithNewCard: (amount: string) => `Pay ${amount} with a new card`,
  retryWithCard: (last4: string) => `Retry with the card ending ${last4}`,
  cancelAtPeriodEnd: "Cancel at the end of the period",
  keepSubscription: "Keep my subscription",
  resume: "Resume",
  chargesTitle: "Payments",
  chargeDate: "Date",
  chargeAmount: "Amount",
  chargeStatus: "Status",
  receipt: "Receipt",
  documentsTitle: "Invoices and credit notes",
  documentKinds: { invoice: "Invoice", credit_note: "Credit note" },
  documentNumber: "Number",
  chargeStatuses: {
    paid: "Paid",
    refunded: "Refunded",
    partly_refunded: "Partly refunded",
    declined: "Declined",
    processing: "Processing",
  } satisfies Record<ChargeStatusName, string>,
  cardWindowTitle: "Update your card",
  cardWindowOwed: (amount: string) => `Your new card pays the overdue ${amount} at once.`,
  cardWindowCheck: "Your new card is checked with the smallest amount, refunded at once.",
  payNewCard: "Enter the new card",
  notices: {
    cancel_scheduled: "Your subscription will end when the paid period is over.",
    kept: "Your subscription continues.",
    resumed: "Your subscription is active again.",
    retrying: "We are charging your card now. This page shows the result in a moment.",
    card_checking: "Checking your new card…",
    card_updated: "Your card was updated.",
    not_done: "This change could not be made now. Reload the page and try again.",
  } satisfies Record<PortalNotice, string>,
};

type PageText = typeof en;

const ko: PageText = {
  checkoutTitle: "구독하기",
  soldBy: (merchant) => `판매자: ${merchant}`,
  price: (amount, months) => (months === 1 ? `매월 ${amount}` : `${months}개월마다 ${amount}`),
  seats: (count, unit) => `좌석 ${count}개 × ${unit}`,
  taxAdded: (name, percent) => `${name} ${percent}% 별도`,
  coupon: "쿠폰",
  off: (what) => `${what} 할인`,
  discountLasts: (charges, more) =>
    charges === undefined ? "모든 결제에 적용" : more ? `앞으로 ${charges}회` : `${charges}회`,
  lastDiscounted: (date) => `마지막 할인 ${date}`,
  trial: (days, firstCharge, amount) => `${days}일 무료 체험: 첫 결제(${amount})는 ${firstCharge}입니다.`,
  verification: "카드 확인을 위해 최소 금액이 결제되며 즉시 환불됩니다.",
  dueToday: "오늘 결제 금액",
  pay: "카드로 결제",
  cardNote: "카드 정보는 결제대행사의 보안 결제창에서만 입력되며 이 페이지를 거치지 않습니다.",
  noScript: "결제창을 열려면 브라우저에서 JavaScript를 사용할 수 있어야 합니다.",
  windowBlocked: "결제창이 열리지 않았습니다. 이 페이지의 팝업을 허용한 뒤 버튼을 다시 눌러 주세요.",
  cancel: "취소하고 돌아가기",
  verifyingTitle: "결제를 확인하고 있습니다…",
  verifyingNote: "몇 초 걸립니다. 페이지가 자동으로 바뀝니다.",
  paidTitle: "구독이 완료되었습니다",
  nextCharge: (date, amount) => `다음 결제: ${date}, ${amount}`,
  trialEnds: (date) => `무료 체험 종료일: ${date}`,
  card: (first4, last4) => `카드: ${first4} •••• ${last4}`,
  continue: "계속",
  declinedTitle: "결제가 완료되지 않았습니다",
  reasons: {
    card_declined:
      "카드사가 결제를 거절했습니다. 결제된 금액은 없습니다. 다시 시도하거나 다른 카드를 사용해 주세요.",
    insufficient_funds: "카드 잔액이 부족합니다. 결제된 금액은 없습니다. 다른 카드를 사용해 주세요.",
    limit_exceeded:
      "카드 결제 한도에 도달했습니다. 결제된 금액은 없습니다. 다른 카드를 사용하거나 나중에 다시 시도해 주세요.",
    try_again_later: "지금은 결제를 처리할 수 없습니다. 결제된 금액은 없습니다. 잠시 후 다시 시도해 주세요.",
    card_unusable: "이 카드는 사용할 수 없습니다. 결제된 금액은 없습니다. 다른 카드를 사용해 주세요.",
    expired_card: "카드 유효기간이 지났습니다. 결제된 금액은 없습니다. 다른 카드를 사용해 주세요.",
    authentication_failed: "카드 본인 인증에 실패했습니다. 결제된 금액은 없습니다. 다시 시도해 주세요.",
    not_completed: "결제가 완료되지 않았습니다. 결제된 금액은 없습니다.",
  },
  retry: "다시 시도",
  closedTitle: "종료된 결제입니다",
  closedNote: "여기서는 더 이상 결제할 수 없습니다. 판매자에게 새 링크를 요청해 주세요.",
  checkoutExpiredTitle: "결제 기한이 지났습니다",
  checkoutExpiredNote:
    "결제할 수 있는 시간이 지나 여기서는 더 이상 결제할 수 없습니다. 청구된 금액은 없으며, 기한이 지난 뒤 완료된 결제는 전액 환불됩니다. 판매자에게 새 링크를 요청해 주세요.",
  expiredTitle: "링크가 만료되었습니다",
  expiredNote: "판매자에게 새 링크를 요청해 주세요.",
  invalidTitle: "유효하지 않은 링크입니다",
  invalidNote: "링크 전체를 열었는지 확인하거나 판매자에게 새 링크를 요청해 주세요.",
  refusedTitle: "요청이 거부되었습니다",
  refusedNote: "페이지를 다시 열고 페이지의 버튼을 사용해 주세요.",
  errorTitle: "문제가 발생했습니다",
  errorNote: "결제된 금액은 없습니다. 잠시 후 다시 시도해 주세요.",
  portalTitle: "내 구독",
  portalEmpty: "표시할 구독이 없습니다.",
  back: "돌아가기",
  statuses: {
    active: "이용 중",
    trialing: "무료 체험 중",
    past_due: "결제 연체",
    paused: "일시 정지",
    canceled: "해지됨",
    pending: "시작 전",
  },
  status: (status) => `상태: ${status}`,
  cancelsOn: (date) => `${date}에 종료되며 더 이상 결제되지 않습니다.`,
  pausedUntil: (date) => `${date}까지 일시 정지`,
  overdue: (amount) => `최근 ${amount} 결제가 완료되지 않았습니다.`,
  updateCard: "카드 변경",
  payWithNewCard: (amount) => `새 카드로 ${amount} 결제`,
  retryWithCard: (last4) => `끝자리 ${last4} 카드로 다시 결제`,
  cancelAtPeriodEnd: "이용 기간 종료 시 해지",
  keepSubscription: "구독 유지",
  resume: "다시 시작",
  chargesTitle: "결제 내역",
  chargeDate: "날짜",
  chargeAmount: "금액",
  chargeStatus: "상태",
  receipt: "영수증",
  documentsTitle: "인보이스와 대변표",
  documentKinds: { invoice: "인보이스", credit_note: "대변표" },
  documentNumber: "번호",
  chargeStatuses: {
    paid: "결제 완료",
    refunded: "환불됨",
    partly_refunded: "부분 환불",
    declined: "거절됨",
    processing: "처리 중",
  },
  cardWindowTitle: "카드 변경",
  cardWindowOwed: (amount) => `새 카드로 연체된 ${amount}이(가) 바로 결제됩니다.`,
  cardWindowCheck: "새 카드 확인을 위해 최소 금액이 결제되며 즉시 환불됩니다.",
  payNewCard: "새 카드 입력",
  notices: {
    cancel_scheduled: "결제된 이용 기간이 끝나면 구독이 종료됩니다.",
    kept: "구독이 계속됩니다.",
    resumed: "구독이 다시 시작되었습니다.",
    retrying: "지금 카드로 결제하고 있습니다. 잠시 후 이 페이지에 결과가 표시됩니다.",
    card_checking: "새 카드를 확인하고 있습니다…",
    card_updated: "카드가 변경되었습니다.",
    not_done: "지금은 변경할 수 없습니다. 페이지를 새로 고친 뒤 다시 시도해 주세요.",
  },
};

export const PAGE_TEXT: Readonly<Record<PageLang, PageText>> = { en, ko };

/** The gateway's window takes KR for Korean (its own codes); a checkout's lang may be either. */
const LANG_ALIASES: Readonly<Record<string, PageLang>> = { kr: "ko" };

/** Our language for a language code (ours, the gateway's KR, a browser's ko-KR); undefined when we speak none. */
export const langOf = (code: string | undefined): PageLang | undefined => {
  const primary = code?.trim().slice(0, 2).toLowerCase() ?? "";
  return LANG_ALIASES[primary] ?? PAGE_LANGS.find((lang) => lang === primary);
};

/** The page's language: asked for, else the checkout's, else the browser's first we speak, else English. */
export function pageLangOf(
  asked: string | undefined,
  stored: string | undefined,
  acceptLanguage: string | undefined,
): PageLang {
  const browser = (acceptLanguage ?? "")
    .split(",")
    .map((entry) => langOf(entry.split(";")[0]))
    .find((lang) => lang !== undefined);
  return langOf(asked) ?? langOf(stored) ?? browser ?? "en";
}

/** An amount in its currency, as the page's language writes it (ICU: KRW without decimals, USD with two). */
export const moneyText = (amount: string, currency: string, lang: PageLang): string =>
  new Intl.NumberFormat(lang, { style: "currency", currency }).format(Number(amount));

/** A day, as the page's language writes it (UTC: the day the billing schedule counts in). */
export const dayText = (instant: string, lang: PageLang): string =>
  new Intl.DateTimeFormat(lang, { dateStyle: "long", timeZone: "UTC" }).format(new Date(instant));

/** Why a try did not pay, as its line recorded it (the gateway adapter read the reason from its codes). */
export function refusalReasonOf(line: ChargeAttempt): RefusalReason {
  if (line.status !== "declined") return "not_completed";
  return line.decline_reason ?? "card_declined";
}
