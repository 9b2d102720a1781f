import { randomUUID } from "node:crypto";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import type { CreateCheckoutBody } from "../../functions/api/merchant-api-schemas";
import { checkoutView, errorBody } from "../../functions/api/merchant-api-views";
import { headerOf, rawBodyOf } from "../../functions/lambda/http-event";
import { type Html, html } from "../../functions/pages/shared/html";
import { type PageResult, pageAnswer, seeOther } from "../../functions/pages/shared/page-layout";
import { refusedActionPage } from "../../functions/pages/shared/page-requests";
import type { PageRoute } from "../../functions/pages/shared/page-routes";
import { moneyText } from "../../functions/pages/shared/page-text";
import { MerchantClient } from "../clients/merchant-client";
import type { LocalPage } from "../lambda/http-api";

// The try-it page of local mode (`npm start` prints its URL; README, Local mode): a person picks a plan for a test
// customer, is sent to the hosted checkout it starts and pays in the sandbox's window. Local mode serves it itself: it
// is no function of the table and is never deployed. English only: it is a developer's page.

export const TRY_IT_PAGE_ROUTES = {
  /** The form, and where the hosted checkout leads back to (`?checkout=paid` or `canceled`). */
  page: { method: "GET", path: "/try" },
  /** The form's action: a hosted checkout, then a redirect to its page. */
  start: { method: "POST", path: "/try" },
} as const satisfies Record<string, PageRoute>;

interface Offer {
  readonly id: string;
  /** Sent as the checkout's description: the hosted page shows it. */
  readonly name: string;
  readonly plan: NonNullable<CreateCheckoutBody["plan"]>;
}

/** One plan per kind of checkout worth seeing: two decimals, a currency without minor unit, a free trial first. */
const OFFERS: readonly Offer[] = [
  { id: "starter", name: "Starter", plan: { amount: "19.90", currency: "USD", interval_months: 1 } },
  { id: "team", name: "Team", plan: { amount: "12000", currency: "KRW", interval_months: 1 } },
  {
    id: "pro",
    name: "Pro",
    plan: { amount: "49.00", currency: "USD", interval_months: 1, trial_days: 14 },
  },
];

const TEST_CUSTOMER = { name: "Ada Lovelace", email: "ada@example.com" } as const;

/** The sandbox's test cards a person needs first (README, Test cards, lists them all): shown on the page. */
export const TRY_IT_TEST_CARDS = [
  ["4111111111111111", "pays"],
  ["4000000000009995", "declined: insufficient funds"],
  ["4000000000000002", "declined by the card issuer"],
] as const;

const RETURN_NOTES = new Map([
  ["paid", "The last checkout is paid: its subscription is active. Start another one below."],
  ["canceled", "The last checkout was canceled: nothing was charged."],
]);

/** What the form posts. */
interface TryForm {
  readonly name: string;
  readonly email: string;
  readonly plan: string;
}
type FormField = keyof TryForm;

const FIELD_LABELS: Readonly<Record<FormField, string>> = { name: "name", email: "e-mail", plan: "plan" };

/** The form's fields by their names in the merchant API's body. */
const FORM_FIELDS_OF_API = new Map<string, FormField>([
  ["customer.name", "name"],
  ["customer.email", "email"],
]);

/** Why the form is shown again: a field of the form and what is wrong with it, or what was refused otherwise. */
type Refusal = { readonly field: FormField; readonly message: string } | { readonly message: string };

const planText = ({ name, plan }: Offer) =>
  `${name}, ${moneyText(plan.amount, plan.currency, "en")} / month` +
  (plan.trial_days === undefined ? "" : `, after a ${plan.trial_days}-day free trial`);

