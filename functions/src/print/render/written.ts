// Reading back a PDF that file.ts wrote: its cross-reference stream, its objects (in object streams
// or at offsets) and their values. Not a reader of any PDF: one file, no incremental updates, no
// encryption, streams deflated or stored, which is all file.ts writes; anything else is an error here
// rather than a wrong merge. The merger (merge.ts) reads each document with it.

import { inflateSync } from "node:zlib";
import { writeInt } from "./file";

/** An indirect reference (generation 0: file.ts writes no other). */
export class Ref {
  constructor(readonly number: number) {}
}

/** A name, as written after its slash (#xx escapes kept). */
export class Name {
  constructor(readonly name: string) {}
}

/** A dictionary's entries by key (a name, without its slash). */
export type Dict = Map<string, Value>;

/** A value: a token kept as written (numbers, strings, true, false, null), a name, a reference, an array or a dictionary. */
export type Value = string | Name | Ref | Value[] | Dict;

const WHITE = new Uint8Array(256);
for (const c of [0, 9, 10, 12, 13, 32]) WHITE[c] = 1;
/** Bytes that end a regular token: white space and the delimiters ( ) < > [ ] { } / %. */
const ENDS_TOKEN = WHITE.slice();
for (const c of "()<>[]{}/%") ENDS_TOKEN[c.charCodeAt(0)] = 1;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

function skipSpace(b: Uint8Array, at: number, end: number): number {
  while (at < end) {
    if (WHITE[b[at]]) at++;
    else if (b[at] === 0x25) while (at < end && b[at] !== 0x0a && b[at] !== 0x0d) at++;
    else break;
  }
  return at;
}

/** Where a literal string that opens at `at` ends (past its closing parenthesis): balanced parentheses, backslash escapes. */
function literalEnd(b: Uint8Array, at: number, end: number): number {
  let depth = 0;
  for (let i = at; i < end; i++) {
    const c = b[i];
    if (c === 0x5c) i++;
    else if (c === 0x28) depth++;
    else if (c === 0x29 && --depth === 0) return i + 1;
  }
  throw new SyntaxError(`unterminated string at ${at}`);
}

/** Where the regular token at `at` ends. */
function tokenEnd(b: Uint8Array, at: number, end: number): number {
  while (at < end && !ENDS_TOKEN[b[at]]) at++;
  return at;
}

const allDigits = (b: Uint8Array, from: number, to: number): boolean => {
  for (let i = from; i < to; i++) if (!isDigit(b[i])) return false;
  return to > from;
};

/** Past "g R" when the digits [from, to) are a reference's object number ("n g R"), else -1. */
function referenceEnd(b: Uint8Array, to: number, end: number): number {
  const generation = skipSpace(b, to, end);
  if (generation === to) return -1;
  const generationEnd = tokenEnd(b, generation, end);
  if (!allDigits(b, generation, generationEnd)) return -1;
  const r = skipSpace(b, generationEnd, end);
  return r > generationEnd && b[r] === 0x52 && (r + 1 >= end || ENDS_TOKEN[b[r + 1]]) ? r + 1 : -1;
}

const latin1 = (b: Uint8Array, from: number, to: number): string => Buffer.from(b.buffer, b.byteOffset + from, to - from).toString("latin1");

/** The value that starts at or after `at`, and where it ends. */
export function parseValue(b: Uint8Array, at: number, end: number): { value: Value; end: number } {
  at = skipSpace(b, at, end);
  const c = b[at];
  if (c === 0x2f) {
    const to = tokenEnd(b, at + 1, end);
    return { value: new Name(latin1(b, at + 1, to)), end: to };
  }
  if (c === 0x5b) {
    const array: Value[] = [];
    for (at = skipSpace(b, at + 1, end); b[at] !== 0x5d; at = skipSpace(b, at, end)) {
      if (at >= end) throw new SyntaxError("unterminated array");
      const item = parseValue(b, at, end);
      array.push(item.value);
      at = item.end;
    }
    return { value: array, end: at + 1 };
  }
  if (c === 0x3c && b[at + 1] === 0x3c) {
    const dict: Dict = new Map();
    for (at = skipSpace(b, at + 2, end); !(b[at] === 0x3e && b[at + 1] === 0x3e); at = skipSpace(b, at, end)) {
      if (at >= end || b[at] !== 0x2f) throw new SyntaxError(`a dictionary key expected at ${at}`);
      const key = tokenEnd(b, at + 1, end);
      const item = parseValue(b, key, end);
      dict.set(latin1(b, at + 1, key), item.value);
      at = item.end;
    }
    return { value: dict, end: at + 2 };
  }
  if (c === 0x3c) {
    const to = b.indexOf(0x3e, at) + 1;
    if (to === 0 || to > end) throw new SyntaxError(`unterminated hex string at ${at}`);
    return { value: latin1(b, at, to), end: to };
  }
  if (c === 0x28) {
    const to = literalEnd(b, at, end);
    return { value: latin1(b, at, to), end: to };
  }
  const to = tokenEnd(b, at, end);
  if (to === at) throw new SyntaxError(`a value expected at ${at}`);
  const reference = allDigits(b, at, to) ? referenceEnd(b, to, end) : -1;
  if (reference >= 0) return { value: new Ref(Number(latin1(b, at, to))), end: reference };
  return { value: latin1(b, at, to), end: to };
}

