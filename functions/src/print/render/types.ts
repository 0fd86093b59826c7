// The renderer's input and output. Shapes mirror an object instance as stored in Firestore
// (DESIGN.md, "Firestore layout"), but every value is `unknown` at run time: data written by other
// systems can have any shape, and the renderer never throws because of it.

import type { PdfSigner } from "../signing/signer";
import type { DocumentTemplate } from "./template";

export type PrintableFieldType =
  | "text"
  | "longtext"
  | "number"
  | "date"
  | "datetime"
  | "boolean"
  | "choice"
  | "multichoice"
  | "email"
  | "url"
  | "table"
  | "image"
  | "signature";

export interface PrintableField {
  label: string;
  type: PrintableFieldType;
  /**
   * As stored: text/longtext/email/url/choice: string; number: number; date: "YYYY-MM-DD";
   * datetime: ISO 8601 string; boolean; multichoice: string[];
   * table: { columns: string[], rows: { cells: (string | number | null)[] }[] };
   * image, signature: { storagePath: string, caption?: string } (the picture from RenderOptions.images).
   * Empty: null, "", [] or missing. A value of another shape is printed as text.
   */
  value: unknown;
}

export interface PrintableSection {
  title: string;
  fields: PrintableField[];
}

export interface PrintableInstance {
  title: string;
  objectTypeName: string;
  sections: PrintableSection[];
}

export interface RenderOptions {
  /** Printed in every page's footer and written to the PDF's keywords. */
  instanceId: string;
  /** The target's display name (for example the tenant's name), printed in the header. */
  targetName: string;
  /** The generation time: printed in the footer and used as the PDF's creation and modification date. */
  generatedAt: Date;
  /**
   * BCP 47 locale of the document: its /Lang, its direction (right to left for Arabic, Hebrew, ...)
   * and the forms of Han characters. Default: from the content (the language with the most letters).
   */
  locale?: string;
  /** IANA time zone of date-times (default UTC). */
  timeZone?: string;
  /** Portrait paper: "A4" (default), "Letter" or "Legal". */
  paperSize?: string;
  /** "#rrggbb" of headings and rules (default #1c4073). */
  accentColor?: string;
  /** A line of the target's own under every page's footer (default none). */
  footerText?: string;
  /**
   * The pictures of image and signature fields, prepared by the caller (read, checked, scaled), by
   * storage path. A field whose picture is not here prints the locale's "image unavailable".
   */
  images?: ReadonlyMap<string, PreparedImage>;
  /**
   * "PDF/A-2u": also archival (ISO 19005-2, level U: XMP identification, an sRGB output intent).
   * Every PDF is tagged for accessibility (PDF/UA-1) either way. Default: PDF/UA-1 only.
   */
  conformance?: string;
  /** false: no structure and no marked content (only to measure what tagging costs: bench). Default true. */
  tagged?: boolean;
  /** The target's logo, prepared like the pictures: drawn in a box at the head of the first page. */
  logo?: PreparedImage;
  /** A target's print template: which sections and fields, in which order and names, header, footer, watermark (template.ts). Default: the default layout. */
  template?: DocumentTemplate;
  /** Layout stops with LayoutLimitExceeded past this many pages (default: no limit). */
  maxPages?: number;
  /** Layout stops with LayoutLimitExceeded past this many lines of text drawn (default: no limit). */
  maxLines?: number;
  /**
   * Layout stops with LayoutLimitExceeded past this many runs of text (stretches of one font and one
   * direction; a change of script or direction starts a new one) in the whole document (default: no limit).
   */
  maxRuns?: number;
  /**
   * Signs the PDF (PAdES baseline B-B: an invisible signature field, a detached CMS; signature.ts,
   * signing/cms.ts). Signed bytes are not deterministic: the ECDSA signature in /Contents differs
   * from one signing to the next (every other byte does not). Default: unsigned.
   */
  signature?: PdfSignatureOptions;
}

export interface PdfSignatureOptions {
  signer: PdfSigner;
  /** The claimed time of signing: the signature dictionary's /M. */
  signedAt: Date;
  /** The signature dictionary's /Reason and /Name (shown by readers beside the signer). */
  reason?: string;
  name?: string;
}

export interface RenderedPdf {
  bytes: Uint8Array;
  pageCount: number;
  /** Characters that no font has, printed as U+FFFD (for the log). */
  missingCharacters: number;
  /** Explicit bidi embeddings, overrides and isolates removed from the text (text/bidiControls.ts; for the log). */
  bidiControlsRemoved: number;
  /** What the template names that the instance lacks (sections, fields, placeholders): shown by the preview. */
  warnings: string[];
}

/**
 * A picture ready to embed: JPEG bytes as they are (photos), or 8-bit pixels, RGB or grey, with an
 * optional alpha channel of the same size (signatures on a transparent background).
 */
export type PreparedImage =
  | { format: "jpeg"; bytes: Uint8Array; width: number; height: number; channels: 1 | 3 }
  | { format: "pixels"; pixels: Uint8Array; alpha?: Uint8Array; width: number; height: number; channels: 1 | 3 };
