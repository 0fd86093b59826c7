// Barcodes (src/print/render/codes.ts): each kind encoded, drawn as rectangles alone on a PDF page,
// rasterised by poppler at 200 dpi and read back by a real decoder: zbar for QR and Code 128, libdmtx
// for Data Matrix (zbar reads none). Also: vector only, rows merged, values refused with a reason.

import { describe, expect, it } from "vitest";
import { CodeNotEncodable, codeOperators, encodeCode, type CodeKind, type CodeSymbol } from "../../src/print/render/codes";
import { ContentBytes } from "../../src/print/render/content";
import { assemblePdf } from "../../src/print/render/pdf";
import { pdfImages } from "./popplerText";
import { decoded } from "./scanCodes";

const URL = "https://print.example.com/t/acme-north/i/inspection-short";
const MODULE = 2; // points: 5.6 pixels at 200 dpi, not a whole number of them
const BAR_HEIGHT = 40; // points, for Code 128

/** A page holding the symbol and its quiet zone only, black on the white paper. */
function pdfOf(symbol: CodeSymbol): Uint8Array {
  const margin = symbol.quietZone * MODULE;
  const width = symbol.width * MODULE;
  const height = symbol.height === 1 ? BAR_HEIGHT : symbol.height * MODULE;
  const out = new ContentBytes();
  codeOperators(out, symbol, margin, margin, width, height, "0 0 0");
  return assemblePdf(width + 2 * margin, height + 2 * margin, [out.view], [], { title: "Code", subject: "", keywords: [], date: new Date("2026-05-04T16:12:05Z"), language: "en" });
}

/** The rectangles as [x, y, w, h] tuples. */
const quads = (rects: number[]): number[][] => Array.from({ length: rects.length / 4 }, (_, i) => rects.slice(i * 4, i * 4 + 4));

describe("encodeCode and codeOperators", () => {
  it.each<[CodeKind, string, "zbar" | "dmtx", string]>([
    ["qr", URL, "zbar", "QR-Code"],
    ["qr", "Prüfbericht Zürich – 東京 №7", "zbar", "QR-Code"],
    ["code128", "INSP-B12-2026", "zbar", "CODE-128"],
    ["code128", "a^b~c 42", "zbar", "CODE-128"],
    ["datamatrix", URL, "dmtx", "DataMatrix"],
    ["datamatrix", "Prüfbericht Zürich – 東京 №7", "dmtx", "DataMatrix"],
  ])("draws %s %j as vector rectangles that a scanner reads back", async (kind, value, decoder, type) => {
    const symbol = await encodeCode(kind, value);
    const pdf = pdfOf(symbol);
    expect(decoded(pdf, decoder)).toEqual([`${type}:${value}`]);
    expect(pdfImages(pdf)).toEqual([]);
  });

  it("gives each symbology its quiet zone and shape: QR and Data Matrix square, Code 128 one module high", async () => {
    const qr = await encodeCode("qr", URL);
    const dm = await encodeCode("datamatrix", URL);
    const bars = await encodeCode("code128", "INSP-B12-2026");
    expect([qr.quietZone, dm.quietZone, bars.quietZone]).toEqual([4, 1, 10]);
    expect([qr.kind, dm.kind, bars.kind]).toEqual(["qr", "datamatrix", "code128"]);
    // 57 bytes at level M: version 4, 33 modules (version 3 holds 42 bytes).
    expect([qr.width, qr.height]).toEqual([33, 33]);
    expect(dm.width).toBe(dm.height);
    expect(bars.height).toBe(1);
    expect(quads(bars.rects).every(([, y, , h]) => y === 0 && h === 1)).toBe(true);
    // Start, data, check and stop characters of 11 modules, and the stop's 2 more.
    expect((bars.width - 2) % 11).toBe(0);
  });

  it("merges each row's adjacent dark modules into one rectangle, staying inside the symbol", async () => {
    for (const kind of ["qr", "datamatrix"] as const) {
      const symbol = await encodeCode(kind, URL);
      const rects = quads(symbol.rects);
      const dark = rects.reduce((sum, [, , w]) => sum + w, 0);
      // A run of dark modules in a row of random-looking data is two long on average: about half as many rectangles (281 for 549 in this QR code).
      expect(rects.length, kind).toBeLessThan(dark * 0.6);
      for (let i = 0; i < rects.length; i++) {
        const [x, y, w, h] = rects[i];
        expect(x >= 0 && w > 0 && x + w <= symbol.width && y >= 0 && y < symbol.height && h === 1, `${kind} ${rects[i]}`).toBe(true);
        // The next run in the same row starts past a light module: the runs are as long as they get.
        const next = rects[i + 1];
        if (next?.[1] === y) expect(next[0], `${kind} ${rects[i]}`).toBeGreaterThan(x + w);
      }
    }
  });

  it("writes one path of rectangles in modules, y upwards, under a matrix that puts the symbol's bottom-left at (x, y) at its size, and one fill", () => {
    const symbol: CodeSymbol = { kind: "qr", width: 3, height: 2, rects: [0, 0, 3, 1, 1, 1, 1, 1], quietZone: 4 };
    const out = new ContentBytes();
    codeOperators(out, symbol, 10, 20, 10, 5, "0.1 0.2 0.3");
    expect(Buffer.from(out.view).toString("latin1")).toBe("q 3.3333 0 0 2.5 10 20 cm 0.1 0.2 0.3 rg 0 1 3 1 re 1 0 1 1 re f Q");
  });

  it("refuses with CodeNotEncodable what a symbology cannot carry, saying why", async () => {
    const refusal = async (kind: CodeKind, value: string): Promise<string> => {
      const error = await encodeCode(kind, value).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, `${kind} ${value.slice(0, 20)}`).toBeInstanceOf(CodeNotEncodable);
      return (error as Error).message;
    };
    expect(await refusal("code128", "INSP-€12")).toBe('A Code 128 barcode can only carry ASCII characters, and this value has "€".');
    expect(await refusal("code128", "检查-12")).toContain('"检"');
    expect(await refusal("code128", "Lefèvre")).toContain('"è"');
    // QR's most, 2953 bytes, is at level L; level M holds 2331.
    expect(await refusal("qr", "x".repeat(2954))).toBe("A QR code cannot encode this value of 2954 bytes: the amount of data is too big to be stored in a QR Code.");
    expect(await refusal("qr", "ü".repeat(1166))).toContain("2332 bytes");
    expect((await encodeCode("qr", "x".repeat(2331))).width).toBe(177);
    expect(await refusal("datamatrix", "x".repeat(3200))).toBe("A Data Matrix code cannot encode this value of 3200 bytes: the input data is too long.");
    for (const kind of ["qr", "code128", "datamatrix"] as const) {
      expect(await refusal(kind, "")).toMatch(/needs a value: this one is empty/);
      expect(await refusal(kind, "ab\ud800")).toMatch(/not valid text/);
    }
  });
});
