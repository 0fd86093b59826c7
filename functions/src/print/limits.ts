import { MAX_ATTACHMENT_BYTES } from "../config";
import { HttpError } from "../http/errors";
import { tableShape, tableWidth } from "./render/format";
import type { LayoutLimit } from "./render/layoutLimit";

/**
 * The most an object instance may ask of the renderer (SECURITY.md, 9; RELIABILITY.md has the
 * figures). Rendering is synchronous CPU work in the function's process: without bounds one
 * document of a few KB (a table of 1,000 x 3,000 empty cells) blocked an instance for seconds and
 * then ran it out of memory, with every other tenant's requests on it. Each bound sits far above
 * any real form (the demo's 22-page audit uses at most a tenth of each); the costliest document
 * within them takes about 2 s with a peak of about 545 MiB, the process included (bench/limits.ts,
 * RELIABILITY.md).
 */
export const PRINT_LIMITS = {
  /** Sections and fields, counted over the whole instance. */
  sections: 1_000,
  fields: 10_000,
  /** Columns of one table; rows and cells of every table together, as laid out (rows x the widest row, empty cells too). */
  tableColumns: 100,
  tableRows: 10_000,
  tableCells: 25_000,
  /** Characters of every string in the instance (titles, labels, values, cells), and values in all. */
  characters: 1_000_000,
  values: 200_000,
  /**
   * UTF-8 bytes of those strings: what Firestore stores at most in one document (1 MiB), stated so
   * that the renderer's bound does not rest on the database's. A million characters of a shaped
   * script (Devanagari, Thai, Khmer: three bytes each) took 3-3.5 s; a stored document holds a third.
   */
  textBytes: 1_048_576,
  /**
   * Pages of the PDF, checked while laying out (narrow columns of wrapped cells can make a small
   * document thousands of pages long), and its size (a PDF mailed by send-pdf must fit SendGrid's request).
   */
  pages: 500,
  pdfBytes: MAX_ATTACHMENT_BYTES,
  /**
   * Lines of text drawn, checked while laying out: columns narrower than a character wrap every
   * character of a cell to its own line, so 975,000 characters within every other limit made 975,000
   * lines (5 s and 1.4 GiB). The document at the cell and character limits draws 394,000.
   */
  lines: 450_000,
  /**
   * Runs of text (stretches of one font and one direction), counted while shaping: a run costs about
   * 6 µs whatever its length, so 1,000,000 characters whose script or direction changes at every one
   * took about 6 s. Bilingual prose changes about every ten characters; the 864,000-character Arabic
   * paragraph with numbers (bench/limits.ts) makes 96,001.
   */
  runs: 100_000,
} as const;

type Measure = Record<"sections" | "fields" | "tableColumns" | "tableRows" | "tableCells" | "characters" | "values" | "textBytes", number>;

const WHAT: Record<keyof Measure, string> = {
  sections: "sections",
  fields: "fields",
  tableColumns: "columns in one table",
  tableRows: "table rows",
  tableCells: "table cells (rows times columns, empty ones included)",
  characters: "characters of text",
  values: "values",
  textBytes: "bytes of text (UTF-8)",
};

const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const field = (value: unknown, key: string): unknown => (value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined);

/** Counts what the limits bound, in plain data (src/print/plainData.ts): strings, numbers, arrays and plain objects. */
export function measureInstance(instance: unknown): Measure {
  const m: Measure = { sections: 0, fields: 0, tableColumns: 0, tableRows: 0, tableCells: 0, characters: 0, values: 0, textBytes: 0 };
  const text = (s: string): void => {
    m.characters += s.length;
    m.textBytes += Buffer.byteLength(s, "utf8");
  };
  const walk = (value: unknown): void => {
    m.values++;
    if (typeof value === "string") text(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === "object" && !(value instanceof Date)) {
      for (const [key, item] of Object.entries(value)) {
        text(key);
        walk(item);
      }
    }
  };
  walk(instance);
  for (const section of asArray(field(instance, "sections"))) {
    m.sections++;
    for (const f of asArray(field(section, "fields"))) {
      m.fields++;
      const table = field(f, "type") === "table" ? tableShape(field(f, "value")) : undefined;
      const width = table ? tableWidth(table) : 0;
      // A table without rows or cells prints as empty. Counted as laid out: every row is as wide as the widest, so one long row widens them all.
      if (!table || table.rows.length === 0 || width === 0) continue;
      m.tableColumns = Math.max(m.tableColumns, width);
      m.tableRows += table.rows.length;
      m.tableCells += table.rows.length * width;
    }
  }
  return m;
}

export const tooLarge = (what: string, has: number, limit: number) =>
  new HttpError(422, `The object instance is too large to print: it has ${has.toLocaleString("en-GB")} ${what}; the limit is ${limit.toLocaleString("en-GB")}.`);

/** Throws 422 naming the first limit the instance exceeds. */
export function assertWithinLimits(instance: unknown): void {
  const measured = measureInstance(instance);
  for (const key of Object.keys(WHAT) as (keyof Measure)[]) {
    if (measured[key] > PRINT_LIMITS[key]) throw tooLarge(WHAT[key], measured[key], PRINT_LIMITS[key]);
  }
}

const LAYOUT_WHAT: Record<LayoutLimit, string> = {
  pages: "pages",
  lines: "lines of text",
  runs: "runs of text in one font and direction (a change of script or direction starts a new run)",
};

/** The 422 of a document whose layout went past the page, line or run limit (the renderer stops there). */
export const layoutLimitExceeded = (what: LayoutLimit) => {
  const limit = PRINT_LIMITS[what].toLocaleString("en-GB");
  return new HttpError(422, `The object instance is too large to print: it takes more than ${limit} ${LAYOUT_WHAT[what]}; the limit is ${limit}.`);
};

/** Throws 422 when a rendered PDF has more pages or bytes than the limits allow. */
export function assertPdfWithinLimits(pageCount: number, byteLength: number): void {
  if (pageCount > PRINT_LIMITS.pages) throw tooLarge("pages", pageCount, PRINT_LIMITS.pages);
  if (byteLength > PRINT_LIMITS.pdfBytes) throw tooLarge("bytes of PDF", byteLength, PRINT_LIMITS.pdfBytes);
}
