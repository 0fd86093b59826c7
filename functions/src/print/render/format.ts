// Turns stored field values into the text that is printed.
//
// ONE locale and ONE time zone for every PDF, whatever the reader's: British English (en-GB)
// conventions in Coordinated Universal Time (UTC).
//   - dates:      "4 May 2026"               (day, full English month name, year)
//   - date-times: "4 May 2026, 13:45 UTC"    (24-hour clock, seconds only when not zero)
//   - numbers:    "4.18", "2014", "48,250"   (point as decimal separator; comma thousands separators
//                 only from 10,000 up, so that years and other four-digit numbers stay ungrouped;
//                 up to 15 significant digits)
//   - booleans:   "Yes" / "No"
//   - empty:      "—" (EMPTY_MARKER) for null, undefined, "", whitespace only, [] and empty tables
// Dates and times are formatted by hand rather than through Intl so that the output cannot change
// with the ICU data of a Node.js upgrade (cached PDFs stay byte-identical).

export const PRINT_LOCALE = "en-GB";
export const PRINT_TIME_ZONE = "UTC";
export const EMPTY_MARKER = "\u2014";
export const YES = "Yes";
export const NO = "No";

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** How a field is laid out; the strings are final (formatted) text. */
export type DisplayValue =
  | { kind: "empty" }
  /** A label/value row. `text` may hold line breaks (each starts a new line). */
  | { kind: "inline"; text: string }
  /** Wrapped paragraphs spanning the page width; line breaks are the author's. */
  | { kind: "paragraphs"; text: string }
  /** Cells are final text; "" is an empty cell. Every row has `columns.length` cells. */
  | { kind: "table"; columns: string[]; rows: string[][]; numeric: boolean[] };

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

/** "4 May 2026" for a UTC calendar date. */
export function formatDateParts(year: number, month0: number, day: number): string {
  return `${day} ${MONTHS[month0]} ${year}`;
}

/** "4 May 2026, 13:45 UTC" (seconds shown only when not zero). */
export function formatDateTime(date: Date): string {
  const time = date.getUTCSeconds()
    ? `${pad2(date.getUTCHours())}:${pad2(date.getUTCMinutes())}:${pad2(date.getUTCSeconds())}`
    : `${pad2(date.getUTCHours())}:${pad2(date.getUTCMinutes())}`;
  return `${formatDateParts(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate())}, ${time} UTC`;
}

/** Like formatDateTime, always with seconds: the footer's generation time. */
export function formatTimestamp(date: Date): string {
  const time = `${pad2(date.getUTCHours())}:${pad2(date.getUTCMinutes())}:${pad2(date.getUTCSeconds())}`;
  return `${formatDateParts(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate())}, ${time} UTC`;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
// ISO 8601 date-time, as JavaScript's Date.parse reads it reliably.
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** A "YYYY-MM-DD" that names a real calendar day, else undefined. */
function parseDateOnly(value: string): string | undefined {
  const m = DATE_ONLY.exec(value);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month0 = Number(m[2]) - 1;
  const day = Number(m[3]);
  const d = new Date(Date.UTC(2000, month0, day));
  d.setUTCFullYear(year);
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month0 || d.getUTCDate() !== day) return undefined;
  return formatDateParts(year, month0, day);
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

const groupedNumber = new Intl.NumberFormat(PRINT_LOCALE, { maximumSignificantDigits: 15, useGrouping: true });
const plainNumber = new Intl.NumberFormat(PRINT_LOCALE, { maximumSignificantDigits: 15, useGrouping: false });

export function formatNumber(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Infinity) return "Infinity";
  if (n === -Infinity) return "-Infinity";
  if (n === 0) return "0"; // also -0
  return (Math.abs(n) >= 10000 ? groupedNumber : plainNumber).format(n);
}

const MAX_FALLBACK_CHARS = 20000;

/**
 * Any value as text: the fallback for values of an unexpected shape. Strings come back whole;
 * JSON-like renderings of objects are cut after MAX_FALLBACK_CHARS characters.
 */
export function genericText(value: unknown): string {
  if (typeof value === "string") return value;
  const text = genericInner(value, 0, new Set());
  return text.length > MAX_FALLBACK_CHARS ? `${text.slice(0, MAX_FALLBACK_CHARS)}\u2026` : text;
}

