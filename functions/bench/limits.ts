/**
 * The largest documents the renderer accepts (src/print/limits.ts) and some it refuses: time, pages,
 * size and peak memory of each, every document in a fresh process, as the print function renders it
 * (lib/, compiled). Run after `npm run build`:  npm run bench:limits   (figures go to RELIABILITY.md)
 */
import { execFileSync } from "node:child_process";
import { FUNCTIONS_DIR } from "./cases";

interface Case {
  name: string;
  /** Source of an expression building the instance, evaluated in the worker process. */
  build: string;
}

const table = (columns: number, rows: number, cell: string | number) =>
  `({ title: "Limits", objectTypeName: "Bench", sections: [{ title: "S", fields: [{ label: "Table", type: "table", value: { columns: Array.from({ length: ${columns} }, (_, i) => "Column " + i), rows: Array.from({ length: ${rows} }, () => ({ cells: Array.from({ length: ${columns} }, () => ${JSON.stringify(cell)}) })) } }] }] })`;

/** One paragraph: `prefix` repeated `times`, then `unit` repeated as far as the character (1,000,000) and byte (1 MiB) limits allow. */
const paragraph = (unit: string, prefix = "", times = 0) => {
  const room = Math.floor(Math.min((999_800 - prefix.length * times) / unit.length, (1_048_000 - Buffer.byteLength(prefix) * times) / Buffer.byteLength(unit)));
  return `({ title: "Limits", objectTypeName: "Bench", sections: [{ title: "S", fields: [{ label: "Text", type: "longtext", value: ${JSON.stringify(prefix)}.repeat(${times}) + ${JSON.stringify(unit)}.repeat(${room}) }] }] })`;
};

const CASES: Case[] = [
  { name: "at the column and cell limits: 100 columns x 250 rows, 8-character cells", build: table(100, 250, "abcdefgh") },
  { name: "at the cell and character limits: 25 columns x 1,000 rows, cells of 39 characters", build: table(25, 1_000, "abcdefghij abcdefghij abcdefghij abcdef") },
  { name: "at the row limit: 1 column x 10,000 rows", build: table(1, 10_000, "a row of the only column") },
  { name: "at the character limit: 10 longtext fields of 99,000 characters", build: `({ title: "Limits", objectTypeName: "Bench", sections: [{ title: "S", fields: Array.from({ length: 10 }, () => ({ label: "Text", type: "longtext", value: "lorem ipsum dolor sit amet ".repeat(3666) })) }] })` },
  { name: "near the byte limit in one paragraph of Arabic (shaped, bidi runs: 628,000 characters, 70,000 runs)", build: paragraph("مرحبا بالعالم 123 ") },
  { name: "near the byte limit in one paragraph of Japanese (breaks between characters: 349,000 characters)", build: paragraph("日本語の文章です。") },
  { name: "near the byte limit in one paragraph of Devanagari (shaped clusters: 386,000 characters)", build: paragraph("नमस्ते दुनिया ") },
  { name: "near the byte limit in one paragraph of Khmer (shaped, words from ICU's dictionary: 377,000 characters)", build: paragraph("ជំរាបសួរ ") },
  { name: "near the byte limit: a flood of combining marks (524,000; was 32 s)", build: paragraph("\u0301") },
  { name: "near the byte limit: a chain of emoji joined by ZWJ (449,000 characters)", build: paragraph("😀\u200d") },
  { name: "at the run limit: a direction change at every character (Latin / Hebrew, 99,000 runs), then Arabic to the byte limit", build: paragraph("مرحبا بالعالم ", "aא", 49_500) },
  { name: "at the run limit: a font change at every character (Latin / Arabic / CJK, 99,000 runs), then Devanagari to the byte limit", build: paragraph("नमस्ते दुनिया ", "aب日", 33_000) },
  { name: "refused (422) at 100,000 runs: Latin / Hebrew at every character to the byte limit (699,000 characters; 103 s before the fix, 5.3 s unbounded after)", build: paragraph("aא") },
  { name: "refused (422) at 100,000 runs: Greek / Hebrew at every character to the byte limit (524,000 characters)", build: paragraph("αא") },
  { name: "refused (422) at 100,000 runs: Latin / Arabic / CJK at every character to the byte limit (524,000 characters; 5.8 s unbounded)", build: paragraph("aب日") },
  { name: "refused (422) at 100,000 runs: direction marks LRM / RLM alternating to the byte limit (349,000 characters)", build: paragraph("\u200e\u200f") },
  { name: "at the field limit: 10,000 short fields in 100 sections", build: `({ title: "Limits", objectTypeName: "Bench", sections: Array.from({ length: 100 }, (_, s) => ({ title: "Section " + s, fields: Array.from({ length: 100 }, (_, i) => ({ label: "Field " + i, type: "text", value: "value " + i })) })) })` },
  { name: "refused (422) at 450,000 lines: 100 narrow columns x 250 rows of 39-character cells, a character to a line (975,000 lines, 5 s and 1.4 GiB unbounded)", build: table(100, 250, "abcdefghij abcdefghij abcdefghij abcdef") },
  { name: "refused (422) at 450,000 lines: 100 columns x 250 rows of the largest number (1.79769313486232E308; written out, 412 characters each: 41 s and 4.3 GiB before)", build: table(100, 250, -Number.MAX_VALUE) },
  { name: "refused (422) at page 501: a multiple choice of 100,000 one-letter values, a line each (2,000 pages unbounded)", build: `({ title: "Limits", objectTypeName: "Bench", sections: [{ title: "S", fields: [{ label: "Choices", type: "multichoice", value: Array.from({ length: 100000 }, (_, i) => String.fromCharCode(97 + (i % 26))) }] }] })` },
  { name: "refused (422): 100 narrow columns x 10,000 rows of one wrapped cell (short rows are padded: 1,000,000 cells laid out)", build: `({ title: "Limits", objectTypeName: "Bench", sections: [{ title: "S", fields: [{ label: "Table", type: "table", value: { columns: Array.from({ length: 100 }, (_, i) => "C" + i), rows: Array.from({ length: 10000 }, () => ({ cells: ["a cell with a few words in it"] })) } }] }] })` },
  { name: "refused (422): 90 columns x 4,000 rows of one cell, CI's hostile document (360,000 cells laid out)", build: `({ title: "Limits", objectTypeName: "Bench", sections: [{ title: "S", fields: [{ label: "Table", type: "table", value: { columns: Array.from({ length: 90 }, (_, i) => "C" + i), rows: Array.from({ length: 4000 }, () => ({ cells: ["x"] })) } }] }] })` },
  { name: "refused (422): the review's 1,000 x 1,000 empty table", build: table(1_000, 1_000, "") },
  { name: "refused (422): 1,000 x 3,000 empty cells (ran the instance out of memory before)", build: table(1_000, 3_000, "") },
];

