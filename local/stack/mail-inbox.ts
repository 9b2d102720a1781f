import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { localMailListView } from "../../functions/api/merchant-api-views";
import { headerOf } from "../../functions/lambda/http-event";
import { type Html, html } from "../../functions/pages/shared/html";
import { pageAnswer } from "../../functions/pages/shared/page-layout";
import type { SesStandIn } from "../aws/ses-stand-in";

// GET /local/mail (README, Customer e-mails): what local mode's SES stand-in was given, newest first — JSON for a
// program, an inbox for a person (Accept: text/html), whose links can be clicked (the failed payment's portal link).

/** A mail's plain text with its links made clickable (every other character escaped). */
function textWithLinks(text: string): Html[] {
  return text
    .split(/(https?:\/\/[^\s<>"]+)/g)
    .map((part, index) => (index % 2 === 1 ? html`<a href="${part}">${part}</a>` : html`${part}`));
}

function inbox(mails: SesStandIn["mails"]): Html {
  if (mails.length === 0) return html`<h1>Mail</h1><p>No mail sent yet.</p>`;
  return html`<h1>Mail</h1>
<p class="muted">${mails.length} sent by local mode, newest first.</p>
${mails.map(
  (mail) => html`<section>
<h2>${mail.subject}</h2>
<p class="muted">To ${mail.to.join(", ")} · ${mail.template ?? "mail"} · ${mail.sent_at}</p>
<p style="white-space: pre-wrap">${textWithLinks(mail.text)}</p>
</section>`,
)}`;
}

/** The mails, newest first: JSON unless a browser asks for HTML. */
export function answerLocalMail(
  event: APIGatewayProxyEventV2,
  ses: SesStandIn,
): APIGatewayProxyStructuredResultV2 {
  const mails = ses.mails.toReversed();
  if ((headerOf(event, "accept") ?? "").includes("text/html"))
    return pageAnswer(200, { lang: "en", title: "Mail", main: inbox(mails) });
  return {
    statusCode: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(localMailListView.parse({ mails })),
  };
}
