// Our pages' HTML is written through one tagged template: every value put into it is escaped unless it is HTML made
// by the same template, so no stored or requested text can become markup.

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);

function part(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(part).join("");
  if (value === undefined || value === null || value === false) return "";
  return escapeHtml(String(value));
}

/** HTML with its values escaped; arrays are joined, undefined, null and false leave nothing. */
export function html(strings: TemplateStringsArray, ...values: readonly unknown[]): Html {
  let text = strings[0] ?? "";
  values.forEach((value, index) => {
    text += part(value) + (strings[index + 1] ?? "");
  });
  return new Html(text);
}

/**
 * JSON for a `<script type="application/json">` block: nothing in it can close the element or start markup (the
 * characters that could are written as JSON escapes, which parse back to themselves).
 */
export const jsonForScript = (value: unknown): Html =>
  new Html(
    JSON.stringify(value)
      .replace(/</g, "\\u003c")
      .replace(/>/g, "\\u003e")
      .replace(/&/g, "\\u0026")
      .replace(/\u2028/g, "\\u2028")
      .replace(/\u2029/g, "\\u2029"),
  );
