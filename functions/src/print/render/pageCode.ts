// A template's code on the page: its size in points from the symbol (its quiet zone kept clear), the
// room the page makes for it (header-right lowers the content's top and shortens the header's band,
// footer-left raises the content's bottom and moves the footer's band past it; title-right sits
// beside the title like the logo), and its drawing: a Figure whose alternate text is what it encodes,
// on the first page; on later pages (header-right, footer-left) a pagination artifact, as the
// running header is.

import { CodeNotEncodable, codeOperators, encodeCode, type CodeSymbol } from "./codes";
import type { Layout } from "./layout";
import type { DocumentStyle } from "./style";
import type { TemplateCode } from "./template";

const MM = 72 / 25.4;
/** Heights without the quiet zone: 20 mm for the square codes (read from arm's length by a phone), 12 mm for bars. */
const DEFAULT_HEIGHT_MM = { qr: 20, datamatrix: 20, code128: 12 } as const;
/** Code 128's module: 0.33 mm where the page has room, never narrower than 0.19 mm (ISO 15417's practice for scanners), at most 70 mm wide in all. */
const BAR_MODULE_MM = 0.33;
const BAR_MODULE_MIN_MM = 0.19;
const BAR_MAX_WIDTH_MM = 70;
/** Between the code's quiet zone and the content or furniture beside it, and the quiet zone's distance from the paper's edge. */
const CODE_GAP = 8;
const EDGE = 20;
const INK = "0 0 0";

export interface PlacedCode {
  symbol: CodeSymbol;
  /** What it encodes (its alternate text). */
  value: string;
  position: TemplateCode["position"];
  /** The symbol's size in points, and its quiet zone on every side. */
  width: number;
  height: number;
  quiet: number;
}

/** The code's symbol for `value` and its size, or undefined (and a warning) when the symbology cannot carry the value. */
export async function sizedCode(code: TemplateCode, value: string, warnings: Set<string>): Promise<PlacedCode | undefined> {
  let symbol: CodeSymbol;
  try {
    symbol = await encodeCode(code.kind, value);
  } catch (error) {
    if (!(error instanceof CodeNotEncodable)) throw error;
    warnings.add(`${error.message} The code is left out.`);
    return undefined;
  }
  const height = (code.size ?? DEFAULT_HEIGHT_MM[code.kind]) * MM;
  if (symbol.height === 1) {
    const module = Math.min(BAR_MODULE_MM, BAR_MAX_WIDTH_MM / symbol.width) * MM;
    if (module < BAR_MODULE_MIN_MM * MM) warnings.add(`The Code 128 barcode of ${value.length} characters has bars too thin for most scanners (under ${BAR_MODULE_MIN_MM} mm): a shorter value or a QR code reads better.`);
    return { symbol, value, position: code.position, width: symbol.width * module, height, quiet: symbol.quietZone * module };
  }
  const module = height / symbol.height;
  return { symbol, value, position: code.position, width: symbol.width * module, height, quiet: symbol.quietZone * module };
}

/** The style with room made for the code at its position on every page (title-right needs none: the head makes it). */
export function styleWithCode(style: DocumentStyle, code: PlacedCode): DocumentStyle {
  const page = style.page;
  const beside = code.width + code.quiet + CODE_GAP;
  if (code.position === "header-right") {
    const top = Math.min(page.firstTop, page.height - EDGE - 2 * code.quiet - code.height - CODE_GAP);
    const continuationTop = Math.min(page.continuationTop, top);
    return { ...style, page: { ...page, firstTop: top, continuationTop, headerWidth: page.contentWidth - beside, freshCapacity: continuationTop - page.contentBottom } };
  }
  if (code.position === "footer-left") {
    const contentBottom = Math.max(page.contentBottom, EDGE + 2 * code.quiet + code.height + CODE_GAP);
    return { ...style, page: { ...page, contentBottom, footerX: page.marginX + beside, footerWidth: page.contentWidth - beside, freshCapacity: page.continuationTop - contentBottom } };
  }
  return style;
}

/** Draws the symbol with its top-left corner (without the quiet zone) at (x, top) before mirroring, on page `i`: content of `figure`, or an artifact. */
export function drawCode(layout: Layout, code: PlacedCode, i: number, x: number, top: number, figure: number | undefined): void {
  const left = layout.left(x, code.width);
  layout.draw.shapesOn(i, figure, (out) => codeOperators(out, code.symbol, left, top - code.height, code.width, code.height, INK));
}

/** A header-right or footer-left code on every page: a Figure (`figure`) on the first, an artifact on the others. */
export function codeOnPages(layout: Layout, code: PlacedCode, figure: number): void {
  const { page } = layout.style;
  const x = code.position === "header-right" ? page.marginX + page.contentWidth - code.width : page.marginX;
  // The quiet zone inside the paper too: the symbol its width in from the edge's EDGE.
  const top = code.position === "header-right" ? page.height - EDGE - code.quiet : EDGE + code.quiet + code.height;
  for (let i = 0; i < layout.draw.pages.length; i++) drawCode(layout, code, i, x, top, i === 0 ? figure : undefined);
}

/** The room a title-right code takes beside the title: its width with its quiet zone and the gap, and its height with the quiet zone below. */
export const titleCodeBox = (code: PlacedCode) => ({ width: code.width + code.quiet + CODE_GAP, height: code.height + code.quiet });