function tryItPage(status: number, form: TryForm, note: Html | string, refusal?: Refusal): PageResult {
  // A refused field is shown empty: the API never repeats what it refused (it may be card data), nor does this page.
  const refused = refusal !== undefined && "field" in refusal ? refusal.field : undefined;
  const value = (field: FormField) => (refused === field ? "" : form[field]);
  const invalid = (field: FormField) =>
    refused === field ? html` aria-invalid="true" aria-describedby="refusal"` : "";
  const alert =
    refusal === undefined
      ? ""
      : html`<p class="alert" role="alert" id="refusal">${
          refused === undefined ? "" : `Check the ${FIELD_LABELS[refused]}: `
        }${refusal.message}</p>`;
  const main = html`<h1>Try a checkout</h1>
<p>Subscribe a test customer the way a shop would: this page starts a hosted checkout through the merchant API
(<code>POST /v1/checkouts</code>) and takes you to its page, where you pay in the gateway sandbox's window.</p>
${note}${alert}
<form method="post" action="${TRY_IT_PAGE_ROUTES.start.path}">
<label for="name">Name</label>
<input type="text" id="name" name="name" autocomplete="name" required value="${value("name")}"${invalid("name")}>
<label for="email">E-mail</label>
<input type="email" id="email" name="email" autocomplete="email" required value="${value("email")}"${invalid("email")}>
<fieldset${invalid("plan")}><legend>Plan</legend>
${OFFERS.map(
  (offer) =>
    html`<label><input type="radio" name="plan" value="${offer.id}"${offer.id === form.plan ? html` checked` : ""}> ${planText(offer)}</label>`,
)}
</fieldset>
<button type="submit">Start checkout</button>
</form>
<section><h2>Test cards</h2>
<p>Any name, any future expiry date and any CVC.</p>
<table><thead><tr><th>Card number</th><th>What happens</th></tr></thead><tbody>
${TRY_IT_TEST_CARDS.map(([number, outcome]) => html`<tr><td><code>${number}</code></td><td>${outcome}</td></tr>`)}
</tbody></table></section>`;
  return pageAnswer(status, { lang: "en", title: "Try a checkout", main });
}

/**
 * The try-it page served from `baseUrl` (the local stack's own server). The checkout is asked of the merchant API over
 * HTTP with the stack's API key, as a shop's server asks it — the authorizer, the route and an Idempotency-Key
 * included — rather than by invoking create-checkout directly, so the page walks the path an integration takes.
 */
export function tryItPages(baseUrl: string, apiKey: string): LocalPage[] {
  const merchantApi = new MerchantClient(baseUrl, apiKey);
  const returnUrl = (outcome: string) => `${baseUrl}${TRY_IT_PAGE_ROUTES.page.path}?checkout=${outcome}`;

  const showForm = async (event: APIGatewayProxyEventV2) =>
    tryItPage(200, { ...TEST_CUSTOMER, plan: "starter" }, returnNote(event));

  const startCheckout = async (event: APIGatewayProxyEventV2): Promise<PageResult> => {
    // Fetch metadata: a form posted by another site's page cannot start checkouts in a person's local stack.
    const site = headerOf(event, "sec-fetch-site");
    if (site !== undefined && site !== "same-origin") return refusedActionPage("en");
    const fields = new URLSearchParams(rawBodyOf(event).toString("utf8"));
    const form = {
      name: fields.get("name") ?? "",
      email: fields.get("email") ?? "",
      plan: fields.get("plan") ?? "",
    };
    const offer = OFFERS.find(({ id }) => id === form.plan);
    if (offer === undefined)
      return tryItPage(400, form, "", { field: "plan", message: "pick one of the plans" });
    const answer = await merchantApi.post(
      "/v1/checkouts",
      {
        customer: { name: form.name, email: form.email },
        plan: offer.plan,
        billing: "token",
        description: offer.name,
        success_url: returnUrl("paid"),
        cancel_url: returnUrl("canceled"),
      },
      randomUUID(),
    );
    if (answer.status === 201) return seeOther(checkoutView.parse(answer.body).checkout_url);
    // The API's own refusal (a 400 names the field): the form again, under the API's status.
    const refused = errorBody.safeParse(answer.body);
    if (!refused.success) throw new Error(`POST /v1/checkouts answered ${answer.status}`);
    const { code, field, message } = refused.data.error;
    const formField = field === undefined ? undefined : FORM_FIELDS_OF_API.get(field);
    return tryItPage(
      answer.status,
      form,
      "",
      formField === undefined
        ? { message: `The merchant API refused the checkout (${answer.status} ${code}): ${message}` }
        : { field: formField, message },
    );
  };

  return [
    { ...TRY_IT_PAGE_ROUTES.page, serve: showForm },
    { ...TRY_IT_PAGE_ROUTES.start, serve: startCheckout },
  ];
}

/** What the hosted checkout's way back says (its success_url and cancel_url lead here). */
function returnNote(event: APIGatewayProxyEventV2): Html | string {
  const note = RETURN_NOTES.get(event.queryStringParameters?.checkout ?? "");
  return note === undefined ? "" : html`<p role="status">${note}</p>`;
}
