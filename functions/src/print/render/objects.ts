// The file's objects other than the structure tree (catalog, page tree, pages, fonts, pictures,
// metadata), numbered as they are made and serialized as pdf-lib 1.17 serialized them: the form of
// every PDF the renderer wrote while it built them with pdf-lib, which a print job's merged output and
// the pinned hashes read. A dictionary writes an entry a line, `<<\n/Key value\n>>`; an array
// `[ a b ]`; a string given as text `<FEFF...>` in upper-case hex.

const HEX_DIGITS = "0123456789ABCDEF";

export class Ref {
  constructor(readonly number: number) {}
}

/** A literal string, written as it is between parentheses (ASCII: dates, languages, registry names). */
export class Literal {
  constructor(readonly text: string) {}
}

/** A string in hexadecimal, written as it is between angle brackets. */
export class Hex {
  constructor(readonly hex: string) {}

  /** A text string: UTF-16BE with its byte order mark, in upper-case hex. */
  static ofText(text: string): Hex {
    let hex = "FEFF";
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      hex += HEX_DIGITS[c >> 12] + HEX_DIGITS[(c >> 8) & 15] + HEX_DIGITS[(c >> 4) & 15] + HEX_DIGITS[c & 15];
    }
    return new Hex(hex);
  }
}

/**
 * Text of a fixed width, written as it is and overwritten in place once the whole file is known (a
 * signature's /ByteRange and /Contents). The file writer sets `offset`, where its first byte went,
 * when it is a value of an Unpacked object (an object stream's bytes are compressed: no offset there).
 */
export class Placeholder {
  offset = -1;
  constructor(readonly text: string) {}
}

/** A value already serialized, written as it is (kept across documents: a font subset's widths). */
export class Serialized {
  constructor(readonly text: string) {}
}

/**
 * A dictionary written in the file's body as an indirect object of its own, never into an object
 * stream, so that the offsets of its placeholders are known (a signature dictionary).
 */
export class Unpacked {
  constructor(readonly dict: Dict) {}
}

/**
 * Text of the document information and of the XMP packet alike (PDF/A and PDF/UA want them equal, and
 * XML has no control characters): line breaks and tabs as a space, other control characters as U+FFFD,
 * as the page prints them.
 */
export const informationText = (s: string): string =>
  // eslint-disable-next-line no-control-regex -- control characters are what this replaces
  s.toWellFormed().replace(/[\t\n\r\u0085\u2028\u2029]+/g, " ").replace(/[\x00-\x1f\x7f-\x9f]/g, "\ufffd");

/** A date as PDF writes one, in UTC: D:YYYYMMDDHHmmSSZ. */
export function pdfDate(date: Date): Literal {
  const two = (n: number): string => String(n).padStart(2, "0");
  return new Literal(`D:${String(date.getUTCFullYear()).padStart(4, "0")}${two(date.getUTCMonth() + 1)}${two(date.getUTCDate())}${two(date.getUTCHours())}${two(date.getUTCMinutes())}${two(date.getUTCSeconds())}Z`);
}

/** A name is a JavaScript string (written `/Name`); entries whose value is undefined are left out. */
export type Value = number | boolean | string | Ref | Literal | Hex | Placeholder | Serialized | readonly Value[] | Dict;
export interface Dict {
  readonly [key: string]: Value | undefined;
}

/** A stream: its dictionary (the writer adds /Length last) and its data as stored. */
export class Stream {
  constructor(
    readonly dict: Dict,
    readonly data: Uint8Array,
  ) {}
}

/** A number as pdf-lib writes one: never in exponent notation. */
function numberText(n: number): string {
  let text = String(n);
  // Only what String() writes in exponent notation needs more (below 1e-6 and from 1e21).
  if (!text.includes("e")) return text;
  if (Math.abs(n) < 1) {
    const e = parseInt(text.split("e-")[1]);
    if (e) {
      const negative = n < 0;
      const shifted = (negative ? -n : n) * Math.pow(10, e - 1);
      text = `${negative ? "-" : ""}0.${new Array(e).join("0")}${shifted.toString().substring(2)}`;
    }
  } else {
    const e = parseInt(text.split("+")[1]);
    if (e > 20) text = (n / Math.pow(10, e - 20)).toString() + new Array(e - 20 + 1).join("0");
  }
  return text;
}

/** A name's characters outside `!`..`~` and the delimiters and `#` are written as #XX. */
const IRREGULAR = new Set("()<>[]{}/%#");
/** Names written so far (keys and values repeat from object to object; bounded: subset tags make new ones). */
const NAMES = new Map<string, string>();
function nameText(name: string): string {
  let text = NAMES.get(name);
  if (text === undefined) {
    text = encodedName(name);
    if (NAMES.size < 4096) NAMES.set(name, text);
  }
  return text;
}

function encodedName(name: string): string {
  let out = "/";
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    out += code >= 0x21 && code <= 0x7e && !IRREGULAR.has(name[i]) ? name[i] : `#${code.toString(16).padStart(2, "0").toUpperCase()}`;
  }
  return out;
}

export function serialize(value: Value): string {
  switch (typeof value) {
    case "number":
      return numberText(value);
    case "boolean":
      return value ? "true" : "false";
    case "string":
      return nameText(value);
  }
  if (value instanceof Ref) return `${value.number} 0 R`;
  if (value instanceof Literal) return `(${value.text})`;
  if (value instanceof Hex) return `<${value.hex}>`;
  if (value instanceof Placeholder || value instanceof Serialized) return value.text;
  if (Array.isArray(value)) {
    let out = "[ ";
    for (const v of value as readonly Value[]) out += `${serialize(v)} `;
    return `${out}]`;
  }
  let out = "<<\n";
  for (const [key, v] of Object.entries(value as Dict)) if (v !== undefined) out += `${nameText(key)} ${serialize(v)}\n`;
  return `${out}>>`;
}

/** A stream's dictionary with its /Length. */
export const streamDict = (stream: Stream): string => serialize({ ...stream.dict, Length: stream.data.length });

/** The objects of one file, by number: numbers go in the order they are asked for, objects may come later (set). */
export class PdfObjects {
  private readonly byNumber = new Map<number, Value | Stream | Unpacked>();
  private largest = 0;

  /** The next `count` numbers, for objects written later or elsewhere (the structure tree); returns the first. */
  reserve(count = 1): number {
    const first = this.largest + 1;
    this.largest += count;
    return first;
  }

  get largestNumber(): number {
    return this.largest;
  }

  add(value: Value | Stream | Unpacked): Ref {
    const ref = new Ref(this.reserve());
    this.byNumber.set(ref.number, value);
    return ref;
  }

  set(ref: Ref, value: Value | Stream | Unpacked): void {
    this.byNumber.set(ref.number, value);
  }

  /** Every object, by ascending number. */
  entries(): [number, Value | Stream | Unpacked][] {
    return [...this.byNumber].sort((a, b) => a[0] - b[0]);
  }
}