function genericInner(value: unknown, depth: number, seen: Set<object>): string {
  switch (typeof value) {
    case "string":
      return value;
    case "number":
      return formatNumber(value);
    case "boolean":
      return value ? YES : NO;
    case "bigint":
      return value.toString();
    case "undefined":
    case "function":
    case "symbol":
      return "";
  }
  if (value === null) return "";
  const instant = asInstant(value);
  if (instant) return formatDateTime(instant);
  if (value instanceof Date) return "Invalid date";
  return jsonish(value, depth, seen);
}

/** JSON-like text of an object: cycle-safe, depth-limited, never throws (getters are guarded). */
function jsonish(input: unknown, depth: number, seen: Set<object>): string {
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
  if (instant) return JSON.stringify(formatDateTime(instant));
  if (seen.has(value) || depth >= 6) return Array.isArray(value) ? "[…]" : "{…}";
  // Only plain data is walked: a class instance (a database client's object, say) may hold internals.
  if (!Array.isArray(value) && ![Object.prototype, null].includes(Object.getPrototypeOf(value))) return "{…}";
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      const items: string[] = [];
      for (let i = 0; i < value.length && i < 1000; i++) items.push(jsonish(value[i], depth + 1, seen));
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
      parts.push(`${JSON.stringify(key)}: ${jsonish(item, depth + 1, seen)}`);
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
function cellText(cell: unknown): string {
  if (cell === null || cell === undefined) return "";
  if (typeof cell === "string") return cell.trim() === "" ? "" : cell;
  return genericText(cell);
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

/** A table value ({ columns, rows: [{ cells }] }, or leniently a bare array of rows), else undefined. */
function tableOf(value: unknown): DisplayValue | undefined {
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
  const rowsIn = rowsRaw as unknown[];
  const columns = Array.isArray(columnsRaw) ? columnsRaw.map(cellText) : [];
  const cellRows = rowsIn.map(rowCells);
  if (cellRows.length === 0) return { kind: "empty" };
  let width = columns.length;
  for (const cells of cellRows) width = Math.max(width, cells.length);
  if (width === 0) return { kind: "empty" };
  for (let c = columns.length; c < width; c++) columns.push(`Column ${c + 1}`);
  // A column whose filled cells are all numbers is right-aligned.
  const numeric = new Array<boolean>(width).fill(true);
  const filled = new Array<boolean>(width).fill(false);
  const rows = cellRows.map((cells) => {
    const out = new Array<string>(width);
    for (let c = 0; c < width; c++) {
      const cell = cells[c];
      out[c] = cellText(cell);
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

/** How one field is printed. Never throws. */
export function displayValue(type: unknown, value: unknown): DisplayValue {
  if (isEmptyValue(value)) return { kind: "empty" };
  switch (type) {
    case "boolean":
      if (typeof value === "boolean") return { kind: "inline", text: value ? YES : NO };
      break;
    case "number":
      if (typeof value === "number") return { kind: "inline", text: formatNumber(value) };
      break;
    case "date": {
      if (typeof value === "string") {
        const text = parseDateOnly(value.trim());
        if (text) return { kind: "inline", text };
        const instant = parseIsoDateTime(value.trim());
        if (instant) return { kind: "inline", text: formatDateParts(instant.getUTCFullYear(), instant.getUTCMonth(), instant.getUTCDate()) };
        break;
      }
      const instant = asInstant(value);
      if (instant) return { kind: "inline", text: formatDateParts(instant.getUTCFullYear(), instant.getUTCMonth(), instant.getUTCDate()) };
      break;
    }
    case "datetime": {
      if (typeof value === "string") {
        const instant = parseIsoDateTime(value.trim());
        if (instant) return { kind: "inline", text: formatDateTime(instant) };
        const dateOnly = parseDateOnly(value.trim());
        if (dateOnly) return { kind: "inline", text: dateOnly };
        break;
      }
      const instant = asInstant(value);
      if (instant) return { kind: "inline", text: formatDateTime(instant) };
      break;
    }
    case "multichoice":
      if (Array.isArray(value)) {
        const items = value.map(genericText).filter((s) => s.trim() !== "");
        if (items.length === 0) return { kind: "empty" };
        if (items.length === 1) return { kind: "inline", text: items[0] };
        return { kind: "inline", text: items.map((s) => `\u2022 ${s}`).join("\n") };
      }
      break;
    case "table": {
      const table = tableOf(value);
      if (table) return table;
      break;
    }
    case "longtext":
      if (typeof value === "string") return { kind: "paragraphs", text: value };
      break;
    default:
      // text, email, url, choice and unknown types: a string prints as it is.
      break;
  }
  const text = genericText(value);
  return text.trim() === "" ? { kind: "empty" } : { kind: "inline", text };
}
