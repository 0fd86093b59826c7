// Barcodes for print templates: a value encoded as a QR code, Code 128 or Data Matrix symbol, and the
// symbol drawn as filled rectangles in a content stream (vector shapes, no picture: sharp at any zoom
// and print resolution, and a few hundred bytes).
//
// Code 128 and Data Matrix are bwip-js's: BWIPP, the reference PostScript barcode library, compiled
// to JavaScript. It is well kept (releases follow BWIPP's), has every symbology (should a template
// want another), is pure JavaScript with no native part, and its raw output gives the modules without
// drawing anything. QR codes are the `qrcode` package's, the most used QR encoder on npm: a QR code of
// a record's URL took bwip-js 6 to 17 ms here (its PostScript interpreter) and qrcode 1.5 ms, mask
// chosen by the standard's penalty rules either way, and a print job draws one a document. Each is
// loaded on its first code only: a print without codes does not pay for them at cold start. A
// symbol is kept for its value (SYMBOLS_KEPT): a preview re-renders the same document as its author types.

import { ContentBytes } from "./content";

export type CodeKind = "qr" | "code128" | "datamatrix";

export interface CodeSymbol {
  kind: CodeKind;
  /** Size in modules, without the quiet zone. A linear code (Code 128) has height 1: its bars stretch to the drawn height. */
  width: number;
  height: number;
  /** Dark rectangles as [x, y, w, h] quadruples in modules, from the symbol's top-left corner, y downwards (merged horizontally where adjacent, so a QR code is not thousands of squares). */
  rects: number[];
  /** Modules of light margin the symbology requires on every side: QR 4, Data Matrix 1, Code 128 10. */
  quietZone: number;
}

/** Thrown for a value the symbology cannot encode (too long, characters it lacks); its message says why, in words fit for a 400 answer. */
export class CodeNotEncodable extends Error {
  override name = "CodeNotEncodable";
}

/** Per kind: bwip-js's name, a name for messages, the quiet zone (ISO 18004, 16022, 15417) and fixed options. */
const KINDS = {
  qr: { bcid: "qrcode", label: "A QR code", quietZone: 4, options: {} },
  datamatrix: { bcid: "datamatrix", label: "A Data Matrix code", quietZone: 1, options: {} },
  code128: { bcid: "code128", label: "A Code 128 barcode", quietZone: 10, options: {} },
} as const;

/** Symbols by kind and value, the least recently used dropped past 256 of them or 1,000,000 rectangle numbers in all (about 8 MB: a QR code of 2,300 bytes holds 31,000). */
const SYMBOLS_KEPT = 256;
const RECT_NUMBERS_KEPT = 1_000_000;
const symbols = new Map<string, CodeSymbol>();
let rectNumbers = 0;

export async function encodeCode(kind: CodeKind, value: string): Promise<CodeSymbol> {
  const key = `${kind}\u0000${value}`;
  let symbol = symbols.get(key);
  if (symbol) symbols.delete(key);
  else {
    symbol = await encodeSymbol(kind, value);
    rectNumbers += symbol.rects.length;
  }
  symbols.set(key, symbol);
  while (symbols.size > SYMBOLS_KEPT || rectNumbers > RECT_NUMBERS_KEPT) {
    const [oldest, dropped] = symbols.entries().next().value!;
    symbols.delete(oldest);
    rectNumbers -= dropped.rects.length;
  }
  return symbol;
}

async function encodeSymbol(kind: CodeKind, value: string): Promise<CodeSymbol> {
  const { bcid, label, quietZone, options } = KINDS[kind];
  if (value === "") throw new CodeNotEncodable(`${label} needs a value: this one is empty.`);
  if (!value.isWellFormed()) throw new CodeNotEncodable(`${label} cannot encode this value: it is not valid text (a lone UTF-16 surrogate).`);
  // Beyond ASCII, Code 128 has only FNC4's Latin-1, which scanners read inconsistently: refused rather than garbled.
  const outside = kind === "code128" ? /\P{ASCII}/u.exec(value) : null;
  if (outside) throw new CodeNotEncodable(`${label} can only carry ASCII characters, and this value has "${outside[0]}".`);
  // BWIPP reads bytes as Latin-1 characters: given the UTF-8 bytes here, the message below can count them.
  const bytes = Buffer.from(value, "utf8");
  if (kind === "qr") return qrSymbol(bytes, label, quietZone);
  const { default: bwipjs } = await import("bwip-js");
  let raw;
  try {
    // bwipjs.raw of the default export: the module's named `raw` is the symbology of that name, not this.
    [raw] = bwipjs.raw({ bcid, text: bytes.toString("latin1"), binarytext: true, ...options });
  } catch (e) {
    // BWIPP's errors ("bwipp.qrcodeNoValidSymbol#27236: Maximum length exceeded ...") concern the value: the options are fixed.
    const reason = e instanceof Error ? /^bwipp\.[^:]*: (.*)$/s.exec(e.message)?.[1] : undefined;
    if (reason === undefined) throw e;
    throw new CodeNotEncodable(`${label} cannot encode this value of ${bytes.length} bytes: ${reason.charAt(0).toLowerCase()}${reason.slice(1)}.`);
  }
  if ("pixs" in raw) return { kind, width: raw.pixx, height: raw.pixy, rects: matrixRects(raw.pixs, raw.pixx, raw.pixy), quietZone };
  const rects: number[] = [];
  let x = 0;
  // Widths alternate bar, space, bar, ...
  raw.sbs.forEach((w, i) => {
    if (i % 2 === 0) rects.push(x, 0, w, 1);
    x += w;
  });
  return { kind, width: x, height: 1, rects, quietZone };
}

