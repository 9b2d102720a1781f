import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** Where npm put the typefaces documents are set in (@embedpdf/fonts-kr's fonts/, every weight of Noto Sans KR). */
export const documentFontDir = (): string =>
  join(dirname(createRequire(import.meta.url).resolve("@embedpdf/fonts-kr")), "..", "fonts");
