// The PDF file from pdf-lib's object model, written here rather than by pdf-lib's writers: objects
// that are not streams (structure elements above all: one per table cell) go into compressed object
// streams, indexed by a cross-reference stream (PDF 1.5; allowed by PDF/A-2 and PDF/UA-1). pdf-lib's
// own stream writer does the same but deflates in JavaScript (pako), several times slower than
// Node's zlib, which this uses.

import { deflateSync } from "node:zlib";
import { PDFStream, type PDFContext, type PDFObject } from "pdf-lib";

/**
 * Streams are compressed from this size on: below it a deflate call (about 25 µs whatever the size,
 * measured) costs more than the bytes it saves. pdf.ts streamOf and the cross-reference stream here.
 */
export const COMPRESS_FROM_BYTES = 1024;

/** Objects per object stream: large enough to compress well, small enough for readers to index. */
const OBJECTS_PER_STREAM = 200;
/** Deflate level of object streams: structure elements are so alike that the fastest level compresses them nearly as well (measured). */
const OBJECT_STREAM_LEVEL = 1;

const bytesOf = (object: PDFObject): Buffer => {
  const out = Buffer.allocUnsafe(object.sizeInBytes());
  object.copyBytesInto(out, 0);
  return out;
};

/** Serializes every indirect object of `context`, the `written` ones (number, text in latin1: not streams), and the trailer's Root, Info and ID. */
export function writePdfFile(context: PDFContext, written: readonly [number, string][] = []): Uint8Array {
  const chunks: Buffer[] = [Buffer.from("%PDF-1.7\n%\x81\x81\x81\x81\n", "latin1")];
  let offset = chunks[0].length;
  const write = (bytes: Buffer): void => {
    chunks.push(bytes);
    offset += bytes.length;
  };
  /** Per object number: [type, field 2, field 3] of its cross-reference entry (1: at an offset; 2: in an object stream). */
  const entries: [number, number, number][] = [[0, 0, 65535]];
  const packed: [number, string][] = [...written];

  for (const [ref, object] of context.enumerateIndirectObjects()) {
    if (object instanceof PDFStream) {
      entries[ref.objectNumber] = [1, offset, 0];
      write(Buffer.from(`${ref.objectNumber} 0 obj\n`, "latin1"));
      write(bytesOf(object));
      write(Buffer.from("\nendobj\n", "latin1"));
    } else {
      packed.push([ref.objectNumber, bytesOf(object).toString("latin1")]);
    }
  }
  let next = context.largestObjectNumber + 1;
  for (let i = 0; i < packed.length; i += OBJECTS_PER_STREAM) {
    const group = packed.slice(i, i + OBJECTS_PER_STREAM);
    const number = next++;
    let at = 0;
    let index = "";
    let body = "";
    group.forEach(([objectNumber, text], k) => {
      index += `${objectNumber} ${at} `;
      body += `${text}\n`;
      at += text.length + 1;
      entries[objectNumber] = [2, number, k];
    });
    const head = `${index}\n`;
    const data = deflateSync(Buffer.from(head + body, "latin1"), { level: OBJECT_STREAM_LEVEL });
    entries[number] = [1, offset, 0];
    write(Buffer.from(`${number} 0 obj\n<</Type/ObjStm/N ${group.length}/First ${head.length}/Filter/FlateDecode/Length ${data.length}>>\nstream\n`, "latin1"));
    write(data);
    write(Buffer.from("\nendstream\nendobj\n", "latin1"));
  }

  // The cross-reference stream: 1 byte of type, 4 of offset (or object stream number), 2 of generation (or index).
  const xrefNumber = next++;
  entries[xrefNumber] = [1, offset, 0];
  const table = Buffer.alloc(next * 7);
  for (let n = 0; n < next; n++) {
    const [type, a, b] = entries[n] ?? [0, 0, 0];
    table.writeUInt8(type, n * 7);
    table.writeUInt32BE(a, n * 7 + 1);
    table.writeUInt16BE(b, n * 7 + 5);
  }
  const compress = table.length >= COMPRESS_FROM_BYTES;
  const data = compress ? deflateSync(table) : table;
  const { Root, Info, ID } = context.trailerInfo;
  const trailer = `/Root ${String(Root)}${Info ? `/Info ${String(Info)}` : ""}${ID ? `/ID ${bytesOf(ID as PDFObject).toString("latin1")}` : ""}`;
  const start = offset;
  write(Buffer.from(`${xrefNumber} 0 obj\n<</Type/XRef/Size ${next}/W [1 4 2]${trailer}${compress ? "/Filter/FlateDecode" : ""}/Length ${data.length}>>\nstream\n`, "latin1"));
  write(data);
  write(Buffer.from(`\nendstream\nendobj\nstartxref\n${start}\n%%EOF\n`, "latin1"));
  return Buffer.concat(chunks);
}
