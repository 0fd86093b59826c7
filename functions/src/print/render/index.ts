// The PDF renderer for object instances: a pure module (no Firebase, no I/O besides reading the
// bundled font files once per process). See render.ts for its stages (model, layout, drawing, file),
// style.ts for the layout's numbers, format.ts for the locale and time zone, text/ for fonts,
// shaping, bidi and line breaking.

export type {
  PrintableField,
  PrintableFieldType,
  PrintableInstance,
  PrintableSection,
  PdfSignatureOptions,
  PreparedImage,
  RenderedPdf,
  RenderOptions,
} from "./types";
export { renderInstancePdf, PAGE_WIDTH, PAGE_HEIGHT } from "./render";
export { LayoutLimitExceeded, type LayoutLimit } from "./layoutLimit";
export { PAPER_SIZES, DEFAULT_PAPER_SIZE, type PaperSize } from "./paper";
export {
  DEFAULT_LOCALE,
  DEFAULT_TIME_ZONE,
  EMPTY_MARKER,
  Formatter,
  formatterFor,
  supportedLocale,
  supportedTimeZone,
  displayValue,
  imagePaths,
  formatDateTime,
  formatNumber,
  formatTimestamp,
} from "./format";
export { wordsFor, WORD_LANGUAGES, type Words } from "./words";
export { FONT_FILES } from "./text/fonts";
export { PRODUCER } from "./pdf";
export { SignatureFillError } from "./signature";
