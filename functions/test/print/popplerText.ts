import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const RLE = "\u202b";
const PDF = "\u202c";

/** A poppler tool's output for a PDF (written to a temporary file, which it reads). */
function poppler(tool: string, args: readonly string[], bytes: Uint8Array): string {
  const dir = mkdtempSync(join(tmpdir(), "poppler-"));
  try {
    writeFileSync(join(dir, "in.pdf"), bytes);
    return execFileSync(tool, [...args, join(dir, "in.pdf"), ...(tool === "pdftotext" ? ["-"] : [])], { encoding: "utf8" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What poppler's pdftotext complains of while reading a PDF (its stderr: "Syntax Warning: ..."). */
export function popplerWarnings(bytes: Uint8Array): string {
  const dir = mkdtempSync(join(tmpdir(), "poppler-"));
  try {
    writeFileSync(join(dir, "in.pdf"), bytes);
    return spawnSync("pdftotext", [join(dir, "in.pdf"), "-"], { encoding: "utf8", maxBuffer: 1 << 28 }).stderr;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A PDF's text as poppler's pdftotext extracts it (reading order), one string per line. */
export const popplerLines = (bytes: Uint8Array): string[] => poppler("pdftotext", ["-enc", "UTF-8"], bytes).split("\n");

/** The text as laid out on the page (pdftotext -layout): what shares a line on the page shares one here. */
export const layoutLines = (bytes: Uint8Array): string[] => poppler("pdftotext", ["-enc", "UTF-8", "-layout"], bytes).split("\n");

/** poppler's `pdfimages -list`: one row per image drawn (and per soft mask), with its pixel size and colour. */
export function pdfImages(bytes: Uint8Array): { page: number; type: string; width: number; height: number; color: string; enc: string }[] {
  return poppler("pdfimages", ["-list"], bytes)
    .split("\n")
    .slice(2)
    .filter((line) => line.trim())
    .map((line) => line.trim().split(/\s+/))
    .map((c) => ({ page: Number(c[0]), type: c[2], width: Number(c[3]), height: Number(c[4]), color: c[5], enc: c[8] }));
}

/**
 * A line of poppler's output in logical order. poppler writes a line's runs left to right, each
 * right-to-left run in logical order between RLE and PDF marks; a line with more right-to-left
 * letters than left-to-right ones is a right-to-left line, read from its rightmost run.
 */
export function logicalLine(line: string): string {
  if (!line.includes(RLE)) return line;
  const runs: string[] = [];
  let i = 0;
  while (i < line.length) {
    if (line[i] === RLE) {
      const end = line.indexOf(PDF, i);
      runs.push(line.slice(i + 1, end < 0 ? line.length : end));
      i = end < 0 ? line.length : end + 1;
    } else {
      const next = line.indexOf(RLE, i);
      runs.push(line.slice(i, next < 0 ? line.length : next));
      i = next < 0 ? line.length : next;
    }
  }
  const rtlLetters = (line.match(/[\p{Script=Arabic}\p{Script=Hebrew}]/gu) ?? []).length;
  const rtl = rtlLetters > (line.match(/\p{L}/gu) ?? []).length - rtlLetters;
  return rtl ? runs.reverse().join("") : runs.join("");
}

/** Whitespace removed: robust to where lines wrap and to spacing between runs. */
export const squash = (s: string): string => s.replace(/[\s\u202a-\u202e]+/g, "");

/** A PDF's whole text in logical order, whitespace removed. */
export const logicalText = (bytes: Uint8Array): string => squash(popplerLines(bytes).map(logicalLine).join("\n"));

/** Page `page` of a PDF as poppler's pdftoppm draws it at `dpi`: RGB pixels, row by row. */
export function pageRaster(bytes: Uint8Array, page: number, dpi: number): { width: number; height: number; rgb: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), "poppler-"));
  try {
    writeFileSync(join(dir, "in.pdf"), bytes);
    const ppm = execFileSync("pdftoppm", ["-r", String(dpi), "-f", String(page), "-l", String(page), join(dir, "in.pdf")], { maxBuffer: 1 << 28 });
    // Binary PPM: "P6", width, height, maxval, one whitespace byte, then the pixels.
    const header = /^P6\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(ppm.subarray(0, 64).toString("latin1"));
    if (!header) throw new Error("pdftoppm did not write a PPM");
    return { width: Number(header[1]), height: Number(header[2]), rgb: ppm.subarray(header[0].length) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
