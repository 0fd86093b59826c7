// The PDF file: objects that are not streams (structure elements above all: one per table cell) go
// into object streams, indexed by a cross-reference stream (PDF 1.5; allowed by PDF/A-2 and
// PDF/UA-1); streams (content, fonts, pictures) go in as they are. Deflated by Node's zlib.

import { deflateSync } from "node:zlib";
import { Ref, serialize, Stream, streamDict, type Dict, type PdfObjects, type Value } from "./objects";

/**
 * Streams are compressed from this size on: below it a deflate call (about 25 µs whatever the size,
 * measured) costs more than the bytes it saves: streamOf and the cross-reference stream.
 */
export const COMPRESS_FROM_BYTES = 1024;

/**
 * A stream's data and its filter. Streams under 1 KiB stay uncompressed: each deflate call costs
 * about 25 µs whatever the size (measured), a document of many scripts has dozens of small ToUnicode
 * maps and subsets, and compressing one saves a few hundred bytes.
 */
export function streamOf(bytes: Uint8Array, dict: Dict = {}, level = 6): Stream {
  return rawStream(streamData(bytes, level), dict);
}

/** A stream's data as it goes into the file: deflated at `level` from COMPRESS_FROM_BYTES on (see streamOf). */
export interface StreamData {
  data: Uint8Array;
  deflated: boolean;
}

export function streamData(bytes: Uint8Array, level = 6): StreamData {
  return bytes.length < COMPRESS_FROM_BYTES ? { data: bytes, deflated: false } : { data: deflateSync(bytes, { level }), deflated: true };
}

/** The stream of prepared data (streamOf's second half, for data kept across documents). */
export function rawStream({ data, deflated }: StreamData, dict: Dict = {}): Stream {
  return new Stream(deflated ? { ...dict, Filter: "FlateDecode" } : dict, data);
}

/** Objects per object stream: large enough to compress well, small enough for readers to index. */
const OBJECTS_PER_STREAM = 200;
/** Deflate level of object streams: structure elements are so alike that the fastest level compresses them nearly as well (measured). */
const OBJECT_STREAM_LEVEL = 1;
/**
 * The caller's packed objects (the structure tree) are stored compressed when they take this much or
 * more. Deflating a page's 5 KB of structure elements took 40-80 µs inside a render (measured: a
 * deflate call meets cold caches there, three times its time in a loop), a twentieth of the page's
 * render, to save 4 KB; a long document's structure (hundreds of KB for a table of thousands of
 * cells) compresses to a fifth. Typst stores its structure uncompressed whatever the size. The other
 * objects (page tree, font dictionaries with their widths) are compressed from COMPRESS_FROM_BYTES.
 */
export const COMPRESS_STRUCTURE_FROM_BYTES = 16 * 1024;

/** Writes a whole number from 0 in decimal at `at`; returns where it ends. */
export function writeInt(buffer: Buffer, at: number, value: number): number {
  if (!(value >= 0 && value <= 0x7fffffff && (value | 0) === value)) {
    // Anything else would write bytes that are not digits, silently.
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`writeInt: ${value} is not a whole number from 0`);
    const digits = String(value);
    for (let i = 0; i < digits.length; i++) buffer[at + i] = digits.charCodeAt(i);
    return at + digits.length;
  }
  // Object numbers, offsets and MCIDs: 32-bit integer arithmetic (a third of the structure's writing
  // took floating-point divisions here, measured).
  const end = at + (value < 10 ? 1 : value < 100 ? 2 : value < 1000 ? 3 : value < 10000 ? 4 : value < 100000 ? 5 : value < 1000000 ? 6 : value < 10000000 ? 7 : value < 100000000 ? 8 : value < 1000000000 ? 9 : 10);
  let v = value;
  for (let i = end - 1; i >= at; i--) {
    const q = (v / 10) | 0;
    buffer[i] = 0x30 + v - q * 10;
    v = q;
  }
  return end;
}

/** Writes an indirect reference, "n 0 R", at `at`; returns where it ends. */
export function writeRef(buffer: Buffer, at: number, number: number): number {
  const end = writeInt(buffer, at, number);
  buffer[end] = 0x20;
  buffer[end + 1] = 0x30;
  buffer[end + 2] = 0x20;
  buffer[end + 3] = 0x52;
  return end + 4;
}

