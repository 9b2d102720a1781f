import type { RevenueMonth } from "../functions/core/reports/revenue";
import { escapeHtml } from "../functions/pages/shared/html";

// The revenue report's chart: MRR at each month's end, one line per currency (each on its own scale, as currencies
// do not add up), as an SVG file a person opens in any browser.

const WIDTH = 720;
const PANEL_HEIGHT = 220;
const MARGIN = { left: 90, right: 30, top: 40, bottom: 40 };
const COLORS = ["#0b57d0", "#b3261e", "#146c2e", "#7d5260"];

/** One panel per currency: its MRR month by month, the axis from 0 to its highest month. */
export function revenueChartSvg(months: readonly RevenueMonth[]): string {
  const currencies = [...new Set(months.map((month) => month.currency))].sort();
  const labels = [...new Set(months.map((month) => month.month))].sort();
  const height = MARGIN.top + currencies.length * (PANEL_HEIGHT + MARGIN.bottom) + 10;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const x = (index: number) =>
    MARGIN.left + (labels.length <= 1 ? plotWidth / 2 : (index * plotWidth) / (labels.length - 1));
  const panels = currencies.map((currency, panel) => {
    const top = MARGIN.top + panel * (PANEL_HEIGHT + MARGIN.bottom);
    const values = labels.map((label) =>
      Number(months.find((month) => month.month === label && month.currency === currency)?.mrr ?? "0"),
    );
    const max = Math.max(...values, 1);
    const y = (value: number) => top + PANEL_HEIGHT - (value / max) * PANEL_HEIGHT;
    const color = COLORS[panel % COLORS.length];
    const points = values.map((value, index) => `${x(index).toFixed(1)},${y(value).toFixed(1)}`).join(" ");
    const ticks = labels.map(
      (label, index) =>
        `<text x="${x(index).toFixed(1)}" y="${top + PANEL_HEIGHT + 18}" text-anchor="middle">${escapeHtml(label)}</text>`,
    );
    const dots = values.map(
      (value, index) =>
        `<circle cx="${x(index).toFixed(1)}" cy="${y(value).toFixed(1)}" r="3.5" fill="${color}"><title>${escapeHtml(`${labels[index]}: ${value} ${currency}`)}</title></circle>`,
    );
    return [
      `<text x="${MARGIN.left}" y="${top - 12}" font-weight="600">MRR (${escapeHtml(currency)})</text>`,
      `<line x1="${MARGIN.left}" y1="${top + PANEL_HEIGHT}" x2="${WIDTH - MARGIN.right}" y2="${top + PANEL_HEIGHT}" stroke="#767682"/>`,
      `<text x="${MARGIN.left - 8}" y="${top + 4}" text-anchor="end">${max}</text>`,
      `<text x="${MARGIN.left - 8}" y="${top + PANEL_HEIGHT}" text-anchor="end">0</text>`,
      `<polyline points="${points}" fill="none" stroke="${color}" stroke-width="2.5"/>`,
      ...dots,
      ...ticks,
    ].join("\n");
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, sans-serif" font-size="12" fill="#1b1b1f">`,
    `<title>Monthly recurring revenue</title>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    ...panels,
    "</svg>",
    "",
  ].join("\n");
}
