/**
 * Font loading, each line from fresh processes as a new print instance would see it: the first render
 * of a Latin document, of a CJK one, of an Arabic one and of the every-script demo (files read,
 * HarfBuzz started), then
 * the memory of a process holding every font, regular and bold, shaped with. Run after
 * `npm run build`:  npm run bench:fonts   (figures go to BENCHMARKS.md, "Fonts")
 */
import { execFileSync } from "node:child_process";
import { DEMO_FIXTURE, FUNCTIONS_DIR } from "./cases";
import { median, summarize } from "./stats";

const WORKER = `
const { readFileSync } = require("node:fs");
const { renderInstancePdf } = require("./lib/print/render");
const { loadedFamilies } = require("./lib/print/render/text");
const demo = JSON.parse(readFileSync(${JSON.stringify(DEMO_FIXTURE)}, "utf8")).documents;
const instance = (id) => { const { updatedAt, ...rest } = demo["tenants/acme-north/objectInstances/" + id]; return rest; };
const options = { instanceId: "bench", targetName: "Acme North", generatedAt: new Date(0) };
(async () => {
  const ids = process.argv[1].split(",");
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  await renderInstancePdf(instance(ids[0]), options);
  const first = performance.now() - started;
  for (const id of ids.slice(1)) await renderInstancePdf(instance(id), options);
  const warmStarted = performance.now();
  await renderInstancePdf(instance(ids[0]), options);
  const warm = performance.now() - warmStarted;
  console.log(JSON.stringify({ first, warm, families: loadedFamilies().length, rssMiB: process.memoryUsage().rss / 1048576, beforeMiB: rssBefore / 1048576, peakRssMiB: process.resourceUsage().maxRSS / 1024 }));
})();
`;

const LINES: [key: string, name: string, ids: string][] = [
  ["latin", "first render of a Latin document (inspection-short): Noto Sans only", "inspection-short"],
  ["cjk", "first render of a CJK document (script-cjk): Noto Sans JP, KR and SC, Latin; no HarfBuzz", "script-cjk"],
  ["arabic", "first render of an Arabic document (script-rtl): HarfBuzz started", "script-rtl"],
  ["world", "first render of every script (world-scripts): twelve families, HarfBuzz", "world-scripts"],
  ["all", "every demo document in one process (all families, regular and bold, shaped)", "world-scripts,script-cjk,script-rtl,script-indic,script-sea,script-more,inspection-short,multilingual"],
];

/** Fresh processes per row: one process's first render moved by half from run to run (75 and 113 ms for the CJK row). */
export const FONT_LOADING_PROCESSES = 5;

export interface FontLoadingRow {
  key: string;
  name: string;
  /** ms of the first render (the module loaded before it), and of the second: medians over the processes. */
  first: number;
  firstMin: number;
  firstMax: number;
  warm: number;
  families: number;
  /** The median process's memory. */
  rssMiB: number;
  peakRssMiB: number;
}

type ProcessResult = Omit<FontLoadingRow, "key" | "name" | "firstMin" | "firstMax">;

/** Each row from FONT_LOADING_PROCESSES fresh processes, the rows taken in turn (a slow minute of the machine spreads over all of them). */
export function fontLoading(processes = FONT_LOADING_PROCESSES): FontLoadingRow[] {
  const results: ProcessResult[][] = LINES.map(() => []);
  for (let i = 0; i < processes; i++) {
    LINES.forEach(([, , ids], row) => {
      const out = execFileSync(process.execPath, ["-e", WORKER, ids], { cwd: FUNCTIONS_DIR, encoding: "utf8", maxBuffer: 1 << 20 });
      results[row].push(JSON.parse(out.trim().split("\n").at(-1)!) as ProcessResult);
    });
  }
  return LINES.map(([key, name], row) => {
    const first = summarize(results[row].map((r) => r.first));
    // Memory and families: those of the process whose first render is the median (the upper middle one of an even count).
    const middle = [...results[row]].sort((a, b) => a.first - b.first)[results[row].length >> 1];
    return { key, name, ...middle, first: first.median, firstMin: first.min, firstMax: first.max, warm: median(results[row].map((r) => r.warm)) };
  });
}

/** The rows as a Markdown table. */
export function fontLoadingTable(rows: readonly FontLoadingRow[]): string[] {
  return [
    "| process | first render ms, median (min–max) | second render ms | families loaded | RSS MiB at the end (peak) |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...rows.map((r) => `| ${r.name} | ${r.first.toFixed(0)} (${r.firstMin.toFixed(0)}–${r.firstMax.toFixed(0)}) | ${r.warm.toFixed(1)} | ${r.families} | ${r.rssMiB.toFixed(0)} (${r.peakRssMiB.toFixed(0)}) |`),
  ];
}

if (require.main === module) console.log(fontLoadingTable(fontLoading()).join("\n"));