/** A value as PDF syntax (Latin-1 text: a string token keeps its bytes). */
export function serializeValue(value: Value): string {
  if (typeof value === "string") return value;
  if (value instanceof Name) return `/${value.name}`;
  if (value instanceof Ref) return `${value.number} 0 R`;
  if (Array.isArray(value)) return `[${value.map(serializeValue).join(" ")}]`;
  let out = "<<";
  for (const [key, item] of value) out += `/${key} ${serializeValue(item)}`;
  return `${out}>>`;
}

/** The value with every reference's object number mapped (a copy). */
export function mapReferences(value: Value, map: (number: number) => number): Value {
  if (value instanceof Ref) return new Ref(map(value.number));
  if (Array.isArray(value)) return value.map((item) => mapReferences(item, map));
  if (value instanceof Map) return new Map([...value].map(([key, item]) => [key, mapReferences(item, map)]));
  return value;
}

/** "StructParent", whose value (and StructParents') is a ParentTree key. */
const STRUCT_PARENT = Array.from("StructParent", (c) => c.charCodeAt(0));

/** Whether the name at `at` (past its slash), `length` bytes, is StructParent or StructParents. */
function isStructParentKey(b: Uint8Array, at: number, length: number): boolean {
  if (length !== 12 && !(length === 13 && b[at + 12] === 0x73)) return false;
  for (let k = 0; k < 12; k++) if (b[at + k] !== STRUCT_PARENT[k]) return false;
  return true;
}

/**
 * Copies bytes [from, to) of PDF syntax into `out` at `at`, with each reference's object number
 * mapped and each StructParent(s) key moved by `keyOffset`; returns where it ends. Byte for byte
 * otherwise, without building values or even views (a subarray per token took a third of the time):
 * the structure elements, thousands in a long document, take this path. `out` needs room for three
 * times the bytes (a reference "1 0 R" can become "1234567890 0 R").
 */
export function renumberInto(b: Uint8Array, from: number, to: number, map: (number: number) => number, keyOffset: number, out: Uint8Array, at: number): number {
  let keyNext = false;
  let i = from;
  while (i < to) {
    const c = b[i];
    if (c === 0x3c && b[i + 1] === 0x3c) {
      out[at++] = b[i++];
      out[at++] = b[i++];
    } else if (c === 0x28 || c === 0x3c) {
      // A string, as it is.
      const end = c === 0x28 ? literalEnd(b, i, to) : b.indexOf(0x3e, i) + 1;
      if (end <= i || end > to) throw new SyntaxError(`unterminated string at ${i}`);
      while (i < end) out[at++] = b[i++];
      keyNext = false;
    } else if (c === 0x2f) {
      const name = i + 1;
      out[at++] = b[i++];
      while (i < to && !ENDS_TOKEN[b[i]]) out[at++] = b[i++];
      keyNext = isStructParentKey(b, name, i - name);
    } else if (ENDS_TOKEN[c]) {
      out[at++] = b[i++];
    } else {
      let j = i;
      let value = 0;
      while (j < to && isDigit(b[j])) value = value * 10 + b[j++] - 0x30;
      if (j > i && (j >= to || ENDS_TOKEN[b[j]])) {
        const reference = referenceEnd(b, j, to);
        if (reference >= 0 || keyNext) {
          at = writeInt(out as Buffer, at, reference >= 0 ? map(value) : value + keyOffset);
          for (i = j; i < reference; ) out[at++] = b[i++];
          i = Math.max(i, j);
          keyNext = false;
          continue;
        }
      }
      while (i < to && !ENDS_TOKEN[b[i]]) out[at++] = b[i++];
      keyNext = false;
    }
  }
  return at;
}

