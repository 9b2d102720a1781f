import type { ChargeAttempt } from "../../core/base/model";
import { type Html, html, jsonForScript } from "./html";
import type { PageContent } from "./page-layout";
import { PAGE_TEXT, type PageLang } from "./page-text";

// The pay button of a payment window prepared for a ledger line (a checkout's try, a new card's payment): the
// gateway's SDK loaded from its own origin, and request_pay called with the prepared parameters, unchanged, when the
// button's form is submitted. The card is typed only in the gateway's window.

export type WindowLaunch = NonNullable<ChargeAttempt["window"]>;

/**
 * Opens the window the way the gateway's SDK expects, from the pay form's submit; says so when the window could not
 * open (no SDK, a blocked pop-up).
 */
const PAY_SCRIPT = `(function () {
  var form = document.getElementById("pay-form");
  var problem = document.getElementById("pay-problem");
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    try {
      EXIMBAY.request_pay(JSON.parse(document.getElementById("request-pay").textContent));
    } catch (error) {
      problem.hidden = false;
    }
  });
})();`;

/** Back from the window in a pop-up: the page that opened it shows the outcome, and the pop-up closes. */
export const RETURN_SCRIPT = `(function () {
  try {
    if (window.opener && window.opener.location.origin === window.location.origin) {
      window.opener.location.replace(window.location.href);
      window.close();
    }
  } catch (error) {}
})();`;

/** The pay button's markup and what the page must allow for it (the SDK's origin, our script). */
export function payButton(
  launch: WindowLaunch,
  lang: PageLang,
  label: string,
): { readonly markup: Html } & Pick<PageContent, "gatewayOrigins" | "scripts"> {
  const text = PAGE_TEXT[lang];
  return {
    markup: html`<script type="application/json" id="request-pay">${jsonForScript(launch.request_pay)}</script>
<script src="${launch.sdk_url}"></script>
<form id="pay-form"><button type="submit">${label}</button></form>
<p id="pay-problem" class="alert" role="alert" hidden>${text.windowBlocked}</p>
<noscript><p class="alert">${text.noScript}</p></noscript>
<p class="muted">${text.cardNote}</p>`,
    gatewayOrigins: [new URL(launch.sdk_url).origin],
    scripts: [PAY_SCRIPT],
  };
}

/** Our own form of an action: a POST carrying the link's form token, its primary action a submit button. */
export const actionForm = (action: string, formToken: string, label: string, secondary = false): Html =>
  html`<form method="post" action="${action}"><input type="hidden" name="form_token" value="${formToken}">
<button type="submit"${secondary ? html` class="secondary"` : ""}>${label}</button></form>`;
