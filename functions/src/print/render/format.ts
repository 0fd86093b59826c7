// Turns stored field values into the text that is printed, in the document's locale and time zone
// (Intl, with Node's full ICU):
//   - dates:      "4 May 2026" (en-GB), "4. Mai 2026" (de-DE): the calendar date as stored, no zone;
//                 a year before 1 with its era ("0000-05-04": "4 May 1 BC")
//   - date-times: "4 May 2026 at 13:45 UTC", "6. März 2026 um 00:30 MEZ": in the time zone, with its
//                 abbreviation or offset, the locale's clock; to the nearest second, shown only when
//                 not zero, the hour written alike with seconds and without ("04:05:06", "04:05")
//   - numbers:    the locale's separators; groups only from five digits ("2014", "48,250"); whole
//                 numbers below 2^53 every digit, fractions up to 15 significant digits (0.1 + 0.2: 0.3)
//   - booleans:   the locale's "Yes" / "No" (words.ts)
//   - empty:      "—" (EMPTY_MARKER) for null, undefined, "", whitespace only, [] and empty tables
// Defaults: en-GB, UTC. Output depends on the ICU data of the Node.js release: stored PDFs carry the
// renderer's version in their name, so an upgrade that changes it renders them again.

import { wordsFor, type Words } from "./words";

export const DEFAULT_LOCALE = "en-GB";
export const DEFAULT_TIME_ZONE = "UTC";
export const EMPTY_MARKER = "\u2014";

/** A locale Intl formats with (canonical BCP 47), or undefined. */
export const supportedLocale = remembered((locale: string): string | undefined => {
  try {
    const [canonical] = Intl.getCanonicalLocales(locale);
    return Intl.DateTimeFormat.supportedLocalesOf(canonical).length > 0 ? canonical : undefined;
  } catch {
    return undefined;
  }
});