/** Where an object's value lies: bytes [start, end) of `source` (the file, or its object stream's decoded data), and a stream's data. */
export interface Located {
  source: Buffer;
  start: number;
  end: number;
  data?: Buffer;
}

/** A string token's text: a literal string of ASCII (a language tag), or a hex string (UTF-16BE with its mark, or bytes). */
export function textOf(token: Value | undefined): string | undefined {
  if (typeof token !== "string") return undefined;
  if (token.startsWith("(")) return token.slice(1, -1).replace(/\\([\\()])/g, "$1");
  const hex = Buffer.from(token.slice(1, -1).replace(/\s/g, ""), "hex");
  if (hex[0] === 0xfe && hex[1] === 0xff) return hex.subarray(2).swap16().toString("utf16le");
  return hex.toString("latin1");
}

export const refOf = (value: Value | undefined, what: string): number => {
  if (!(value instanceof Ref)) throw new SyntaxError(`${what}: a reference expected`);
  return value.number;
};

const intOf = (value: Value | undefined, what: string): number => {
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) throw new SyntaxError(`${what}: a whole number expected`);
  return n;
};

/** A PDF as file.ts writes it, read on demand: the cross-reference stream at once, each object stream when an object in it is asked for. */
export class WrittenPdf {
  /** Objects numbers are below it. */
  readonly size: number;
  readonly trailer: Dict;
  /** The cross-reference stream's own number. */
  readonly xrefNumber: number;
  /** The numbers of the object streams. */
  readonly objectStreams = new Set<number>();
  private readonly types: Uint8Array;
  private readonly fields2: Float64Array;
  private readonly fields3: Uint32Array;
  private readonly decoded = new Map<number, { data: Buffer; offsets: number[] }>();

  constructor(readonly bytes: Buffer) {
    const tail = bytes.subarray(Math.max(0, bytes.length - 64)).toString("latin1");
    const startxref = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
    if (!startxref) throw new SyntaxError("no startxref at the end: not a file of file.ts");
    const xref = this.at(Number(startxref[1]));
    const dict = xref.value;
    if (!(dict instanceof Map) || !(dict.get("Type") instanceof Name) || (dict.get("Type") as Name).name !== "XRef" || !xref.data) throw new SyntaxError("startxref names no cross-reference stream");
    if (dict.has("Prev") || dict.has("Encrypt")) throw new SyntaxError("an updated or encrypted file");
    this.trailer = dict;
    this.xrefNumber = xref.number;
    this.size = intOf(dict.get("Size"), "/Size");
    const w = dict.get("W");
    if (!Array.isArray(w) || w.length !== 3) throw new SyntaxError("the cross-reference stream's /W is not three widths");
    const widths = w.map((width) => intOf(width, "/W"));
    const index = ((dict.get("Index") as Value[] | undefined) ?? ["0", String(this.size)]).map((v) => intOf(v, "/Index"));
    const table = WrittenPdf.decode(dict, xref.data);
    this.types = new Uint8Array(this.size);
    this.fields2 = new Float64Array(this.size);
    this.fields3 = new Uint32Array(this.size);
    const field = (at: number, width: number): number => {
      let v = 0;
      for (let k = 0; k < width; k++) v = v * 256 + table[at + k];
      return v;
    };
    const entry = widths[0] + widths[1] + widths[2];
    let at = 0;
    for (let i = 0; i < index.length; i += 2) {
      for (let n = index[i]; n < index[i] + index[i + 1]; n++, at += entry) {
        if (at + entry > table.length || n >= this.size) throw new SyntaxError("the cross-reference stream is shorter than its /Index");
        this.types[n] = widths[0] === 0 ? 1 : field(at, widths[0]);
        this.fields2[n] = field(at + widths[0], widths[1]);
        this.fields3[n] = field(at + widths[0] + widths[1], widths[2]);
        if (this.types[n] === 2) this.objectStreams.add(this.fields2[n]);
      }
    }
  }

