import { randomBytes } from "node:crypto";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { countAnswer } from "../../api/http";
import { logger } from "../../lambda/observability";
import { Html, html } from "./html";
import { PAGE_TEXT, type PageLang } from "./page-text";

// One layout for every page of ours: a small responsive document in the page's language, its own style and scripts
// allowed by a nonce under a strict Content-Security-Policy (the gateway's SDK origin is the only other source),
// never cached, never framed, and no Referer sent to another site (the link's token is in our URLs). Rendering counts
// nothing: a Lambda's answers are counted where its page is served (servePage), so local mode's own pages (the try-it
// page) can use the layout without adding to the functions' metrics.

export interface PageContent {
  readonly lang: PageLang;
  readonly title: string;
  readonly main: Html;
  /** Origins a page may load scripts from and hand the customer to (the gateway's window SDK). */
  readonly gatewayOrigins?: readonly string[];
  /** Our own scripts (constant text), allowed by the page's nonce. */
  readonly scripts?: readonly string[];
  /** Reload after this many seconds (a page waiting for a result)… */
  readonly refreshSeconds?: number;
  /** …at this URL instead of the same. */
  readonly refreshTo?: string;
}

const STYLE = `
:root { color-scheme: light; --ink: #1b1b1f; --muted: #4a4a55; --line: #d5d5dc; --accent: #0b57d0; --bad: #a3161d; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", "Apple SD Gothic Neo", "Malgun Gothic", sans-serif;
  color: var(--ink); background: #f4f4f7; }
main { max-width: 32rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border: 1px solid var(--line);
  border-radius: 12px; }
h1 { font-size: 1.5rem; line-height: 1.25; margin: 0 0 1rem; }
p { margin: 0 0 1rem; }
.muted { color: var(--muted); font-size: 0.9375rem; }
.price { font-size: 1.25rem; font-weight: 600; }
.alert { border-left: 4px solid var(--bad); padding: 0.5rem 0.75rem; background: #fdf1f1; }
dl { display: grid; grid-template-columns: auto 1fr; gap: 0.25rem 1rem; margin: 0 0 1rem; }
dt { color: var(--muted); } dd { margin: 0; }
button, .button { display: inline-block; font: inherit; font-weight: 600; padding: 0.75rem 1.25rem; border-radius: 8px;
  border: 2px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; }
button.secondary, .button.secondary { background: #fff; color: var(--accent); }
button:focus-visible, a:focus-visible, input:focus-visible { outline: 3px solid #f0a000; outline-offset: 2px; }
a { color: var(--accent); }
form { margin: 0 0 1rem; }
label { display: block; font-weight: 600; margin: 0 0 0.25rem; }
input[type=text], input[type=email] { width: 100%; font: inherit; padding: 0.5rem 0.625rem; margin: 0 0 1rem;
  border: 1px solid #767682; border-radius: 8px; }
input[aria-invalid=true] { border-color: var(--bad); border-width: 2px; }
fieldset { border: 0; padding: 0; margin: 0 0 1rem; }
legend { font-weight: 600; padding: 0; margin: 0 0 0.25rem; }
fieldset label { display: flex; gap: 0.5rem; align-items: baseline; font-weight: 400; margin: 0; padding: 0.25rem 0; }
h2 { font-size: 1.125rem; margin: 0 0 0.5rem; }
code { font: 0.9375em ui-monospace, SFMono-Regular, Menlo, monospace; }
section { border-top: 1px solid var(--line); padding-top: 1rem; margin-top: 1rem; }
table { width: 100%; border-collapse: collapse; font-size: 0.9375rem; margin: 0 0 1rem; }
th, td { text-align: left; padding: 0.375rem 0.25rem; border-bottom: 1px solid var(--line); }
@media (max-width: 36rem) { main { margin: 0; border: 0; border-radius: 0; min-height: 100vh; } }
`;

const SECURITY_HEADERS = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "strict-transport-security": "max-age=31536000",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
} as const;

function contentSecurityPolicy(nonce: string, gatewayOrigins: readonly string[]): string {
  const gateway = gatewayOrigins.join(" ");
  const orNone = gateway === "" ? "'none'" : gateway;
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}' ${gateway}`.trim(),
    `style-src 'nonce-${nonce}'`,
    "img-src 'self' data:",
    `connect-src ${orNone}`,
    `frame-src ${orNone}`,
    `form-action 'self' ${gateway}`.trim(),
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export type PageResult = APIGatewayProxyStructuredResultV2;

/** A page: the document and its headers. */
export function pageAnswer(status: number, content: PageContent): PageResult {
  const nonce = randomBytes(16).toString("base64");
  const { lang, title, main, refreshSeconds, refreshTo, scripts = [], gatewayOrigins = [] } = content;
  const refresh = refreshTo === undefined ? `${refreshSeconds}` : `${refreshSeconds}; url=${refreshTo}`;
  const document = html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${refreshSeconds === undefined ? "" : html`<meta http-equiv="refresh" content="${refresh}">`}
<title>${title}</title>
<style nonce="${nonce}">${new Html(STYLE)}</style>
</head>
<body>
<main>
${main}
</main>
${scripts.map((script) => html`<script nonce="${nonce}">${new Html(script)}</script>`)}
</body>
</html>
`;
  return {
    statusCode: status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": contentSecurityPolicy(nonce, gatewayOrigins),
      ...SECURITY_HEADERS,
    },
    body: document.text,
  };
}

/** A short page of a title and a note (expired, refused, not found …). */
export function notePage(status: number, lang: PageLang, title: string, note: string): PageResult {
  return pageAnswer(status, { lang, title, main: html`<h1>${title}</h1><p>${note}</p>` });
}

/** A redirect after a form's POST: the browser GETs `location` (so a reload never repeats the action). */
export function seeOther(location: string): PageResult {
  return { statusCode: 303, headers: { location, ...SECURITY_HEADERS }, body: "" };
}

/**
 * Serves one page of a function: its answer, or — whatever was thrown — a plain error page in the page's language that
 * carries nothing of the error (logged through the redacting logger); either is counted in the answer metrics.
 */
export async function servePage(lang: PageLang, handle: () => Promise<PageResult>): Promise<PageResult> {
  let page: PageResult;
  try {
    page = await handle();
  } catch (error) {
    logger.error("page failed", { error });
    const text = PAGE_TEXT[lang];
    page = notePage(500, lang, text.errorTitle, text.errorNote);
  }
  countAnswer(page.statusCode ?? 200);
  return page;
}