/** An IANA time zone Intl knows (canonical spelling), or undefined. */
export const supportedTimeZone = remembered((timeZone: string): string | undefined => {
  try {
    return new Intl.DateTimeFormat("en", { timeZone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
});

/**
 * Each answer kept for the process: asking Intl costs 0.1-0.3 ms a call (it builds a formatter),
 * measured as 4% of a print job's one-page documents, where every document asks the same. A few
 * hundred inputs are kept at most (what callers send is not bounded in kind).
 */
function remembered(answer: (input: string) => string | undefined): (input: string) => string | undefined {
  const known = new Map<string, string | undefined>();
  return (input) => {
    if (known.has(input)) return known.get(input);
    const value = answer(input);
    if (known.size < 500) known.set(input, value);
    return value;
  };
}

/** How one document formats values: a locale, a time zone and the locale's words. */
export class Formatter {
  readonly locale: string;
  readonly timeZone: string;
  readonly words: Words;
  /** The locale's formats, each made on first use: making them all took 20 ms of a process's first render (ICU's data), and most documents use a few. */
  private readonly formats: Partial<Record<"date" | "instantDate" | "dateTime" | "dateTimeSeconds", Intl.DateTimeFormat> & Record<"number" | "wholeNumber" | "scientific", Intl.NumberFormat>> = {};

  constructor(locale: string = DEFAULT_LOCALE, timeZone: string = DEFAULT_TIME_ZONE) {
    this.locale = locale;
    this.timeZone = timeZone;
    this.words = wordsFor(locale);
  }

  // A calendar date is formatted as the UTC day it names, whatever the document's zone.
  private get dateFormat(): Intl.DateTimeFormat {
    return (this.formats.date ??= new Intl.DateTimeFormat(this.locale, { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" }));
  }

  private get instantDateFormat(): Intl.DateTimeFormat {
    return (this.formats.instantDate ??= new Intl.DateTimeFormat(this.locale, { year: "numeric", month: "long", day: "numeric", timeZone: this.timeZone }));
  }

  private get time(): Intl.DateTimeFormatOptions {
    return { year: "numeric", month: "long", day: "numeric", hour: "numeric", minute: "2-digit", timeZoneName: "short", timeZone: this.timeZone };
  }

  private get dateTimeFormat(): Intl.DateTimeFormat {
    return (this.formats.dateTime ??= new Intl.DateTimeFormat(this.locale, this.time));
  }

  private get dateTimeSecondsFormat(): Intl.DateTimeFormat {
    if (!this.formats.dateTimeSeconds) {
      // With seconds, ICU drops the leading zero of an hour that the locale pads without them (en-GB
      // "04:12" but "4:12:05"): the hour as the format without seconds writes it.
      const probe = new Intl.DateTimeFormat(this.locale, { ...this.time, timeZone: "UTC" }).formatToParts(Date.UTC(2000, 0, 1, 4));
      const hour = probe.find((p) => p.type === "hour")?.value.length === 2 ? "2-digit" : "numeric";
      this.formats.dateTimeSeconds = new Intl.DateTimeFormat(this.locale, { ...this.time, hour, second: "2-digit" });
    }
    return this.formats.dateTimeSeconds;
  }

  private get numberFormat(): Intl.NumberFormat {
    return (this.formats.number ??= new Intl.NumberFormat(this.locale, { maximumSignificantDigits: 15, useGrouping: "min2" }));
  }

  private get wholeNumberFormat(): Intl.NumberFormat {
    return (this.formats.wholeNumber ??= new Intl.NumberFormat(this.locale, { maximumFractionDigits: 0, useGrouping: "min2" }));
  }

  private get scientificFormat(): Intl.NumberFormat {
    return (this.formats.scientific ??= new Intl.NumberFormat(this.locale, { maximumSignificantDigits: 15, notation: "scientific" }));
  }

  /** A calendar date (month0: 0-11). */
  date(year: number, month0: number, day: number): string {
    const d = new Date(Date.UTC(2000, month0, day));
    d.setUTCFullYear(year);
    return this.withEra(this.dateFormat, d).format(d);
  }

  /** The calendar day of an instant in the document's time zone. */
  dateOf(instant: Date): string {
    return this.withEra(this.instantDateFormat, instant).format(instant);
  }

  /** An instant in the document's time zone, to the nearest second; seconds only when not zero. */
  dateTime(instant: Date): string {
    const rounded = new Date(Math.round(instant.getTime() / 1000) * 1000);
    return this.withEra(rounded.getUTCSeconds() ? this.dateTimeSecondsFormat : this.dateTimeFormat, rounded).format(rounded);
  }

  /** The format, naming the era for a date before year 1 (year 0 is 1 BC: without the era it prints as year 1). */
  private withEra(format: Intl.DateTimeFormat, d: Date): Intl.DateTimeFormat {
    if (d.getUTCFullYear() >= 1) return format;
    let era = this.eraFormats.get(format);
    if (!era) {
      era = new Intl.DateTimeFormat(this.locale, { ...(format.resolvedOptions() as Intl.DateTimeFormatOptions), era: "short" });
      this.eraFormats.set(format, era);
    }
    return era;
  }
  private readonly eraFormats = new Map<Intl.DateTimeFormat, Intl.DateTimeFormat>();

  /** An instant with seconds: the footer's generation time. */
  timestamp(instant: Date): string {
    return this.dateTimeSecondsFormat.format(instant);
  }

  number(n: number): string {
    if (Number.isNaN(n)) return "NaN";
    if (n === Infinity) return "Infinity";
    if (n === -Infinity) return "-Infinity";
    if (n === 0) return "0"; // also -0
    // Far from 1, in scientific notation: 1.8E308 written out is 412 characters, 5E-324 is 326.
    const magnitude = Math.abs(n);
    if (magnitude >= 1e22 || magnitude < 1e-6) return this.scientificFormat.format(n);
    // A whole number is an amount or an id someone typed: every digit. Only fractions carry binary noise.
    return (Number.isInteger(n) ? this.wholeNumberFormat : this.numberFormat).format(n);
  }

  boolean(b: boolean): string {
    return b ? this.words.yes : this.words.no;
  }
}

const formatters = new Map<string, Formatter>();

/** The formatter of a locale and time zone (both supported), made once per process. */
export function formatterFor(locale: string = DEFAULT_LOCALE, timeZone: string = DEFAULT_TIME_ZONE): Formatter {
  const key = `${locale}|${timeZone}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Formatter(locale, timeZone);
    if (formatters.size < 500) formatters.set(key, f);
  }
  return f;
}

const defaults = (): Formatter => formatterFor();

/** How a field is laid out; the strings are final (formatted) text. */
export type DisplayValue =
  | { kind: "empty" }
  /** A label/value row. `text` may hold line breaks (each starts a new line). */
  | { kind: "inline"; text: string }
  /** Wrapped paragraphs spanning the page width; line breaks are the author's. */
  | { kind: "paragraphs"; text: string }
  /** Cells are final text; "" is an empty cell. Every row has `columns.length` cells. */
  | { kind: "table"; columns: string[]; rows: string[][]; numeric: boolean[] }
  /** A picture from the bucket, by storage path, with its caption; a signature stands on a rule. */
  | { kind: "image"; storagePath: string; caption: string; signature: boolean };

/** en-GB, UTC: a date-time as the default document prints it. */
export const formatDateTime = (date: Date): string => defaults().dateTime(date);
/** en-GB, UTC: the footer's generation time of the default document. */
export const formatTimestamp = (date: Date): string => defaults().timestamp(date);
/** en-GB: a number as the default document prints it. */
export const formatNumber = (n: number): string => defaults().number(n);

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
// ISO 8601 date-time, as JavaScript's Date.parse reads it reliably.
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** A "YYYY-MM-DD" that names a real calendar day, formatted, else undefined. */
function parseDateOnly(value: string, fmt: Formatter): string | undefined {
  const m = DATE_ONLY.exec(value);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month0 = Number(m[2]) - 1;
  const day = Number(m[3]);
  const d = new Date(Date.UTC(2000, month0, day));
  d.setUTCFullYear(year);
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month0 || d.getUTCDate() !== day) return undefined;
  return fmt.date(year, month0, day);
}

function parseIsoDateTime(value: string): Date | undefined {
  if (!ISO_DATE_TIME.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms) : undefined;
}

/** A Firestore Timestamp (admin SDK object or its serialized forms) or a Date, as a Date. */
function asInstant(value: unknown): Date | undefined {
  if (value instanceof Date) return Number.isFinite(value.getTime()) ? value : undefined;
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  try {
    if (typeof v.toDate === "function") {
      const d: unknown = (v.toDate as () => unknown).call(value);
      if (d instanceof Date && Number.isFinite(d.getTime())) return d;
    }
    const seconds = typeof v.seconds === "number" ? v.seconds : v._seconds;
    const nanos = typeof v.nanoseconds === "number" ? v.nanoseconds : v._nanoseconds;
    if (typeof seconds === "number" && typeof nanos === "number" && Object.keys(v).length === 2) {
      const d = new Date(seconds * 1000 + Math.floor(nanos / 1e6));
      if (Number.isFinite(d.getTime())) return d;
    }
  } catch {
    // a getter or toDate that throws: not an instant
  }
  return undefined;
}

const MAX_FALLBACK_CHARS = 20000;

/**
 * Any value as text: the fallback for values of an unexpected shape. Strings come back whole;
 * JSON-like renderings of objects are cut after MAX_FALLBACK_CHARS characters.
 */
export function genericText(value: unknown, fmt: Formatter = defaults()): string {
  if (typeof value === "string") return value;
  const text = genericInner(value, fmt);
  return text.length > MAX_FALLBACK_CHARS ? `${text.slice(0, MAX_FALLBACK_CHARS)}\u2026` : text;
}

function genericInner(value: unknown, fmt: Formatter): string {
  switch (typeof value) {
    case "string":
      return value;
    case "number":
      return fmt.number(value);
    case "boolean":
      return fmt.boolean(value);
    case "bigint":
      return value.toString();
    case "undefined":
    case "function":
    case "symbol":
      return "";
  }
  if (value === null) return "";
  const instant = asInstant(value);
  if (instant) return fmt.dateTime(instant);
  if (value instanceof Date) return "Invalid date";
  // The set of objects seen made only for an object (numbers are most table cells that are not text).
  return jsonish(value, 0, new Set(), fmt);
}

/** JSON-like text of an object: cycle-safe, depth-limited, never throws (getters are guarded). */
function jsonish(input: unknown, depth: number, seen: Set<object>, fmt: Formatter): string {
  switch (typeof input) {
    case "string":
      return JSON.stringify(input);
    case "number":
    case "boolean":
    case "bigint":
      return String(input);
    case "undefined":
    case "function":
    case "symbol":
      return "null";
  }
  if (input === null) return "null";
  const value = input as object;
  const instant = asInstant(value);
  if (instant) return JSON.stringify(fmt.dateTime(instant));
  if (seen.has(value) || depth >= 6) return Array.isArray(value) ? "[…]" : "{…}";
  // Only plain data is walked: a class instance (a database client's object, say) may hold internals.
  if (!Array.isArray(value) && ![Object.prototype, null].includes(Object.getPrototypeOf(value))) return "{…}";
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      const items: string[] = [];
      for (let i = 0; i < value.length && i < 1000; i++) items.push(jsonish(value[i], depth + 1, seen, fmt));
      if (value.length > 1000) items.push("…");
      return `[${items.join(", ")}]`;
    }
    const parts: string[] = [];
    let keys: string[];
    try {
      keys = Object.keys(value);
    } catch {
      return "{…}";
    }
    for (const key of keys.slice(0, 200)) {
      let item: unknown;
      try {
        item = (value as Record<string, unknown>)[key];
      } catch {
        item = "…";
      }
      if (typeof item === "function" || typeof item === "undefined" || typeof item === "symbol") continue;
      parts.push(`${JSON.stringify(key)}: ${jsonish(item, depth + 1, seen, fmt)}`);
    }
    if (keys.length > 200) parts.push("…");
    return `{${parts.join(", ")}}`;
  } finally {
    seen.delete(value);
  }
}

export function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === "string") return value.trim() === "";
  if (Array.isArray(value)) return value.length === 0;
  return false;
}

/** One table cell's text: numbers formatted, null/"" empty, anything else as generic text. */
function cellText(cell: unknown, fmt: Formatter): string {
  if (cell === null || cell === undefined) return "";
  if (typeof cell === "string") return cell.trim() === "" ? "" : cell;
  return genericText(cell, fmt);
}

function rowCells(row: unknown): unknown[] {
  if (Array.isArray(row)) return row;
  if (typeof row === "object" && row !== null) {
    try {
      const cells = (row as { cells?: unknown }).cells;
      if (Array.isArray(cells)) return cells;
    } catch {
      // fall through
    }
  }
  return [row];
}

/** A table's header and row cells as stored. */
export interface TableShape {
  columns: unknown[];
  rows: unknown[][];
}

/**
 * The header and row cells of a table value ({ columns, rows: [{ cells }] }, or leniently a bare array
 * of rows), else undefined. The print limits measure tables through this too, so they count what is laid out.
 */
export function tableShape(value: unknown): TableShape | undefined {
  let columnsRaw: unknown;
  let rowsRaw: unknown;
  if (Array.isArray(value)) {
    rowsRaw = value;
  } else if (typeof value === "object" && value !== null && !asInstant(value)) {
    try {
      columnsRaw = (value as { columns?: unknown }).columns;
      rowsRaw = (value as { rows?: unknown }).rows;
    } catch {
      return undefined;
    }
    if (!Array.isArray(rowsRaw)) return undefined;
  } else {
    return undefined;
  }
  return { columns: Array.isArray(columnsRaw) ? columnsRaw : [], rows: (rowsRaw as unknown[]).map(rowCells) };
}

/** Columns of a table as laid out: every row is as wide as the header or the longest row. */
export const tableWidth = (shape: TableShape): number =>
  shape.rows.reduce<number>((width, cells) => Math.max(width, cells.length), shape.columns.length);

function tableOf(value: unknown, fmt: Formatter): DisplayValue | undefined {
  const shape = tableShape(value);
  if (!shape) return undefined;
  const columns = shape.columns.map((c) => cellText(c, fmt));
  const cellRows = shape.rows;
  if (cellRows.length === 0) return { kind: "empty" };
  const width = tableWidth(shape);
  if (width === 0) return { kind: "empty" };
  for (let c = columns.length; c < width; c++) columns.push(`Column ${c + 1}`);
  // A column whose filled cells are all numbers is right-aligned.
  const numeric = new Array<boolean>(width).fill(true);
  const filled = new Array<boolean>(width).fill(false);
  // Readings repeat down a column: each number formatted once per table (ICU's format is a microsecond a number).
  const numbers = new Map<number, string>();
  const rows = cellRows.map((cells) => {
    const out = new Array<string>(width);
    for (let c = 0; c < width; c++) {
      const cell = cells[c];
      if (typeof cell === "number") {
        let text = numbers.get(cell);
        if (text === undefined) numbers.set(cell, (text = fmt.number(cell)));
        out[c] = text;
      } else out[c] = cellText(cell, fmt);
      if (out[c] !== "") {
        filled[c] = true;
        if (typeof cell !== "number") numeric[c] = false;
      }
    }
    return out;
  });
  for (let c = 0; c < width; c++) numeric[c] = numeric[c] && filled[c];
  return { kind: "table", columns, rows, numeric };
}

/** `{ storagePath, caption? }` of an image or signature field, else undefined. */
function imageOf(value: unknown): { storagePath: string; caption: string } | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  try {
    const { storagePath, caption } = value as { storagePath?: unknown; caption?: unknown };
    if (typeof storagePath !== "string" || storagePath.trim() === "") return undefined;
    return { storagePath, caption: typeof caption === "string" ? caption : "" };
  } catch {
    return undefined;
  }
}

/** The storage paths of every image and signature field of an instance (what the caller prepares). */
export function imagePaths(instance: unknown): string[] {
  const paths = new Set<string>();
  const sections = (instance as { sections?: unknown } | null)?.sections;
  for (const section of Array.isArray(sections) ? sections : []) {
    const fields = (section as { fields?: unknown } | null)?.fields;
    for (const field of Array.isArray(fields) ? fields : []) {
      const f = field as { type?: unknown; value?: unknown } | null;
      if (f && (f.type === "image" || f.type === "signature")) {
        const picture = imageOf(f.value);
        if (picture) paths.add(picture.storagePath);
      }
    }
  }
  return [...paths];
}

/** How one field is printed. Never throws. */
export function displayValue(type: unknown, value: unknown, fmt: Formatter = defaults()): DisplayValue {
  if (isEmptyValue(value)) return { kind: "empty" };
  switch (type) {
    case "boolean":
      if (typeof value === "boolean") return { kind: "inline", text: fmt.boolean(value) };
      break;
    case "number":
      if (typeof value === "number") return { kind: "inline", text: fmt.number(value) };
      break;
    case "date": {
      if (typeof value === "string") {
        const text = parseDateOnly(value.trim(), fmt);
        if (text) return { kind: "inline", text };
        const instant = parseIsoDateTime(value.trim());
        if (instant) return { kind: "inline", text: fmt.dateOf(instant) };
        break;
      }
      const instant = asInstant(value);
      if (instant) return { kind: "inline", text: fmt.dateOf(instant) };
      break;
    }
    case "datetime": {
      if (typeof value === "string") {
        const instant = parseIsoDateTime(value.trim());
        if (instant) return { kind: "inline", text: fmt.dateTime(instant) };
        const dateOnly = parseDateOnly(value.trim(), fmt);
        if (dateOnly) return { kind: "inline", text: dateOnly };
        break;
      }
      const instant = asInstant(value);
      if (instant) return { kind: "inline", text: fmt.dateTime(instant) };
      break;
    }
    case "multichoice":
      if (Array.isArray(value)) {
        const items = value.map((item) => genericText(item, fmt)).filter((s) => s.trim() !== "");
        if (items.length === 0) return { kind: "empty" };
        if (items.length === 1) return { kind: "inline", text: items[0] };
        return { kind: "inline", text: items.map((s) => `\u2022 ${s}`).join("\n") };
      }
      break;
    case "table": {
      const table = tableOf(value, fmt);
      if (table) return table;
      break;
    }
    case "longtext":
      if (typeof value === "string") return { kind: "paragraphs", text: value };
      break;
    case "image":
    case "signature": {
      const picture = imageOf(value);
      if (picture) return { kind: "image", ...picture, signature: type === "signature" };
      break;
    }
    default:
      // text, email, url, choice and unknown types: a string prints as it is.
      break;
  }
  const text = genericText(value, fmt);
  return text.trim() === "" ? { kind: "empty" } : { kind: "inline", text };
}
