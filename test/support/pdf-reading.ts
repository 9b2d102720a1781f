import { createCanvas } from "@napi-rs/canvas";
import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";

// A PDF read back as a person and a machine would: its first page's text (pdf.js's text layer) and that page
// rendered to PNG (pdf.js drawing onto a skia canvas), for tests of the documents we render.

export interface ReadPdf {
  readonly pages: number;
  /** The first page's text runs, in reading order. */
  readonly text: readonly string[];
  /** The first page at 1.5× (about 108 dpi), as PNG. */
  readonly png: Uint8Array;
  /** How much of that page is ink: the share of its pixels that are not near white. */
  readonly inkShare: number;
}

export async function readPdf(bytes: Uint8Array): Promise<ReadPdf> {
  const pdf = await getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise;
  const page = await pdf.getPage(1);
  const content = await page.getTextContent();
  const text = content.items.flatMap((item) => ("str" in item && item.str.trim() !== "" ? [item.str] : []));
  const viewport = page.getViewport({ scale: 1.5 });
  const canvas = createCanvas(Math.ceil(viewport.width), Math.ceil(viewport.height));
  const context = canvas.getContext("2d");
  context.fillStyle = "#fff";
  context.fillRect(0, 0, canvas.width, canvas.height);
  // pdf.js types its canvas as the DOM's; skia's canvas draws the same calls.
  type Render = Parameters<typeof page.render>[0];
  await page.render({
    canvas: canvas as unknown as Render["canvas"],
    canvasContext: context as unknown as Render["canvasContext"],
    viewport,
  }).promise;
  const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
  let ink = 0;
  for (let index = 0; index < pixels.length; index += 4)
    if ((pixels[index] ?? 255) + (pixels[index + 1] ?? 255) + (pixels[index + 2] ?? 255) < 600) ink += 1;
  const pages = pdf.numPages;
  await pdf.destroy();
  return { pages, text, png: canvas.toBuffer("image/png"), inkShare: ink / (pixels.length / 4) };
}
