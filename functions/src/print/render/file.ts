// The PDF file: objects that are not streams (structure elements above all: one per table cell) go
// into object streams, indexed by a cross-reference stream (PDF 1.5; allowed by PDF/A-2 and
// PDF/UA-1); streams (content, fonts, pictures) go in as they are. Deflated by Node's zlib.

import { once } from "node:events";
import { finished } from "node:stream/promises";
import { createDeflate, deflateSync } from "node:zlib";
import { Placeholder, Ref, serialize, Stream, streamDict, Unpacked, type Dict, type PdfObjects, type Value } from "./objects";

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
/**
 * Deflate level of the cross-reference stream: its entries repeat so regularly that the fastest level
 * comes within 1% of level 6's size at a third of its time (the 2,000-row table's 142 KB: 0.7 ms
 * instead of 3.0 ms, 45.0 KB instead of 44.7; measured in a loop).
 */
const CROSS_REFERENCE_LEVEL = 1;
/** Deflate level of object streams: structure elements are so alike that the fastest level compresses them nearly as well (measured). */
const OBJECT_STREAM_LEVEL = 1;
/**
 * The caller's packed objects (the structure tree) are stored compressed when they take this much or
 * more. Deflating a page's 5 KB of structure elements took 40-80 µs inside a render (measured: a
 * deflate call meets cold caches there, three times its time in a loop), a twentieth of the page's
 * render, to save 4 KB; a long document's structure (hundreds of KB for a table of thousands of
 * cells) compresses to a fifth. Typst stores its structure uncompressed whatever the size. The other
 * objects (page tree, font dictionaries with their widths) are compressed from COMPRESS_FROM_BYTES:
 * stored as they are, a one-page document's 2.8 KB would make it 6% faster and 8% larger, and its
 * untagged form larger than pdfmake's (measured in session 18).
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
/** A PDF 1.7 file's first line, and a comment of bytes over 127 (a binary file, as PDF/A asks). */
export const PDF_HEADER = Buffer.from("%PDF-1.7\n%\x81\x81\x81\x81\n", "latin1");

/** A file's bytes as they are written, and the offset the next goes to (cross-reference entries). */
export class FileBytes {
  private chunks: Uint8Array[] = [];
  offset = 0;

  write(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.offset += bytes.length;
  }

  /** What was written since the last take, as one buffer (the offset goes on counting): a writer that streams takes it piece by piece. */
  take(): Buffer {
    const bytes = Buffer.concat(this.chunks);
    this.chunks = [];
    return bytes;
  }
}

/**
 * The cross-reference entries: type 1 (at an offset: field 2) or type 2 (in object stream field 2, at
 * index field 3), kept as runs: a type 2 entry that follows the one before in number, stream and
 * index extends its run. An object stream's objects are numbered in a row (by the renderer and by the
 * merger), so a merged file of millions of objects keeps a run per stream and an entry per stream
 * object (content, fonts, pictures), not 11 bytes per object; numbers may come in any order.
 */
/** Cross-reference entries generated at a time (the table of a merged file can have millions). */
const ENTRIES_PER_CHUNK = 65536;

export class CrossReferences {
  /** Per run: first number, count, type, field 2, field 3 of its first entry. */
  private runs = new Float64Array(5 * 64);
  private count = 0;

  set(number: number, type: 1 | 2, field2: number, field3: number): void {
    // Two bytes of field 3 (an object stream holds OBJECTS_PER_STREAM); numbers of four bytes as the writer's.
    if (field3 > 0xffff || !(number > 0 && number <= 0xffffffff)) throw new RangeError(`CrossReferences: object ${number} (${field2}, ${field3}) does not fit`);
    const r = this.runs;
    const last = 5 * (this.count - 1);
    if (type === 2 && this.count > 0 && r[last + 2] === 2 && r[last + 3] === field2 && r[last] + r[last + 1] === number && r[last + 4] + r[last + 1] === field3) {
      r[last + 1]++;
      return;
    }
    if (5 * (this.count + 1) > r.length) {
      this.runs = new Float64Array(r.length * 2);
      this.runs.set(r);
    }
    this.runs.set([number, 1, type, field2, field3], 5 * this.count++);
  }

  /**
   * The cross-reference stream's data for objects 0 to `size` - 1 (free where no entry was set), a
   * chunk at a time, and the width of its field 2 (4 bytes; more past 4 GiB: a merged file of
   * thousands of documents with pictures can get there).
   */
  table(size: number): { width: number; chunks: Generator<Buffer> } {
    const runs = Array.from({ length: this.count }, (_, i) => i).sort((a, b) => this.runs[5 * a] - this.runs[5 * b]);
    let largest = 0;
    for (let i = 0; i < this.count; i++) largest = Math.max(largest, this.runs[5 * i + 3]);
    let width = 4;
    while (largest >= 2 ** (8 * width)) width++;
    // Buffer's writeUIntBE writes 6 bytes at most: offsets up to 256 TiB.
    if (width > 6) throw new RangeError(`CrossReferences: an offset of ${largest}`);
    return { width, chunks: this.chunks(runs, size, width) };
  }

