// Renders an object instance to a PDF, in stages:
//   document model (model.ts: the instance as blocks of text)
//   -> layout and pagination (layout.ts, blocks.ts, table.ts: boxes on pages, in the style's geometry)
//   -> drawing (draw.ts, content.ts: PDF operators and the structure's marked content)
//   -> file (pdf.ts, fontUse.ts, structureTree.ts, file.ts: objects, subset fonts, object streams).
// The page geometry, type and colours are one value (style.ts, DocumentStyle) handed through.
//
// Every page ends with a footer: the instance id, the generation time and "Page X of Y" (written once
// the page count is known); pages after the first carry a running header with the title. A template
// (template.ts) replaces either with its own lines, and may lay a watermark under every page.

import { DEFAULT_LOCALE, DEFAULT_TIME_ZONE, EMPTY_MARKER, formatterFor, genericText, supportedLocale, supportedTimeZone, type Formatter } from "./format";
import { ContentBytes, lineOperators } from "./content";
import { Pages, showLine } from "./draw";
import { DocumentFonts } from "./fontUse";
import { layoutDocument } from "./blocks";
import { Layout } from "./layout";
import { displayText, documentModel, type DocumentModel } from "./model";
import { PAPER_SIZES } from "./paper";
import { assemblePdf, DocumentImages } from "./pdf";
import { SRGB_PROFILE, srgbProfile } from "./profile";
import { defaultStyle, type DocumentStyle } from "./style";
import { Structure } from "./tags";
import { fillLine, holds, type DocumentTemplate, type PlaceholderName, type TemplateLine } from "./template";
import { documentText, type DocumentText } from "./text";
import type { PrintableInstance, RenderedPdf, RenderOptions } from "./types";

export const PAGE_WIDTH = PAPER_SIZES.A4[0];
export const PAGE_HEIGHT = PAPER_SIZES.A4[1];

/** Every string of the instance, for choosing the document's language and loading the shaper when needed. */
function instanceText(instance: unknown, fmt: Formatter): string {
  try {
    return JSON.stringify(instance) ?? "";
  } catch {
    return genericText(instance, fmt);
  }
}

/** Marked-content brackets of pagination artifacts (running header, footer), when tagged. */
const PAGINATION = ["/Artifact <</Type /Pagination>> BDC ", " EMC"] as const;

/** The running header of pages after the first: the title on one line, and a rule (its operators). */
function runningHeader(style: DocumentStyle, docText: DocumentText, pages: Pages, title: string): Uint8Array {
  const { page, text } = style;
  const [open, close] = pages.structure.tagged ? PAGINATION : ["", ""];
  const line = docText.fit(title, false, (page.contentWidth * 1000) / text.small.size);
  const out = new ContentBytes(1024).text(open);
  showLine(out, pages.fonts, text.small, page.marginX, page.contentWidth, page.runningHeaderBaseline, line, docText.settings.rtl || line.rtl);
  out.byte(0x0a).text(style.colors.rule).text(" RG ").num(style.hairline).text(" w ").num(page.marginX).byte(0x20).num(page.runningHeaderRule);
  return out.text(" m ").num(page.marginX + page.contentWidth).byte(0x20).num(page.runningHeaderRule).text(" l S").text(close).view;
}

/** A template's line: its start (left) and end (right) parts aligned to the box's ends (swapped in a right-to-left document), its centre centred. */
function templateLine(layout: Layout, out: ContentBytes, parts: readonly string[], baseline: number): void {
  const { style, docText, draw: pages } = layout;
  const { page, text } = style;
  const size = text.small.size;
  const [start, center, end] = parts;
  const gap = page.footerGap;
  const widthOf = (line: { width: number }) => (line.width * size) / 1000;
  const fitted = (value: string, width: number) => docText.fit(value, false, (Math.max(width, 0) * 1000) / size);
  const middle = center ? fitted(center, page.contentWidth / 3) : undefined;
  const side = middle ? (page.contentWidth - widthOf(middle)) / 2 - gap : page.contentWidth;
  const last = end ? fitted(end, middle ? side : start ? page.contentWidth / 2 : page.contentWidth) : undefined;
  const first = start ? fitted(start, middle ? side : page.contentWidth - (last ? widthOf(last) + gap : 0)) : undefined;
  if (first) showLine(out.entry(), pages.fonts, text.small, layout.left(page.marginX, widthOf(first)), widthOf(first), baseline, first, false);
  if (middle) showLine(out.entry(), pages.fonts, text.small, page.marginX + (page.contentWidth - widthOf(middle)) / 2, widthOf(middle), baseline, middle, false);
  if (last) showLine(out.entry(), pages.fonts, text.small, layout.left(page.marginX + page.contentWidth - widthOf(last), widthOf(last)), widthOf(last), baseline, last, false);
}

/** Fills a template's line for page `i` of `pages` (its parts, as printed). */
type LineFiller = (line: TemplateLine, i: number, pages: number) => string[];

