import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const RLE = "\u202b";
const PDF = "\u202c";

/** A PDF's text as poppler's pdftotext extracts it (reading order), one string per line. */
export function popplerLines(bytes: Uint8Array): string[] {
  const dir = mkdtempSync(join(tmpdir(), "poppler-"));
  try {
    writeFileSync(join(dir, "in.pdf"), bytes);
    return execFileSync("pdftotext", ["-enc", "UTF-8", join(dir, "in.pdf"), "-"], { encoding: "utf8" }).split("\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
