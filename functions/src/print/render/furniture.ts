// The pages' furniture, drawn once the layout has placed the content and the page count is known:
// the running header (pages after the first carry the title), the footer (the instance id, the
// generation time and "Page X of Y", the target's own line under it), or a template's lines instead,
// and a template's watermark over every page. All of it is pagination artifacts: outside the
// structure tree and the reading order, still extractable as text.
//
// The header and footer run across their band (style.page: headerWidth, footerX, footerWidth), which
// a template's code shortens where it stands.

import { ContentBytes, lineOperators, utf16Hex } from "./content";
import { showLine, type Pages } from "./draw";
import type { Layout } from "./layout";
import type { DocumentModel } from "./model";
import type { DocumentStyle } from "./style";
import { fillLine, type PlaceholderName, type TemplateLine } from "./template";
import type { DocumentText } from "./text";

/** Marked-content brackets of pagination artifacts (running header, footer), when tagged. */
export const PAGINATION = ["/Artifact <</Type /Pagination>> BDC ", " EMC"] as const;

/** A band across the page, before mirroring: its start and width. */
interface Band {
  x: number;
  width: number;
}

/** A hairline rule across a band at height `y`, mirrored in a right-to-left document. */
function rule(out: ContentBytes, style: DocumentStyle, band: Band, y: number, mirror: boolean): void {
  const x = mirror ? style.page.width - band.x - band.width : band.x;
  out.entry().text(style.colors.rule).text(" RG ").num(style.hairline).text(" w ").num(x).byte(0x20).num(y);
  out.text(" m ").num(x + band.width).byte(0x20).num(y).text(" l S");
  out.state.strokeColor = style.colors.rule;
  out.state.lineWidth = style.hairline;
}

/** The running header of pages after the first: the title on one line, and a rule (its operators, copied onto each page as it starts). */
export function runningHeader(style: DocumentStyle, docText: DocumentText, pages: Pages, title: string): Uint8Array {
  const { page, text } = style;
  const [open, close] = pages.structure.tagged ? PAGINATION : ["", ""];
  const rtl = docText.settings.rtl;
  const band = { x: page.marginX, width: page.headerWidth };
  const line = docText.fit(title, false, (band.width * 1000) / text.small.size);
  const out = new ContentBytes(1024).text(open);
  showLine(out.entry(), pages.fonts, text.small, rtl ? page.width - band.x - band.width : band.x, band.width, page.runningHeaderBaseline, line, rtl || line.rtl);
  rule(out, style, band, page.runningHeaderRule, rtl);
  return out.text(close).view;
}

/** A template's line in a band: its start (left) and end (right) parts at the band's ends (swapped in a right-to-left document), its centre centred. */
function templateLine(layout: Layout, out: ContentBytes, parts: readonly string[], band: Band, baseline: number): void {
  const { style, docText, draw: pages } = layout;
  const small = style.text.small;
  const [start, center, end] = parts;
  const gap = style.page.footerGap;
  const widthOf = (line: { width: number }) => (line.width * small.size) / 1000;
  const fitted = (value: string, width: number) => docText.fit(value, false, (Math.max(width, 0) * 1000) / small.size);
  const middle = center ? fitted(center, band.width / 3) : undefined;
  const side = middle ? (band.width - widthOf(middle)) / 2 - gap : band.width;
  const last = end ? fitted(end, middle ? side : start ? band.width / 2 : band.width) : undefined;
  const first = start ? fitted(start, middle ? side : band.width - (last ? widthOf(last) + gap : 0)) : undefined;
  const show = (line: ReturnType<typeof fitted>, x: number) => showLine(out.entry(), pages.fonts, small, layout.left(x, widthOf(line)), widthOf(line), baseline, line, false);
  if (first) show(first, band.x);
  if (middle) show(middle, band.x + (band.width - widthOf(middle)) / 2);
  if (last) show(last, band.x + band.width - widthOf(last));
}

/** Fills a template's line for page `i` of `pages`: its three parts, as printed. */
export type LineFiller = (line: TemplateLine, i: number, pages: number) => string[];

/** A template's text with its placeholders filled (`values` and the instance's fields); one without a value here is a warning. */
export function filler(model: DocumentModel, values: Partial<Record<PlaceholderName, string>>, warnings: Set<string>): (text: string, page?: { i: number; pages: number }) => string {
  // Lines are filled per page: a page number without one is in the code, one symbol for every page.
  const unknown = (placeholder: string) =>
    warnings.add(
      placeholder === "{page}" || placeholder === "{pages}"
        ? `${placeholder} has no value in a code, one symbol the same on every page: printed as nothing`
        : `${placeholder} has no value here (no such field): printed as nothing`,
    );
  const field = (label: string): string | undefined => {
    const text = model.fieldText(label);
    if (text !== null) return text;
    warnings.add(`{field:${label}} is a table or a picture, which a line cannot show: printed as nothing`);
    return "";
  };
  return (text, page) => fillLine(text, page ? { ...values, page: String(page.i + 1), pages: String(page.pages) } : values, field, unknown);
}

/** Fills a template's lines for each page. */
export function lineFiller(fill: ReturnType<typeof filler>): LineFiller {
  return (line, i, pages) => [line.left, line.center, line.right].map((part) => (part ? fill(part, { i, pages }) : ""));
}