/** A QR code of the bytes (UTF-8), error correction M, in byte mode. */
async function qrSymbol(bytes: Buffer, label: string, quietZone: number): Promise<CodeSymbol> {
  const qrcode = await import("qrcode");
  let modules;
  try {
    ({ modules } = qrcode.create([{ data: bytes, mode: "byte" }], { errorCorrectionLevel: "M" }));
  } catch (e) {
    // Its one failure for a value: "The amount of data is too big to be stored in a QR Code".
    const reason = e instanceof Error ? e.message : String(e);
    throw new CodeNotEncodable(`${label} cannot encode this value of ${bytes.length} bytes: ${reason.charAt(0).toLowerCase()}${reason.slice(1).replace(/\.?$/, ".")}`);
  }
  return { kind: "qr", width: modules.size, height: modules.size, rects: matrixRects(modules.data, modules.size, modules.size), quietZone };
}

/** Each row's runs of dark modules as one rectangle each. */
function matrixRects(pixs: ArrayLike<number | boolean>, columns: number, rows: number): number[] {
  const rects: number[] = [];
  for (let y = 0; y < rows; y++) {
    const row = y * columns;
    for (let x = 0; x < columns; x++) {
      if (!pixs[row + x]) continue;
      const start = x;
      while (x + 1 < columns && pixs[row + x + 1]) x++;
      rects.push(start, y, x + 1 - start, 1);
    }
  }
  return rects;
}

/** A symbol's operators as last written, by where and how big: a document drawn again (a preview, a reprint) copies them. */
const drawn = new WeakMap<CodeSymbol, { key: string; bytes: Uint8Array }>();

/**
 * Writes the symbol's dark modules as filled rectangles (one path, one `f`) into `out`, the symbol's
 * bottom-left corner (without its quiet zone) at (x, y) in PDF points, `width` x `height` points, in fill colour `color` (PDF operands such as "0 0 0").
 * The rectangles are in modules, whole numbers, under a matrix that scales a module to its size: a
 * third of the bytes that points would take (a QR code of a URL is some 300 runs), which the page's
 * deflate pays for on every render. Only path and graphics-state operators: the caller wraps them in marked content.
 */
export function codeOperators(out: ContentBytes, symbol: CodeSymbol, x: number, y: number, width: number, height: number, color: string): void {
  const key = `${x} ${y} ${width} ${height} ${color}`;
  const kept = drawn.get(symbol);
  if (kept?.key === key) {
    out.copy(kept.bytes);
    return;
  }
  const ops = new ContentBytes(symbol.rects.length * 12 + 96);
  const r = symbol.rects;
  // y upwards from the symbol's bottom edge, as PDF's: a rectangle's lower edge is its row's bottom.
  ops.text(`q ${matrixNumber(width / symbol.width)} 0 0 ${matrixNumber(height / symbol.height)} ${matrixNumber(x)} ${matrixNumber(y)} cm ${color} rg`);
  for (let i = 0; i < r.length; i += 4) ops.byte(0x20).num(r[i]).byte(0x20).num(symbol.height - r[i + 1] - r[i + 3]).byte(0x20).num(r[i + 2]).byte(0x20).num(r[i + 3]).text(" re");
  ops.text(" f Q");
  const bytes = ops.view.slice();
  drawn.set(symbol, { key, bytes });
  out.copy(bytes);
}

/** A matrix entry to 1/10,000 point: the symbol's size and place exact to well under a device pixel. */
const matrixNumber = (v: number): string => String(Math.round(v * 10_000) / 10_000);
