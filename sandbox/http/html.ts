// The sandbox's pages (the payment window a person sees): plain server-rendered HTML, every value escaped.

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text made safe for HTML content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);
}

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1b1d21; }
  main { max-width: 26rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border-radius: 8px; }
  h1 { font-size: 1.25rem; margin-top: 0; }
  label { display: block; margin-top: 0.75rem; font-weight: 600; }
  input, select { font: inherit; width: 100%; box-sizing: border-box; padding: 0.5rem; border: 1px solid #6b7280; border-radius: 4px; }
  .row { display: flex; gap: 0.5rem; }
  button { font: inherit; margin-top: 1.25rem; width: 100%; padding: 0.75rem; border: 0; border-radius: 4px; background: #1d4ed8; color: #fff; font-weight: 600; }
  button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
  .error { color: #b91c1c; font-weight: 600; }
  table { border-collapse: collapse; width: 100%; font-size: 0.875rem; margin-top: 1.5rem; }
  th, td { text-align: left; padding: 0.25rem 0.5rem 0.25rem 0; border-bottom: 1px solid #e5e7eb; }
`;

/** A whole page around `body` (HTML the caller built from escaped values). */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** Hidden inputs carrying each field as it is. */
export function hiddenFields(fields: Readonly<Record<string, string>>): string {
  return Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join("\n");
}
