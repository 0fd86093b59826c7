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

const CASES: Case[] = [
  { name: "at the column and cell limits: 100 columns x 250 rows, 8-character cells", build: table(100, 250, "abcdefgh") },
  { name: "at the cell and character limits: 25 columns x 1,000 rows, cells of 39 characters", build: table(25, 1_000, "abcdefghij abcdefghij abcdefghij abcdef") },
  { name: "at the row limit: 1 column x 10,000 rows", build: table(1, 10_000, "a row of the only column") },
  { name: "at the character limit: 10 longtext fields of 99,000 characters", build: `({ title: "Limits", objectTypeName: "Bench", sections: [{ title: "S", fields: Array.from({ length: 10 }, () => ({ label: "Text", type: "longtext", value: "lorem ipsum dolor sit amet ".repeat(3666) })) }] })` },
  { name: "near the character limit in one paragraph of Arabic (shaped, bidi runs: 864,000 characters)", build: `({ title: "Limits", objectTypeName: "Bench", sections: [{ title: "S", fields: [{ label: "Text", type: "longtext", value: "مرحبا بالعالم 123 ".repeat(48000) }] }] })` },
  { name: "near the character limit in one paragraph of Japanese (breaks between characters: 864,000 characters)", build: `({ title: "Limits", objectTypeName: "Bench", sections: [{ title: "S", fields: [{ label: "Text", type: "longtext", value: "日本語の文章です。".repeat(96000) }] }] })` },
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
const instance = BUILD;
const started = performance.now();
(async () => {
  let outcome;
  try {
    assertWithinLimits(instance);
    const pdf = await renderInstancePdf(instance, { instanceId: "bench", targetName: "Bench", generatedAt: new Date(0), maxPages: PRINT_LIMITS.pages, maxLines: PRINT_LIMITS.lines, maxRuns: PRINT_LIMITS.runs }).catch((error) => {
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

console.log("| document | answer | ms | pages | PDF | peak RSS MiB |");
console.log("| --- | --- | ---: | ---: | ---: | ---: |");
for (const c of CASES) {
  const out = execFileSync(process.execPath, ["-e", WORKER.replace("BUILD", c.build)], { cwd: FUNCTIONS_DIR, encoding: "utf8", maxBuffer: 1 << 20 });
  const r = JSON.parse(out.trim().split("\n").at(-1)!) as { status: number; pages?: number; bytes?: number; message?: string; ms: number; peakRssMiB: number };
  const answer = r.status === 201 ? "201" : `${r.status}: ${r.message}`;
  const size = r.bytes === undefined ? "" : `${(r.bytes / 1024 / 1024).toFixed(2)} MiB`;
  console.log(`| ${c.name} | ${answer} | ${r.ms.toFixed(0)} | ${r.pages ?? ""} | ${size} | ${r.peakRssMiB.toFixed(0)} |`);
}