/** A template's header on each page it is on (after the first, and the first when it says so), over a rule as the running header's. */
function templateHeaders(layout: Layout, header: TemplateLine, fill: LineFiller): void {
  const { style, draw: pages } = layout;
  const { page } = style;
  const [open, close] = pages.structure.tagged ? PAGINATION : ["", ""];
  for (let i = header.firstPage ? 0 : 1; i < pages.pages.length; i++) {
    const out = pages.contentOfPage(i);
    out.entry().text(open);
    templateLine(layout, out, fill(header, i, pages.pages.length), page.runningHeaderBaseline);
    out.entry().text(style.colors.rule).text(" RG ").num(style.hairline).text(" w ").num(page.marginX).byte(0x20).num(page.runningHeaderRule);
    out.text(" m ").num(page.marginX + page.contentWidth).byte(0x20).num(page.runningHeaderRule).text(" l S").text(close);
  }
}

/** Each page's footer: a rule, the instance id and generation time, "Page X of Y" at the line's end, the target's own line under them. */
function footers(layout: Layout, footer: string | ((i: number, pages: number) => string[]), footerText: string, firstPage = true): void {
  const { style, docText, fmt, draw: pages } = layout;
  const { page, text } = style;
  const [open, close] = pages.structure.tagged ? PAGINATION : ["", ""];
  const pageCount = pages.pages.length;
  for (let i = 0; i < pageCount; i++) {
    const out = pages.contentOfPage(i);
    if (typeof footer === "function") {
      out.entry().text(open);
      if (i > 0 || firstPage) {
        out.entry().text(style.colors.rule).text(" RG ").num(style.hairline).text(" w ").num(page.marginX).byte(0x20).num(page.footerRule);
        out.text(" m ").num(page.marginX + page.contentWidth).byte(0x20).num(page.footerRule).text(" l S");
        templateLine(layout, out, footer(i, pageCount), page.footerBaseline);
      }
      if (footerText) {
        const line = docText.fit(footerText, false, (page.contentWidth * 1000) / text.small.size);
        showLine(out.entry(), pages.fonts, text.small, page.marginX, page.contentWidth, page.footerTextBaseline, line, layout.mirror || line.rtl);
      }
      out.entry().text(close);
      continue;
    }
    // The page label at the line's end, the footer text in what is left (swapped in a right-to-left document).
    const pageLabel = docText.fit(fmt.words.page(i + 1, pageCount), false, Infinity);
    const labelWidth = (pageLabel.width * text.small.size) / 1000;
    const footerWidth = page.contentWidth - labelWidth - page.footerGap;
    const footerLine = docText.fit(footer, false, (footerWidth * 1000) / text.small.size);
    out.entry().text(open);
    out.entry().text(style.colors.rule).text(" RG ").num(style.hairline).text(" w ").num(page.marginX).byte(0x20).num(page.footerRule);
    out.text(" m ").num(page.marginX + page.contentWidth).byte(0x20).num(page.footerRule).text(" l S");
    showLine(out.entry(), pages.fonts, text.small, layout.left(page.marginX, footerWidth), footerWidth, page.footerBaseline, footerLine, layout.mirror);
    showLine(out.entry(), pages.fonts, text.small, layout.left(page.marginX + page.contentWidth - labelWidth, labelWidth), labelWidth, page.footerBaseline, pageLabel, !layout.mirror);
    if (footerText) {
      const line = docText.fit(footerText, false, (page.contentWidth * 1000) / text.small.size);
      showLine(out.entry(), pages.fonts, text.small, page.marginX, page.contentWidth, page.footerTextBaseline, line, layout.mirror || line.rtl);
    }
    out.entry().text(close);
  }
}

/** Light enough that text under it reads, drawn under every page's content. */
const WATERMARK_GREY = "0.86 0.86 0.86";
const WATERMARK_MAX_SIZE = 110;

/**
 * The watermark: its text large, bold and light, corner to corner across each page, under the
 * page's content, a pagination artifact of subtype Watermark (outside the structure tree; its text
 * extractable still).
 */
function watermarks(layout: Layout, text: string): void {
  const { style, docText, draw: pages } = layout;
  const { width, height } = style.page;
  const line = docText.fit(text, true, Infinity);
  if (line.width <= 0) return;
  const angle = Math.atan2(height, width);
  const size = Math.min(WATERMARK_MAX_SIZE, (0.7 * Math.hypot(width, height) * 1000) / line.width);
  const [cos, sin] = [Math.cos(angle), Math.sin(angle)];
  const half = (line.width * size) / 2000;
  // The line's middle at the page's centre, its capitals centred on the diagonal.
  const x = width / 2 - half * cos + 0.35 * size * sin;
  const y = height / 2 - half * sin - 0.35 * size * cos;
  for (let i = 0; i < pages.pages.length; i++) {
    const out = pages.underlayOf(i);
    if (pages.structure.tagged) out.text("/Artifact <</Type /Pagination /Subtype /Watermark>> BDC ");
    out.text(WATERMARK_GREY).text(" rg BT ").num(cos).byte(0x20).num(sin).byte(0x20).num(-sin).byte(0x20).num(cos).byte(0x20).num(x).byte(0x20).num(y).text(" Tm ");
    lineOperators(out, pages.fonts, line, size);
    out.text(" ET");
    if (pages.structure.tagged) out.text(" EMC");
  }
}