  /** Whether object `n` is in the file (not free). */
  inUse(n: number): boolean {
    return n > 0 && n < this.size && (this.types[n] === 1 || this.types[n] === 2);
  }

  /** Whether object `n` is in an object stream (else at an offset: a stream, as file.ts writes them). */
  inObjectStream(n: number): boolean {
    return this.types[n] === 2;
  }

  /** Where object `n`'s value is. */
  locate(n: number): Located {
    if (!this.inUse(n)) throw new SyntaxError(`object ${n} is not in the file`);
    if (this.types[n] === 1) {
      const { start, end, source, data } = this.at(this.fields2[n]);
      return { source, start, end, data };
    }
    const stream = this.objectStream(this.fields2[n]);
    const k = this.fields3[n];
    if (k >= stream.offsets.length) throw new SyntaxError(`object ${n} is past the end of its object stream`);
    let end = k + 1 < stream.offsets.length ? stream.offsets[k + 1] : stream.data.length;
    while (end > stream.offsets[k] && WHITE[stream.data[end - 1]]) end--;
    return { source: stream.data, start: stream.offsets[k], end };
  }

  value(n: number): Value {
    const { source, start, end } = this.locate(n);
    return parseValue(source, start, end).value;
  }

  dict(n: number, what: string): Dict {
    const value = this.value(n);
    if (!(value instanceof Map)) throw new SyntaxError(`${what} (object ${n}): a dictionary expected`);
    return value;
  }

  /** The object at offset `offset` of the file ("n g obj value [stream ... endstream] endobj"). */
  private at(offset: number): { number: number; value: Value; source: Buffer; start: number; end: number; data?: Buffer } {
    const b = this.bytes;
    const header = /^(\d+) (\d+) obj\s/.exec(b.subarray(offset, offset + 32).toString("latin1"));
    if (!header) throw new SyntaxError(`no object at ${offset}`);
    const start = offset + header[0].length;
    const { value, end } = parseValue(b, start, b.length);
    const after = skipSpace(b, end, b.length);
    if (!(value instanceof Map) || b.toString("latin1", after, after + 6) !== "stream") return { number: Number(header[1]), value, source: b, start, end };
    let dataStart = after + 6;
    if (b[dataStart] === 0x0d) dataStart++;
    if (b[dataStart] === 0x0a) dataStart++;
    const length = intOf(value.get("Length"), "a stream's /Length");
    if (dataStart + length > b.length) throw new SyntaxError(`the stream at ${offset} runs past the end of the file`);
    return { number: Number(header[1]), value, source: b, start, end, data: b.subarray(dataStart, dataStart + length) };
  }

  private objectStream(n: number): { data: Buffer; offsets: number[] } {
    let stream = this.decoded.get(n);
    if (stream) return stream;
    if (this.types[n] !== 1) throw new SyntaxError(`object stream ${n} is not at an offset`);
    const { value, data } = this.at(this.fields2[n]);
    if (!(value instanceof Map) || !data) throw new SyntaxError(`object ${n} is not an object stream`);
    const decoded = WrittenPdf.decode(value, data);
    const count = intOf(value.get("N"), "/N");
    const first = intOf(value.get("First"), "/First");
    const offsets: number[] = [];
    let at = 0;
    for (let k = 0; k < count; k++) {
      at = tokenEnd(decoded, skipSpace(decoded, at, first), first); // the object's number
      let offset = 0;
      const digits = (at = skipSpace(decoded, at, first));
      while (at < first && isDigit(decoded[at])) offset = offset * 10 + decoded[at++] - 0x30;
      if (at === digits) throw new SyntaxError(`object stream ${n}'s index is not pairs of numbers`);
      offsets.push(first + offset);
    }
    stream = { data: decoded, offsets };
    this.decoded.set(n, stream);
    return stream;
  }

  /** A stream's data, decoded: deflated or stored (what file.ts writes). */
  static decode(dict: Dict, data: Buffer): Buffer {
    const filter = dict.get("Filter");
    const name = Array.isArray(filter) && filter.length === 1 ? filter[0] : filter;
    if (name === undefined) return data;
    if (name instanceof Name && name.name === "FlateDecode" && !dict.has("DecodeParms")) return inflateSync(data);
    throw new SyntaxError(`a stream filter file.ts does not write: ${serializeValue(filter!)}`);
  }
}
