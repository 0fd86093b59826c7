// Renders an object instance to a PDF, in stages:
//   document model (model.ts: the instance as blocks of text)
//   -> layout and pagination (layout.ts, blocks.ts, table.ts: boxes on pages, in the style's geometry)
//   -> drawing (draw.ts, content.ts: PDF operators and the structure's marked content)
//   -> file (pdf.ts, fontUse.ts, structureTree.ts, file.ts: objects, subset fonts, object streams).
// The page geometry, type and colours are one value (style.ts, DocumentStyle) handed through.
//
// Every page ends with a footer: the instance id, the generation time and "Page X of Y" (written once
// the page count is known); pages after the first carry a running header with the title.

import { DEFAULT_LOCALE, DEFAULT_TIME_ZONE, EMPTY_MARKER, formatterFor, genericText, supportedLocale, supportedTimeZone, type Formatter } from "./format";
import { ContentBytes } from "./content";
import { Pages, showLine } from "./draw";
import { DocumentFonts } from "./fontUse";
import { layoutDocument } from "./blocks";
import { Layout } from "./layout";
import { displayText, documentModel } from "./model";
import { PAPER_SIZES } from "./paper";
import { assemblePdf, DocumentImages } from "./pdf";
import { SRGB_PROFILE, srgbProfile } from "./profile";
import { defaultStyle, type DocumentStyle } from "./style";
import { Structure } from "./tags";
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

/** Each page's footer: a rule, the instance id and generation time, "Page X of Y" at the line's end, the target's own line under them. */
function footers(layout: Layout, footer: string, footerText: string): void {
  const { style, docText, fmt, draw: pages } = layout;
  const { page, text } = style;
  const [open, close] = pages.structure.tagged ? PAGINATION : ["", ""];
  const pageCount = pages.pages.length;
  for (let i = 0; i < pageCount; i++) {
    // The page label at the line's end, the footer text in what is left (swapped in a right-to-left document).
    const pageLabel = docText.fit(fmt.words.page(i + 1, pageCount), false, Infinity);
    const labelWidth = (pageLabel.width * text.small.size) / 1000;
    const footerWidth = page.contentWidth - labelWidth - page.footerGap;
    const footerLine = docText.fit(footer, false, (footerWidth * 1000) / text.small.size);
    const out = pages.contentOfPage(i);
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
  const model = documentModel(instance, displayText(options.targetName, EMPTY_MARKER, fmt), fmt, options.images instanceof Map ? options.images : new Map());
  const { title, objectTypeName, targetName } = model;

  const docText = await documentText(`${title}\n${objectTypeName}\n${targetName}\n${instanceText(instance, fmt)}`, locale, options.maxRuns);
  const style = defaultStyle(options.paperSize, options.accentColor);
  const footerText = typeof options.footerText === "string" ? options.footerText.replace(/[\r\n]+/g, " ").trim() : "";
  const fonts = new DocumentFonts(options.tagged === false ? undefined : docText.settings.language);
  const pages = new Pages(fonts, new DocumentImages(), new Structure(options.tagged !== false));
  let header: Uint8Array | undefined;
  const layout = new Layout(style, docText, fmt, pages, docText.settings.rtl, { pages: options.maxPages ?? Infinity, lines: options.maxLines ?? Infinity }, () => (header ??= runningHeader(style, docText, pages, title)));
  const logo = options.logo && options.logo.width > 0 && options.logo.height > 0 ? options.logo : undefined;
  layoutDocument(layout, model, logo);
  // Footers, now that the page count is known.
  footers(layout, fmt.words.footer(instanceId, fmt.timestamp(generatedAt)), footerText);
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
  return { bytes, pageCount: pages.pages.length, missingCharacters: docText.missing, bidiControlsRemoved: docText.bidiControls };
}
