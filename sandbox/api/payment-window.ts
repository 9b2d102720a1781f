import { isDeepStrictEqual } from "node:util";
import { cardBehaviour, TEST_CARDS } from "../acquirer/cards";
import { escapeHtml, hiddenFields, htmlPage } from "../http/html";
import { htmlReply, parseFields, type Reply, ReplyError, scriptReply } from "../http/replies";
import { defineRoute, type RouteContext, type RouteDefinition, type SandboxRequest } from "../http/routes";
import { readyRequest } from "./payment-requests";
import { finishWindow } from "./payment-sandbox-routes";

// The payment window a person sees (README, The gateway sandbox): the SDK a merchant's page loads, whose
// EXIMBAY.request_pay(params) opens the window — params must be the fgkey plus exactly what ready was sent, or the
// window shows the gateway's error and nothing is paid —, a card form, a payer-authentication step for the card that
// asks for one, and the way back: the result to status_url (a form POST), the browser to return_url (a form POST).

const pageRoute = { auth: "none", faults: false } as const;

/** The SDK: request_pay posts the parameters to the window, in a popup (display_type P, the default) or this tab. */
function sdkScript(base: string): string {
  return `(function () {
  var WINDOW_URL = ${JSON.stringify(`${base}/v1/payments/window`)};
  window.EXIMBAY = {
    request_pay: function (params) {
      var sameTab = params && params.settings && params.settings.display_type === "R";
      var target = sameTab ? "_self" : "eximbay_payment_window";
      if (!sameTab) window.open("about:blank", target, "width=480,height=760");
      var form = document.createElement("form");
      form.method = "POST";
      form.action = WINDOW_URL;
      form.target = target;
      form.acceptCharset = "UTF-8";
      var field = document.createElement("input");
      field.type = "hidden";
      field.name = "params";
      field.value = JSON.stringify(params);
      form.appendChild(field);
      document.body.appendChild(form);
      form.submit();
      document.body.removeChild(form);
    }
  };
})();
`;
}

/** Where the browser reached the sandbox (its own host serves the window). */
const baseOf = (request: SandboxRequest) => `http://${request.headers.host ?? "127.0.0.1"}`;

function errorPage(title: string, message: string, status = 400): Reply {
  return htmlReply(
    htmlPage(
      title,
      `<h1>${escapeHtml(title)}</h1>\n<p class="error" role="alert">${escapeHtml(message)}</p>`,
    ),
    status,
  );
}

const OUTCOMES: Readonly<Record<string, string>> = {
  approve: "approved",
  decline: "declined (DC05)",
  insufficient_funds: "declined: insufficient funds (DC51)",
  expired_card: "declined: expired card (DC54)",
  stolen_card: "declined: stolen card (DC43)",
  chargeback: "approved, then charged back",
  payer_auth_required: "asks for payer authentication first",
  decline_on_rebill: "approved; its token's renewals decline",
  acquirer_error: "acquirer communication error (EE01)",
};

