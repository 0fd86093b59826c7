// Renders an object instance to a PDF, in stages:
//   document model (model.ts: the instance as blocks of text)
//   -> layout and pagination (layout.ts, blocks.ts, table.ts: boxes on pages, in the style's geometry)
//   -> drawing (draw.ts, content.ts: PDF operators and the structure's marked content; furniture.ts:
//      headers, footers and watermarks once the page count is known)
//   -> file (pdf.ts, fontUse.ts, structureTree.ts, file.ts: objects, subset fonts, object streams)
//   -> signature, when asked for (signature.ts: the field and its placeholders in the file, then the
//      CMS of signing/cms.ts, loaded only then, in the hole).
// The page geometry, type and colours are one value (style.ts, DocumentStyle) handed through.
//
// A template (template.ts) shapes the model (which sections and fields, in which order and names) and
// the furniture (its own header and footer lines, a watermark), through the same stages.

import { DEFAULT_LOCALE, DEFAULT_TIME_ZONE, EMPTY_MARKER, formatterFor, genericText, supportedLocale, supportedTimeZone, type Formatter } from "./format";
import { Pages } from "./draw";
import { DocumentFonts } from "./fontUse";
import { layoutDocument } from "./blocks";
import { Layout } from "./layout";
import { filler, footers, lineFiller, runningHeader, templateHeaders, WATERMARK_STATES, watermarks } from "./furniture";
import { displayText, documentModel } from "./model";
import { codeOnPages, sizedCode, styleWithCode } from "./pageCode";
import { PAPER_SIZES } from "./paper";
import { assemblePdf, DocumentImages } from "./pdf";
import { SRGB_PROFILE, srgbProfile } from "./profile";
import { fillSignature, prepareSignature } from "./signature";
import { defaultStyle } from "./style";
import { Structure } from "./tags";
import type { DocumentTemplate } from "./template";
import { documentText } from "./text";
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

/** The parts of a template's header and footer lines (undefined where a part is left out). */
const pageLineParts = (template: DocumentTemplate): (string | undefined)[] => [template.header, template.footer].flatMap((l) => (l ? [l.left, l.center, l.right] : []));

/** Every line a template prints, for choosing the document's language and fonts before anything is laid out. */
function templateText(template: DocumentTemplate | undefined): string {
  if (!template) return "";
  const lines = pageLineParts(template);
  return [...lines, template.watermark?.text, ...(template.sections ?? []).flatMap((s) => [s.displayTitle, ...(s.fields ?? []).map((f) => f.displayLabel)])].filter(Boolean).join("\n");
}