/** Writes text of Latin-1 characters at `at`; returns where it ends. */
export function writeText(buffer: Buffer, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) buffer[at++] = text.charCodeAt(i);
  return at;
}

/**
 * Objects that are not streams, serialized one after another into one buffer, to be cut into object
 * streams by writePdfFile: a tagged page has a hundred structure elements, a long table tens of
 * thousands. An object is written as bytes between begin and end, the caller having made room for
 * it: no string to build, flatten and encode per object (measured: the one-page case's structure
 * took 16 µs as one joined string, 9 µs as bytes, in a loop).
 */
export class PackedObjects {
  private buffer = Buffer.allocUnsafe(16 * 1024);
  private length = 0;
  /** Object numbers, in the order written. */
  readonly numbers: number[] = [];
  /** Where each object ends in the buffer (its separator included). */
  readonly ends: number[] = [];

  /** Starts object `number`, with room for `bytes` bytes of it (text, int and ref write without checking). */
  begin(number: number, bytes: number): this {
    this.numbers.push(number);
    return this.room(bytes);
  }

  /** More room for the object begun last. */
  room(bytes: number): this {
    if (this.length + bytes + 1 <= this.buffer.length) return this;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes + 1));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
    return this;
  }

  /** Text of Latin-1 characters (PDF syntax: names, keys, hex strings), in the room made. */
  text(text: string): this {
    this.length = writeText(this.buffer, this.length, text);
    return this;
  }

  /** A whole number from 0, in the room made (16 bytes at most). */
  int(value: number): this {
    this.length = writeInt(this.buffer, this.length, value);
    return this;
  }

  /** An indirect reference, "n 0 R", in the room made. */
  ref(number: number): this {
    this.length = writeRef(this.buffer, this.length, number);
    return this;
  }

  /** The buffer, for a writer of bytes (writeInt, writeText, or its own stores) from `position` into the room made; then `end(at)`. */
  get bytesOut(): Buffer {
    return this.buffer;
  }

  /** Where the next byte goes. */
  get position(): number {
    return this.length;
  }

  /** Ends the object begun last, at `at` when the caller wrote its bytes itself (bytesOut). */
  end(at = this.length): this {
    this.length = at;
    // Bytes written past the buffer are dropped without a word: a writer that made too little room fails here, not in a reader.
    if (this.length >= this.buffer.length) throw new RangeError(`PackedObjects: object ${this.numbers[this.numbers.length - 1]} outgrew the room made for it`);
    this.buffer[this.length++] = 0x0a;
    this.ends.push(this.length);
    return this;
  }

  /** An object given as a value (objects.ts). */
  object(number: number, value: Value): this {
    const text = serialize(value);
    return this.begin(number, text.length).text(text).end();
  }

  /** Bytes [start, end) of the objects (a view: valid until the next object). */
  slice(start: number, end: number): Buffer {
    return this.buffer.subarray(start, end);
  }

  get count(): number {
    return this.numbers.length;
  }

  /** Bytes of the objects written so far. */
  get bytes(): number {
    return this.length;
  }
}

const STREAM = Buffer.from("\nstream\n", "latin1");
const END_STREAM = Buffer.from("\nendstream\nendobj\n", "latin1");

/** The trailer's references: the catalog, the document information, and the file identifier (hex, written twice). */
export interface Trailer {
  root: Ref;
  info?: Ref;
  id?: string;
}

/**
 * Serializes every object of `objects` (streams as they are, the others into object streams after
 * the `packed` ones: the structure tree, objects numbered in `objects` but written there).
 */