const WORKER = `
const { renderInstancePdf } = require("./lib/print/render");
const { PRINT_LIMITS, assertWithinLimits, assertPdfWithinLimits, layoutLimitExceeded } = require("./lib/print/limits");
const instance = __BUILD__;
const MAX_RUNS = __MAX_RUNS__;
const started = performance.now();
(async () => {
  let outcome;
  try {
    assertWithinLimits(instance);
    const pdf = await renderInstancePdf(instance, { instanceId: "bench", targetName: "Bench", generatedAt: new Date(0), maxPages: PRINT_LIMITS.pages, maxLines: PRINT_LIMITS.lines, maxRuns: MAX_RUNS }).catch((error) => {
      throw error.name === "LayoutLimitExceeded" ? layoutLimitExceeded(error.what) : error;
    });
    assertPdfWithinLimits(pdf.pageCount, pdf.bytes.length);
    outcome = { status: 201, pages: pdf.pageCount, bytes: pdf.bytes.length };
  } catch (error) {
    outcome = { status: error.statusCode ?? 500, message: error.message };
  }
  console.log(JSON.stringify({ ...outcome, ms: performance.now() - started, peakRssMiB: process.resourceUsage().maxRSS / 1024 }));
})();
`;

/** The worker's outcome for a document (a fresh process each). */
function run(build: string, maxRuns = "PRINT_LIMITS.runs") {
  const out = execFileSync(process.execPath, ["-e", WORKER.replace("__MAX_RUNS__", maxRuns).replace("__BUILD__", () => build)], { cwd: FUNCTIONS_DIR, encoding: "utf8", maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split("\n").at(-1)!) as { status: number; pages?: number; bytes?: number; message?: string; ms: number; peakRssMiB: number };
}

console.log("| document | answer | ms | pages | PDF | peak RSS MiB |");
console.log("| --- | --- | ---: | ---: | ---: | ---: |");
let worst = { ms: 0, name: "" };
for (const c of CASES) {
  const r = run(c.build);
  const answer = r.status === 201 ? "201" : `${r.status}: ${r.message}`;
  const size = r.bytes === undefined ? "" : `${(r.bytes / 1024 / 1024).toFixed(2)} MiB`;
  console.log(`| ${c.name} | ${answer} | ${r.ms.toFixed(0)} | ${r.pages ?? ""} | ${size} | ${r.peakRssMiB.toFixed(0)} |`);
  if (r.ms > worst.ms) worst = { ms: r.ms, name: c.name };
}
console.log(`\nThe costliest: ${worst.ms.toFixed(0)} ms (${worst.name}); target under 3,000 ms.`);

// Render time linear in the text's length for every shape of text (issue 38, F1): each shape at 50,000
// and at 200,000 characters, runs unbounded. Four times the text should take about four times as long
// (less: a fixed part); sixteen would be quadratic, as the per-piece search of the paragraph was.
const SHAPES: [string, string][] = [
  ["Latin / Hebrew at every character", "aא"],
  ["Greek / Hebrew at every character", "αא"],
  ["Latin / Arabic / CJK at every character", "aب日"],
  ["Latin / Greek / Hebrew at every character", "aαא"],
  ["digits / Hebrew at every character", "1א"],
  ["direction marks LRM / RLM", "\u200e\u200f"],
  ["combining marks only", "\u0301"],
  ["emoji joined by ZWJ", "😀\u200d"],
  ["Greek words in Latin text", "αβ a "],
  ["kana / Latin at every character", "aア"],
];
const text = (unit: string, characters: number) => `({ title: "Linear", objectTypeName: "Bench", sections: [{ title: "S", fields: [{ label: "Text", type: "longtext", value: ${JSON.stringify(unit)}.repeat(${Math.floor(characters / unit.length)}) }] }] })`;
console.log("\n| shape (runs unbounded) | ms at 50,000 characters | ms at 200,000 | ratio (4: linear, 16: quadratic) |");
console.log("| --- | ---: | ---: | ---: |");
for (const [name, unit] of SHAPES) {
  const small = run(text(unit, 50_000), "Infinity");
  const large = run(text(unit, 200_000), "Infinity");
  console.log(`| ${name} | ${small.ms.toFixed(0)} | ${large.ms.toFixed(0)} | ${(large.ms / small.ms).toFixed(1)} |`);
}