  private *chunks(order: number[], size: number, width: number): Generator<Buffer> {
    const r = this.runs;
    const entry = width + 3;
    let run = 0;
    let runEnd = order.length > 0 ? r[5 * order[0]] + r[5 * order[0] + 1] : 0;
    for (let from = 0; from < size; from += ENTRIES_PER_CHUNK) {
      const to = Math.min(size, from + ENTRIES_PER_CHUNK);
      // Zeros: free entries, but for object 0's generation (the free list's head).
      const table = Buffer.alloc((to - from) * entry);
      if (from === 0) table.writeUInt16BE(65535, width + 1);
      for (let n = from, at = 0; n < to; n++, at += entry) {
        while (run < order.length && runEnd <= n) if (++run < order.length) runEnd = r[5 * order[run]] + r[5 * order[run] + 1];
        if (run === order.length) break;
        const i = 5 * order[run];
        if (r[i] > n) continue;
        // Big-endian, as /W says; a Uint8Array keeps the low 8 bits of what it is given.
        const field2 = r[i + 3];
        const field3 = r[i + 2] === 2 ? r[i + 4] + n - r[i] : r[i + 4];
        table[at] = r[i + 2];
        if (width === 4) {
          table[at + 1] = field2 >>> 24;
          table[at + 2] = field2 >>> 16;
          table[at + 3] = field2 >>> 8;
          table[at + 4] = field2;
        } else table.writeUIntBE(field2, at + 1, width);
        table[at + width + 1] = field3 >>> 8;
        table[at + width + 2] = field3;
      }
      yield table;
    }
  }

  /**
   * The cross-reference stream as object `number`, the last (entries 0 to `number`), written at the
   * file's offset with the trailer's entries (`/Root n 0 R...`), then the file's end.
   */
  write(file: FileBytes, number: number, trailer: string): void {
    const start = file.offset;
    this.set(number, 1, start, 0);
    const { width, chunks } = this.table(number + 1);
    const table = Buffer.concat([...chunks]);
    const compress = table.length >= COMPRESS_FROM_BYTES;
    this.writeStream(file, number, trailer, width, start, compress ? [deflateSync(table, { level: CROSS_REFERENCE_LEVEL })] : [table], compress);
  }

  /** write's, for a table of any size: deflated a chunk at a time, so that only its compressed bytes are held (millions of entries are tens of megabytes raw). */
  async writeDeflated(file: FileBytes, number: number, trailer: string): Promise<void> {
    const start = file.offset;
    this.set(number, 1, start, 0);
    const { width, chunks } = this.table(number + 1);
    const deflate = createDeflate({ level: CROSS_REFERENCE_LEVEL });
    const compressed: Buffer[] = [];
    deflate.on("data", (chunk: Buffer) => compressed.push(chunk));
    for (const chunk of chunks) if (!deflate.write(chunk)) await once(deflate, "drain");
    deflate.end();
    await finished(deflate);
    this.writeStream(file, number, trailer, width, start, compressed, true);
  }

  private writeStream(file: FileBytes, number: number, trailer: string, width: number, start: number, data: Buffer[], compressed: boolean): void {
    const length = data.reduce((sum, chunk) => sum + chunk.length, 0);
    file.write(Buffer.from(`${number} 0 obj\n<</Type/XRef/Size ${number + 1}/W [1 ${width} 2]${trailer}${compressed ? "/Filter/FlateDecode" : ""}/Length ${length}>>\nstream\n`, "latin1"));
    for (const chunk of data) file.write(chunk);
    file.write(Buffer.from(`\nendstream\nendobj\nstartxref\n${start}\n%%EOF\n`, "latin1"));
  }
}

/** Writes stream object `number`: its dictionary's bytes and its data as they are (pdf-lib's copyBytesInto copies stream data a byte at a time). */
export function writeStreamObject(file: FileBytes, xref: CrossReferences, number: number, dict: Uint8Array, data: Uint8Array): void {
  xref.set(number, 1, file.offset, 0);
  file.write(Buffer.from(`${number} 0 obj\n`, "latin1"));
  file.write(dict);
  file.write(STREAM);
  file.write(data);
  file.write(END_STREAM);
}