export function writePdfFile(objects: PdfObjects, trailer: Trailer, packed = new PackedObjects()): Uint8Array {
  const chunks: Uint8Array[] = [Buffer.from("%PDF-1.7\n%\x81\x81\x81\x81\n", "latin1")];
  let offset = chunks[0].length;
  const write = (bytes: Uint8Array): void => {
    chunks.push(bytes);
    offset += bytes.length;
  };
  const all = objects.entries();
  const structureObjects = packed.count;
  // Per object number, its cross-reference entry: type (1: at an offset; 2: in an object stream), field 2, field 3.
  // Sized up front for every number: the object streams' (of the packed objects, then of the others) and the cross-reference stream's come last.
  const size = objects.largestNumber + 3 + Math.ceil((packed.count + all.length) / OBJECTS_PER_STREAM);
  const types = new Uint8Array(size);
  const fields2 = new Uint32Array(size);
  const fields3 = new Uint16Array(size);
  fields3[0] = 65535;
  const entry = (number: number, type: number, field2: number, field3: number): void => {
    // Typed arrays drop writes past their end and wrap what does not fit: never silently.
    if (number >= size || field2 > 0xffffffff) throw new RangeError(`writePdfFile: object ${number} at ${field2} does not fit the cross-reference stream`);
    types[number] = type;
    fields2[number] = field2;
    fields3[number] = field3;
  };

  for (const [number, object] of all) {
    if (object instanceof Stream) {
      entry(number, 1, offset, 0);
      write(Buffer.from(`${number} 0 obj\n${streamDict(object)}`, "latin1"));
      write(STREAM);
      write(object.data);
      write(END_STREAM);
    } else {
      packed.object(number, object);
    }
  }
  let next = objects.largestNumber + 1;
  /** Objects [from, to) of `packed` into object streams, compressed when they take `compressFrom` bytes or more. */
  const objectStreams = (from: number, to: number, compressFrom: number): void => {
    const bytes = to > from ? packed.ends[to - 1] - (from > 0 ? packed.ends[from - 1] : 0) : 0;
    for (let first = from; first < to; first += OBJECTS_PER_STREAM) {
      const last = Math.min(first + OBJECTS_PER_STREAM, to);
      const start = first > 0 ? packed.ends[first - 1] : 0;
      const number = next++;
      // The index: pairs of object number and offset, as bytes (a template string per object took 15 µs of the tagged one-page render).
      const head = Buffer.allocUnsafe((last - first) * 34);
      let at = 0;
      for (let k = first; k < last; k++) {
        at = writeInt(head, at, packed.numbers[k]);
        head[at++] = 0x20;
        at = writeInt(head, at, (k > first ? packed.ends[k - 1] : start) - start);
        head[at++] = k < last - 1 ? 0x20 : 0x0a;
        entry(packed.numbers[k], 2, number, k - first);
      }
      const index = head.subarray(0, at);
      const objects = packed.slice(start, packed.ends[last - 1]);
      const data = bytes >= compressFrom ? deflateSync(Buffer.concat([index, objects]), { level: OBJECT_STREAM_LEVEL }) : undefined;
      entry(number, 1, offset, 0);
      write(Buffer.from(`${number} 0 obj\n<</Type/ObjStm/N ${last - first}/First ${at}${data ? "/Filter/FlateDecode" : ""}/Length ${data?.length ?? at + objects.length}>>\nstream\n`, "latin1"));
      if (data) write(data);
      else {
        // Views, valid to the end: every object is packed before this.
        write(index);
        write(objects);
      }
      write(END_STREAM);
    }
  };
  objectStreams(0, structureObjects, COMPRESS_STRUCTURE_FROM_BYTES);
  objectStreams(structureObjects, packed.count, COMPRESS_FROM_BYTES);

  // The cross-reference stream: 1 byte of type, 4 of offset (or object stream number), 2 of generation (or index).
  const xrefNumber = next++;
  entry(xrefNumber, 1, offset, 0);
  const table = Buffer.alloc(next * 7);
  for (let n = 0, at = 0; n < next; n++, at += 7) {
    // Big-endian; a Uint8Array keeps the low 8 bits of what it is given.
    const field2 = fields2[n];
    table[at] = types[n];
    table[at + 1] = field2 >>> 24;
    table[at + 2] = field2 >>> 16;
    table[at + 3] = field2 >>> 8;
    table[at + 4] = field2;
    table[at + 5] = fields3[n] >>> 8;
    table[at + 6] = fields3[n];
  }
  const compress = table.length >= COMPRESS_FROM_BYTES;
  const data = compress ? deflateSync(table) : table;
  const id = trailer.id === undefined ? "" : `/ID [ <${trailer.id}> <${trailer.id}> ]`;
  const keys = `/Root ${trailer.root.number} 0 R${trailer.info ? `/Info ${trailer.info.number} 0 R` : ""}${id}`;
  const start = offset;
  write(Buffer.from(`${xrefNumber} 0 obj\n<</Type/XRef/Size ${next}/W [1 4 2]${keys}${compress ? "/Filter/FlateDecode" : ""}/Length ${data.length}>>\nstream\n`, "latin1"));
  write(data);
  write(Buffer.from(`\nendstream\nendobj\nstartxref\n${start}\n%%EOF\n`, "latin1"));
  return Buffer.concat(chunks);
}