/** Every line a template prints, for choosing the document's language and fonts before anything is laid out. */
function templateText(template: DocumentTemplate | undefined): string {
  if (!template) return "";
  const lines = [template.header, template.footer].flatMap((l) => (l ? [l.left, l.center, l.right] : []));
  return [...lines, template.watermark?.text, ...(template.sections ?? []).flatMap((s) => [s.displayTitle, ...(s.fields ?? []).map((f) => f.displayLabel)])].filter(Boolean).join("\n");
}

/** Fills a template's lines: the document's placeholders, the page's, and the instance's fields; one that names no field is a warning. */
function lineFiller(model: DocumentModel, values: Partial<Record<PlaceholderName, string>>, warnings: Set<string>): LineFiller {
  const unknown = (placeholder: string) => warnings.add(`${placeholder} names no field of the instance: printed as nothing`);
  return (line, i, pages) => {
    const all = { ...values, page: String(i + 1), pages: String(pages) };
    return [line.left, line.center, line.right].map((part) => (part ? fillLine(part, all, model.fieldText, unknown) : ""));
  };
}

/** Renders an object instance to a PDF. Deterministic: the same input gives the same bytes. */
export async function renderInstancePdf(instance: PrintableInstance, options: RenderOptions): Promise<RenderedPdf> {
  const generatedAt = options?.generatedAt;
  if (!(generatedAt instanceof Date) || !Number.isFinite(generatedAt.getTime())) {
    throw new TypeError("renderInstancePdf: options.generatedAt must be a valid Date");
  }
  const instanceId = String(options.instanceId ?? "");
  // Settings the caller should have validated; the renderer falls back to the defaults rather than throw.
  const locale = (typeof options.locale === "string" && supportedLocale(options.locale)) || undefined;
  const fmt = formatterFor(locale ?? DEFAULT_LOCALE, (typeof options.timeZone === "string" && supportedTimeZone(options.timeZone)) || DEFAULT_TIME_ZONE);
  const template = options.template;
  const model = documentModel(instance, displayText(options.targetName, EMPTY_MARKER, fmt), fmt, options.images instanceof Map ? options.images : new Map(), template);
  const { title, objectTypeName, targetName } = model;
  const warnings = new Set(model.warnings);

  const docText = await documentText(`${title}\n${objectTypeName}\n${targetName}\n${instanceText(instance, fmt)}${template ? `\n${templateText(template)}` : ""}`, locale, options.maxRuns);
  const style = defaultStyle(options.paperSize, options.accentColor);
  const footerText = typeof options.footerText === "string" ? options.footerText.replace(/[\r\n]+/g, " ").trim() : "";
  const fonts = new DocumentFonts(options.tagged === false ? undefined : docText.settings.language);
  const pages = new Pages(fonts, new DocumentImages(), new Structure(options.tagged !== false));
  // A template's header is written once the page count is known; the default one as each page starts.
  let header: Uint8Array | undefined = template?.header ? new Uint8Array(0) : undefined;
  const layout = new Layout(style, docText, fmt, pages, docText.settings.rtl, { pages: options.maxPages ?? Infinity, lines: options.maxLines ?? Infinity }, () => (header ??= runningHeader(style, docText, pages, title)));
  const logo = options.logo && options.logo.width > 0 && options.logo.height > 0 ? options.logo : undefined;
  layoutDocument(layout, model, logo);
  // Headers and footers, now that the page count is known.
  const generated = fmt.timestamp(generatedAt);
  if (template) {
    const fill = lineFiller(model, { title, objectType: objectTypeName, target: targetName, instanceId, generatedAt: generated }, warnings);
    if (template.header) templateHeaders(layout, template.header, fill);
    const footer = template.footer;
    footers(layout, footer ? (i, pageCount) => fill(footer, i, pageCount) : fmt.words.footer(instanceId, generated), footerText, footer?.firstPage !== false);
    if (template.watermark && holds(template.watermark.when, model.field)) watermarks(layout, template.watermark.text);
  } else footers(layout, fmt.words.footer(instanceId, generated), footerText);
  docText.release();

  const bytes = assemblePdf(
    style.page.width,
    style.page.height,
    pages.pages.map((_, i) => pages.streamOf(i)),
    fonts.all,
    { title, subject: `${objectTypeName} \u2014 ${targetName}`, keywords: [instanceId], date: generatedAt, language: docText.settings.language },
    pages.images,
    pages.structure.tagged ? pages.structure : undefined,
    options.conformance === "PDF/A-2u" ? { profile: srgbProfile(), name: SRGB_PROFILE.name } : undefined,
  );
  return { bytes, pageCount: pages.pages.length, missingCharacters: docText.missing, bidiControlsRemoved: docText.bidiControls, warnings: [...warnings] };
}
