/** What the CLI prints for people fits this many columns (tables and the lines below them). */
export const MAX_WIDTH = 120;

/**
 * A column: its title, and what happens to its cells when the table would be wider than MAX_WIDTH — free text may be
 * cut (an ellipsis marks the cut) or wrapped onto lines of its own; ids, amounts and times are never touched.
 */
export type Column = string | { readonly title: string; readonly fit: "cut" | "wrap" };

const titleOf = (column: Column) => (typeof column === "string" ? column : column.title);
const fitOf = (column: Column) => (typeof column === "string" ? undefined : column.fit);

/** A cell cut to `width`, an ellipsis last. */
const cut = (text: string, width: number) => (text.length <= width ? text : `${text.slice(0, width - 1)}…`);

/** Text broken into lines of at most `width` characters, at spaces where it can be. */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  let rest = text;
  while (rest.length > width) {
    const space = rest.lastIndexOf(" ", width);
    const end = space > 0 ? space : width;
    lines.push(rest.slice(0, end).trimEnd());
    rest = rest.slice(end).trimStart();
  }
  return [...lines, rest];
}

/** A line of prose that fits MAX_WIDTH: wrapped at spaces, later lines indented. */
export function wrapLine(text: string, indent = "  "): string {
  const [first = "", ...rest] = wrapText(text, MAX_WIDTH);
  return [
    first,
    ...rest.flatMap((line) => wrapText(line, MAX_WIDTH - indent.length)).map((line) => indent + line),
  ].join("\n");
}

/** The columns' widths: each its widest cell, the cut or wrapped ones narrowed (widest first) until the table fits. */
function widthsOf(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  maxWidth: number,
): number[] {
  const widths = columns.map((column, index) =>
    Math.max(titleOf(column).length, ...rows.map((row) => row[index]?.length ?? 0)),
  );
  const total = () => widths.reduce((sum, width) => sum + width, 0) + 2 * (widths.length - 1);
  const narrowable = columns.flatMap((column, index) => (fitOf(column) === undefined ? [] : [index]));
  while (total() > maxWidth) {
    const widest = narrowable
      .filter((index) => (widths[index] ?? 0) > Math.max(titleOf(columns[index] ?? "").length, 8))
      .sort((a, b) => (widths[b] ?? 0) - (widths[a] ?? 0))[0];
    if (widest === undefined) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
  }
  return widths;
}

/**
 * Aligned plain-text columns: a header, a rule, then the rows (the last column is not padded). Wider than MAX_WIDTH,
 * the columns that may be cut or wrapped give way.
 */
export function formatTable(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  maxWidth = MAX_WIDTH,
): string {
  const widths = widthsOf(columns, rows, maxWidth);
  const format = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  const lines = (row: readonly string[]): string[] => {
    const cells = row.map((cell, index) => {
      const width = widths[index] ?? cell.length;
      const fit = fitOf(columns[index] ?? "");
      return fit === "wrap" ? wrapText(cell, width) : [fit === "cut" ? cut(cell, width) : cell];
    });
    const height = Math.max(1, ...cells.map((cell) => cell.length));
    return Array.from({ length: height }, (_, line) => format(cells.map((cell) => cell[line] ?? "")));
  };
  const rule = widths.map((width) => "-".repeat(width)).join("  ");
  return [format(columns.map(titleOf)), rule, ...rows.flatMap(lines)].join("\n");
}

/** A UUID (an event's, an SQS message's) as a cell: its first 8 characters, enough to tell rows apart (--json has all). */
export const shortUuid = (id: string): string =>
  /^[0-9a-f]{8}-[0-9a-f-]{27}$/i.test(id) ? `${id.slice(0, 8)}…` : id;