/**
 * Writes object `number`, a dictionary, as an indirect object of its own (not in an object stream),
 * and sets the file offset of each placeholder among its values (each must be found once in its text).
 */
export function writeUnpackedObject(file: FileBytes, xref: CrossReferences, number: number, object: Unpacked): void {
  xref.set(number, 1, file.offset, 0);
  const head = `${number} 0 obj\n`;
  const text = serialize(object.dict);
  for (const value of Object.values(object.dict)) {
    if (!(value instanceof Placeholder)) continue;
    const at = text.indexOf(value.text);
    if (at < 0 || text.indexOf(value.text, at + 1) >= 0) throw new Error(`writeUnpackedObject: object ${number}'s placeholder ${value.text.slice(0, 16)}... is not found once in it`);
    // Latin-1 text: a character a byte.
    value.offset = file.offset + head.length + at;
  }
  file.write(Buffer.from(`${head}${text}\nendobj\n`, "latin1"));
}

/**
 * Objects [from, to) of `packed` into object streams of OBJECTS_PER_STREAM objects, numbered from
 * `number` on, compressed when `compress`; returns the next free number.
 */
export function writeObjectStreams(file: FileBytes, xref: CrossReferences, packed: PackedObjects, from: number, to: number, compress: boolean, number: number): number {
  for (let first = from; first < to; first += OBJECTS_PER_STREAM) {
    const last = Math.min(first + OBJECTS_PER_STREAM, to);
    const start = first > 0 ? packed.ends[first - 1] : 0;
    // The index: pairs of object number and offset, as bytes (a template string per object took 15 µs of the tagged one-page render).
    const head = Buffer.allocUnsafe((last - first) * 34);
    let at = 0;
    for (let k = first; k < last; k++) {
      at = writeInt(head, at, packed.numbers[k]);
      head[at++] = 0x20;
      at = writeInt(head, at, (k > first ? packed.ends[k - 1] : start) - start);
      head[at++] = k < last - 1 ? 0x20 : 0x0a;
      xref.set(packed.numbers[k], 2, number, k - first);
    }
    const index = head.subarray(0, at);
    const objects = packed.slice(start, packed.ends[last - 1]);
    const data = compress ? deflateSync(Buffer.concat([index, objects]), { level: OBJECT_STREAM_LEVEL }) : undefined;
    xref.set(number, 1, file.offset, 0);
    file.write(Buffer.from(`${number++} 0 obj\n<</Type/ObjStm/N ${last - first}/First ${at}${data ? "/Filter/FlateDecode" : ""}/Length ${data?.length ?? at + objects.length}>>\nstream\n`, "latin1"));
    if (data) file.write(data);
    else {
      // Views: valid while `packed` takes no more objects.
      file.write(index);
      file.write(objects);
    }
    file.write(END_STREAM);
  }
  return number;
}

/** Bytes of packed objects [from, to). */
const packedBytes = (packed: PackedObjects, from: number, to: number): number => (to > from ? packed.ends[to - 1] - (from > 0 ? packed.ends[from - 1] : 0) : 0);

/** The trailer's references: the catalog, the document information, and the file identifier (hex, written twice). */
export interface Trailer {
  root: Ref;
  info?: Ref;
  id?: string;
}

/**
 * Serializes every object of `objects` (streams and Unpacked dictionaries as they are, the others into
 * object streams after the `packed` ones: the structure tree, objects numbered in `objects` but
 * written there).
 */
export function writePdfFile(objects: PdfObjects, trailer: Trailer, packed = new PackedObjects()): Uint8Array {
  const file = new FileBytes();
  file.write(PDF_HEADER);
  const structureObjects = packed.count;
  const xref = new CrossReferences();
  for (const [number, object] of objects.entries()) {
    if (object instanceof Stream) writeStreamObject(file, xref, number, Buffer.from(streamDict(object), "latin1"), object.data);
    else if (object instanceof Unpacked) writeUnpackedObject(file, xref, number, object);
    else packed.object(number, object);
  }
  let next = objects.largestNumber + 1;
  next = writeObjectStreams(file, xref, packed, 0, structureObjects, packedBytes(packed, 0, structureObjects) >= COMPRESS_STRUCTURE_FROM_BYTES, next);
  next = writeObjectStreams(file, xref, packed, structureObjects, packed.count, packedBytes(packed, structureObjects, packed.count) >= COMPRESS_FROM_BYTES, next);
  const id = trailer.id === undefined ? "" : `/ID [ <${trailer.id}> <${trailer.id}> ]`;
  xref.write(file, next, `/Root ${trailer.root.number} 0 R${trailer.info ? `/Info ${trailer.info.number} 0 R` : ""}${id}`);
  return file.take();
}