/** A template's header on each page it is on (after the first, and the first when it says so), over a rule as the running header's. */
export function templateHeaders(layout: Layout, header: TemplateLine, fill: LineFiller): void {
  const { style, draw: pages } = layout;
  const { page } = style;
  const [open, close] = pages.structure.tagged ? PAGINATION : ["", ""];
  const band = { x: page.marginX, width: page.headerWidth };
  for (let i = header.firstPage ? 0 : 1; i < pages.pages.length; i++) {
    const out = pages.contentOfPage(i);
    out.entry().text(open);
    templateLine(layout, out, fill(header, i, pages.pages.length), band, page.runningHeaderBaseline);
    rule(out, style, band, page.runningHeaderRule, layout.mirror);
    out.text(close);
  }
}

/**
 * Each page's footer: a rule, then the instance id and generation time with "Page X of Y" at the
 * line's end (`footer` the first; swapped in a right-to-left document), or a template's line
 * (`footer` its filler; on the first page unless `firstPage` is false); the target's own line under it.
 */
export function footers(layout: Layout, footer: string | { line: TemplateLine; fill: LineFiller }, footerText: string): void {
  const { style, docText, fmt, draw: pages } = layout;
  const { page, text } = style;
  const [open, close] = pages.structure.tagged ? PAGINATION : ["", ""];
  const band = { x: page.footerX, width: page.footerWidth };
  const pageCount = pages.pages.length;
  for (let i = 0; i < pageCount; i++) {
    const out = pages.contentOfPage(i);
    out.entry().text(open);
    if (typeof footer !== "string") {
      if (i > 0 || footer.line.firstPage !== false) {
        rule(out, style, band, page.footerRule, layout.mirror);
        templateLine(layout, out, footer.fill(footer.line, i, pageCount), band, page.footerBaseline);
      }
    } else {
      const pageLabel = docText.fit(fmt.words.page(i + 1, pageCount), false, Infinity);
      const labelWidth = (pageLabel.width * text.small.size) / 1000;
      const footerWidth = band.width - labelWidth - page.footerGap;
      const footerLine = docText.fit(footer, false, (footerWidth * 1000) / text.small.size);
      rule(out, style, band, page.footerRule, layout.mirror);
      showLine(out.entry(), pages.fonts, text.small, layout.left(band.x, footerWidth), footerWidth, page.footerBaseline, footerLine, layout.mirror);
      showLine(out.entry(), pages.fonts, text.small, layout.left(band.x + band.width - labelWidth, labelWidth), labelWidth, page.footerBaseline, pageLabel, !layout.mirror);
    }
    if (footerText) {
      const line = docText.fit(footerText, false, (band.width * 1000) / text.small.size);
      showLine(out.entry(), pages.fonts, text.small, layout.left(band.x, band.width), band.width, page.footerTextBaseline, line, layout.mirror || line.rtl);
    }
    out.entry().text(close);
  }
}

/** The watermark's grey and its opacity: over the page, photos included, and the text under it still reads. */
const WATERMARK_GREY = "0.35 0.35 0.35";
const WATERMARK_MAX_SIZE = 110;
/** The graphics state the watermark is drawn in (`/GSw gs`): its opacity (PDF/A-2 allows transparency; the output intent gives its colour space). */
export const WATERMARK_STATES = { GSw: { ca: 0.22 } };

/**
 * A watermark: its text large, bold, grey and translucent, corner to corner over each page's
 * content (a photo under it shows it too), a pagination artifact of subtype Watermark. Returns
 * whether it drew one (the file then names its graphics state).
 */
export function watermarks(layout: Layout, text: string): boolean {
  const { style, docText, draw: pages } = layout;
  const { width, height } = style.page;
  const line = docText.fit(text, true, Infinity);
  if (line.width <= 0) return false;
  const angle = Math.atan2(height, width);
  const size = Math.min(WATERMARK_MAX_SIZE, (0.7 * Math.hypot(width, height) * 1000) / line.width);
  const [cos, sin] = [Math.cos(angle), Math.sin(angle)];
  const half = (line.width * size) / 2000;
  // The line's middle at the page's centre, its capitals centred on the diagonal.
  const x = width / 2 - half * cos + 0.35 * size * sin;
  const y = height / 2 - half * sin - 0.35 * size * cos;
  for (let i = 0; i < pages.pages.length; i++) {
    const out = pages.contentOfPage(i).entry();
    if (pages.structure.tagged) out.text("/Artifact <</Type /Pagination /Subtype /Watermark>> BDC ");
    // Extractors read a diagonal line a glyph to a line: its text as one (poppler reads ActualText on a Span only).
    out.text("/Span <</ActualText <FEFF").text(utf16Hex(text)).text(">>> BDC q /GSw gs ");
    const before = { ...out.state };
    out.text(WATERMARK_GREY).text(" rg BT ").num(cos).byte(0x20).num(sin).byte(0x20).num(-sin).byte(0x20).num(cos).byte(0x20).num(x).byte(0x20).num(y).text(" Tm ");
    lineOperators(out, pages.fonts, line, size);
    out.text(" ET Q EMC");
    out.state = before;
    if (pages.structure.tagged) out.text(" EMC");
  }
  return true;
}