/** Renders an object instance to a PDF. Deterministic: the same input gives the same bytes (but for a signature's CMS). */
export async function renderInstancePdf(instance: PrintableInstance, options: RenderOptions): Promise<RenderedPdf> {
  const generatedAt = options?.generatedAt;
  if (!(generatedAt instanceof Date) || !Number.isFinite(generatedAt.getTime())) {
    throw new TypeError("renderInstancePdf: options.generatedAt must be a valid Date");
  }
  const signature = options.signature;
  if (signature && !(signature.signedAt instanceof Date && Number.isFinite(signature.signedAt.getTime()) && signature.signer?.chain?.length > 0)) {
    throw new TypeError("renderInstancePdf: options.signature needs a signer with a certificate chain and a valid signedAt Date");
  }
  const instanceId = String(options.instanceId ?? "");
  // Settings the caller should have validated; the renderer falls back to the defaults rather than throw.
  const locale = (typeof options.locale === "string" && supportedLocale(options.locale)) || undefined;
  const fmt = formatterFor(locale ?? DEFAULT_LOCALE, (typeof options.timeZone === "string" && supportedTimeZone(options.timeZone)) || DEFAULT_TIME_ZONE);
  const template = options.template;
  const model = documentModel(instance, displayText(options.targetName, EMPTY_MARKER, fmt), fmt, options.images instanceof Map ? options.images : new Map(), template);
  const { title, objectTypeName, targetName } = model;
  // Every condition before the warnings are taken: the watermark's is the last.
  const watermark = template?.watermark && model.holds(template.watermark.when) ? template.watermark.text : undefined;
  const warnings = new Set(model.warnings);

  const docText = await documentText(`${title}\n${objectTypeName}\n${targetName}\n${instanceText(instance, fmt)}${template ? `\n${templateText(template)}` : ""}`, locale, options.maxRuns);
  const generated = fmt.timestamp(generatedAt);
  const fill = template && filler(model, { title, objectType: objectTypeName, target: targetName, instanceId, generatedAt: generated }, warnings);
  // Every line once, so that a placeholder without a value is reported even where the line is not printed (a one-page document's header).
  if (template && fill) for (const part of pageLineParts(template)) if (part) fill(part, { i: 0, pages: 1 });
  const code = template?.code && fill ? await sizedCode(template.code, fill(template.code.value), warnings) : undefined;
  const style = code ? styleWithCode(defaultStyle(options.paperSize, options.accentColor), code) : defaultStyle(options.paperSize, options.accentColor);
  const footerText = typeof options.footerText === "string" ? options.footerText.replace(/[\r\n]+/g, " ").trim() : "";
  const fonts = new DocumentFonts(options.tagged === false ? undefined : docText.settings.language);
  const pages = new Pages(fonts, new DocumentImages(), new Structure(options.tagged !== false));
  // A template's header is written once the page count is known; the default one as each page starts.
  let header: Uint8Array | undefined = template?.header ? new Uint8Array(0) : undefined;
  const layout = new Layout(style, docText, fmt, pages, docText.settings.rtl, { pages: options.maxPages ?? Infinity, lines: options.maxLines ?? Infinity }, () => (header ??= runningHeader(style, docText, pages, title)));
  const logo = options.logo && options.logo.width > 0 && options.logo.height > 0 ? options.logo : undefined;
  // The code's Figure where a reader meets it: before the title in the header, beside it after it, last in the footer.
  const codeFigure = () => pages.structure.add("Figure", 0, { alt: code!.value });
  const headerCode = code?.position === "header-right" ? codeFigure() : undefined;
  layoutDocument(layout, model, logo, code?.position === "title-right" ? { code, figure: codeFigure } : undefined);
  // Headers, footers and the watermark, now that the page count is known.
  if (code && code.position !== "title-right") codeOnPages(layout, code, headerCode ?? codeFigure());
  let watermarked = false;
  if (template && fill) {
    const line = lineFiller(fill);
    if (template.header) templateHeaders(layout, template.header, line);
    const footer = template.footer;
    footers(layout, footer ? { line: footer, fill: line } : fmt.words.footer(instanceId, generated), footerText);
    if (watermark) watermarked = watermarks(layout, watermark);
  } else footers(layout, fmt.words.footer(instanceId, generated), footerText);
  docText.release();

  const signing = signature && (await prepareSignature(signature, fmt.words.signature));
  const bytes = assemblePdf(
    style.page.width,
    style.page.height,
    pages.pages.map((_, i) => pages.streamOf(i)),
    fonts.all,
    { title, subject: `${objectTypeName} \u2014 ${targetName}`, keywords: [instanceId], date: generatedAt, language: docText.settings.language },
    {
      images: pages.images,
      structure: pages.structure.tagged ? pages.structure : undefined,
      outputIntent: options.conformance === "PDF/A-2u" ? { profile: srgbProfile(), name: SRGB_PROFILE.name } : undefined,
      signature: signing?.slots,
      graphicsStates: watermarked ? WATERMARK_STATES : undefined,
    },
  );
  if (signing) await fillSignature(bytes, signing.slots, signing.sign);
  return { bytes, pageCount: pages.pages.length, missingCharacters: docText.missing, bidiControlsRemoved: docText.bidiControls, warnings: [...warnings] };
}