function testCardTable(): string {
  const rows = Object.entries(TEST_CARDS)
    .map(
      ([number, behaviour]) =>
        `<tr><td>${number}</td><td>${escapeHtml(OUTCOMES[behaviour] ?? behaviour)}</td></tr>`,
    )
    .join("\n");
  return `<table><caption>Sandbox test cards (any future expiry, any CVC)</caption>
<thead><tr><th scope="col">Card number</th><th scope="col">Outcome</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

interface WindowFacts {
  readonly fgkey: string;
  readonly amount: string;
  readonly currency: string;
  readonly orderId: string;
}

function factsOf(fgkey: string, request: unknown): WindowFacts {
  const { payment } = parseFields(readyRequest, request);
  return { fgkey, amount: payment.amount, currency: payment.currency, orderId: payment.order_id };
}

function monthOptions(): string {
  return Array.from({ length: 12 }, (_, index) => {
    const month = String(index + 1).padStart(2, "0");
    return `<option value="${month}">${month}</option>`;
  }).join("");
}

/** The card form; `problem` says what the last try got wrong (the window stays open). */
function cardForm(facts: WindowFacts, problem?: string): Reply {
  const alert = problem === undefined ? "" : `<p class="error" role="alert">${escapeHtml(problem)}</p>`;
  const body = `<h1>Pay ${escapeHtml(facts.currency)} ${escapeHtml(facts.amount)}</h1>
<p>Order ${escapeHtml(facts.orderId)}</p>
${alert}
<form method="post" action="/v1/payments/window/${encodeURIComponent(facts.fgkey)}/pay">
<label for="card_holder">Name on card</label>
<input id="card_holder" name="card_holder" autocomplete="cc-name" required>
<label for="card_number">Card number</label>
<input id="card_number" name="card_number" autocomplete="cc-number" inputmode="numeric" required>
<div class="row">
<div><label for="expiry_month">Expiry month</label>
<select id="expiry_month" name="expiry_month" autocomplete="cc-exp-month">${monthOptions()}</select></div>
<div><label for="expiry_year">Expiry year</label>
<input id="expiry_year" name="expiry_year" autocomplete="cc-exp-year" inputmode="numeric" placeholder="YYYY" required></div>
</div>
<label for="cvc">Security code</label>
<input id="cvc" name="cvc" autocomplete="cc-csc" inputmode="numeric" required>
<button type="submit">Pay</button>
</form>
${testCardTable()}`;
  return htmlReply(htmlPage("Payment", body), problem === undefined ? 200 : 400);
}

/** The window the SDK opened: its parameters must be the fgkey and exactly the ready request it was made for. */
function openWindow(request: SandboxRequest, ctx: RouteContext): Reply {
  let params: unknown;
  try {
    params = JSON.parse(String(request.body.params ?? ""));
  } catch {
    return errorPage(
      "Payment request refused",
      "EC00 Invalid parameter: the payment request is not readable",
    );
  }
  const { fgkey, ...sent } =
    typeof params === "object" && params !== null ? (params as Record<string, unknown>) : {};
  const window = typeof fgkey === "string" ? ctx.ledger.windows.find(fgkey) : undefined;
  if (window === undefined || typeof fgkey !== "string")
    return errorPage("Payment request refused", "EC00 Invalid parameter: fgkey");
  if (!isDeepStrictEqual(sent, window.request))
    return errorPage(
      "Payment request refused",
      "EC00 Invalid parameter: fgkey (the request differs from the one the key was issued for)",
    );
  if (window.state === "completed")
    return errorPage("Payment finished", "This payment window was completed before.");
  return cardForm(factsOf(fgkey, window.request));
}

/** The payer-authentication step the card asks for; confirming posts the same fields back, authenticated. */
function payerAuthentication(fgkey: string, fields: Readonly<Record<string, string>>): Reply {
  const body = `<h1>Verify it is you</h1>
<p>Your card issuer asks you to confirm this payment.</p>
<form method="post" action="/v1/payments/window/${encodeURIComponent(fgkey)}/pay">
${hiddenFields({ ...fields, payer_auth: "confirmed" })}
<button type="submit">Confirm</button>
</form>`;
  return htmlReply(htmlPage("Payer authentication", body));
}

/** The browser goes back to return_url with the result, as a form POST (the page posts itself). */
function returnPage(returnUrl: string, result: Readonly<Record<string, string>>): Reply {
  const body = `<h1>Returning to the shop</h1>
<form id="return" method="post" action="${escapeHtml(returnUrl)}">
${hiddenFields(result)}
<button type="submit">Continue</button>
</form>
<script>document.getElementById("return").submit();</script>`;
  return htmlReply(htmlPage("Payment complete", body));
}

async function pay(request: SandboxRequest<{ fgkey: string }>, ctx: RouteContext): Promise<Reply> {
  const { fgkey } = request.params;
  const window = ctx.ledger.windows.find(fgkey);
  if (window === undefined) return errorPage("Payment not found", "This payment window does not exist.", 404);
  if (window.state === "completed")
    return errorPage("Payment finished", "This payment window was completed before.");
  const fields = Object.fromEntries(
    Object.entries(request.body).map(([name, value]) => [name, String(value)]),
  );
  const cardNumber = (fields.card_number ?? "").replace(/[\s-]/g, "");
  if (cardBehaviour(cardNumber) === "payer_auth_required" && fields.payer_auth !== "confirmed")
    return payerAuthentication(fgkey, fields);
  const card = {
    card_number: cardNumber,
    expiry_date: `${fields.expiry_year ?? ""}${fields.expiry_month ?? ""}`,
    cvc: fields.cvc ?? "",
  };
  try {
    const { result, ready } = await finishWindow(fgkey, card, ctx);
    return returnPage(ready.url.return_url, result);
  } catch (error) {
    if (!(error instanceof ReplyError)) throw error;
    // HE0x: the customer's input; the window stays open for another try.
    const refusal = error.reply.body;
    const resmsg =
      typeof refusal === "object" && refusal !== null && "resmsg" in refusal ? refusal.resmsg : "";
    return cardForm(factsOf(fgkey, window.request), String(resmsg || "The card was not accepted."));
  }
}

export const paymentWindowRoutes: readonly RouteDefinition[] = [
  ...["v1", "v2"].map((version) =>
    defineRoute({
      ...pageRoute,
      name: `window.sdk.${version}`,
      method: "GET",
      path: `/${version}/javascriptSDK.js`,
      handler: (request) => scriptReply(sdkScript(baseOf(request))),
    }),
  ),
  defineRoute({
    ...pageRoute,
    name: "window.open",
    method: "POST",
    path: "/v1/payments/window",
    body: "form",
    handler: openWindow,
  }),
  defineRoute({
    ...pageRoute,
    name: "window.pay",
    method: "POST",
    path: "/v1/payments/window/:fgkey/pay",
    body: "form",
    handler: pay,
  }),
];
