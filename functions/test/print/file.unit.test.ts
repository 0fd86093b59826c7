// The PDF file writer (src/print/render/file.ts): objects written as bytes into object streams, read
// back by qpdf, which checks the cross-reference stream and each object stream's index.

import { describe, expect, it } from "vitest";
import { COMPRESS_STRUCTURE_FROM_BYTES, PackedObjects, writePdfFile } from "../../src/print/render/file";
import { PdfObjects, Ref, type Dict } from "../../src/print/render/objects";
import { qpdfCheck, qpdfObjects, resolve } from "./pdfChecks";

/** A file of one page: its page tree, page and catalog (the catalog holds `extra` too). */
function onePage(objects: PdfObjects, extra: Dict): Ref {
  const pages = new Ref(objects.reserve());
  const page = objects.add({ Type: "Page", Parent: pages, MediaBox: [0, 0, 200, 200] });
  objects.set(pages, { Type: "Pages", Kids: [page], Count: 1 });
  return objects.add({ Type: "Catalog", Pages: pages, ...extra });
}

describe("writePdfFile and PackedObjects", () => {
  it("writes objects given as bytes, over three object streams, with object numbers of five digits and values of up to sixteen, as qpdf reads them", () => {
    const objects = new PdfObjects();
    // 450 objects: three object streams of at most 200; numbers from 5 digits up (the file's own objects come first).
    const first = 10_000;
    const root = onePage(objects, { Test: new Ref(first) });
    objects.reserve(first + 449 - objects.largestNumber);
    const packed = new PackedObjects();
    for (let i = 0; i < 450; i++) {
      const number = first + i;
      // Each refers to the next, and holds a number as large as the writer takes.
      packed.begin(number, 96).text("<</Kind/Test/Next ").int(i < 449 ? number + 1 : first).text(" 0 R/Big ").int(Number.MAX_SAFE_INTEGER).text("/Zero ").int(0).text(">>").end();
    }
    const bytes = writePdfFile(objects, { root }, packed);

    expect(() => qpdfCheck(bytes)).not.toThrow();
    const read = qpdfObjects(bytes);
    for (const i of [0, 199, 200, 449]) {
      expect(resolve(read, `${first + i} 0 R`)).toEqual({ "/Kind": "/Test", "/Next": `${i < 449 ? first + i + 1 : first} 0 R`, "/Big": Number.MAX_SAFE_INTEGER, "/Zero": 0 });
    }
    // Ours (450, over 16 KB: compressed), then the file's catalog, page tree and page (under 1 KB: as they are).
    const objectStreams = Object.values(read).filter((o) => o.stream?.dict["/Type"] === "/ObjStm");
    expect(objectStreams.map((o) => [o.stream.dict["/N"], o.stream.dict["/Filter"]]).sort((a, b) => a[0] - b[0])).toEqual([
      [3, undefined],
      [50, "/FlateDecode"],
      [200, "/FlateDecode"],
      [200, "/FlateDecode"],
    ]);
  });

  it("stores packed objects (the structure tree) as they are under COMPRESS_STRUCTURE_FROM_BYTES, and the other objects compressed from COMPRESS_FROM_BYTES", () => {
    const objects = new PdfObjects();
    // Objects of over 1 KB: a dictionary with a long array.
    const first = 4; // after the page tree, the page and the catalog
    const root = onePage(objects, { Widths: Array.from({ length: 300 }, (_, i) => i), Test: new Ref(first) });
    const count = Math.floor((COMPRESS_STRUCTURE_FROM_BYTES - 1) / 64);
    expect(objects.reserve(count)).toBe(first);
    const packed = new PackedObjects();
    for (let i = 0; i < count; i++) packed.begin(first + i, 64).text("<</S/P/K ").int(i).text(">>").end();
    expect(packed.bytes).toBeLessThan(COMPRESS_STRUCTURE_FROM_BYTES);
    const bytes = writePdfFile(objects, { root }, packed);

    expect(() => qpdfCheck(bytes)).not.toThrow();
    const read = qpdfObjects(bytes);
    expect(resolve(read, `${first + count - 1} 0 R`)).toEqual({ "/S": "/P", "/K": count - 1 });
    const objectStreams = Object.values(read).filter((o) => o.stream?.dict["/Type"] === "/ObjStm");
    expect(objectStreams.map((o) => [o.stream.dict["/N"], o.stream.dict["/Filter"]]).sort((a, b) => a[0] - b[0])).toEqual([
      [3, "/FlateDecode"],
      [count - 200, undefined],
      [200, undefined],
    ]);
  });

  it("refuses a number that is not a whole number from 0, rather than write bytes that are not digits", () => {
    const packed = new PackedObjects().begin(1, 64);
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 53]) expect(() => packed.int(bad)).toThrow(RangeError);
  });

  it("refuses an object that outgrew the room made for it, whose bytes past the buffer would be lost", () => {
    const packed = new PackedObjects();
    packed.begin(1, 64).text("x".repeat(60)).end();
    expect(() => packed.begin(2, 64).text("y".repeat(64 * 1024)).end()).toThrow(/object 2 outgrew/);
  });
});
