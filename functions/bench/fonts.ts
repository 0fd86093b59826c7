/**
 * Font loading, each line in a fresh process as a new print instance would see it: the first render
 * of a Latin document, of a CJK one, of an Arabic one and of the every-script demo (files read,
 * HarfBuzz started), then
 * the memory of a process holding every font, regular and bold, shaped with. Run after
 * `npm run build`:  npm run bench:fonts   (figures go to BENCHMARKS.md, "Fonts")
 */
import { execFileSync } from "node:child_process";
import { DEMO_FIXTURE, FUNCTIONS_DIR } from "./cases";

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

const LINES: [string, string][] = [
  ["first render of a Latin document (inspection-short): Noto Sans only", "inspection-short"],
  ["first render of a CJK document (script-cjk): Noto Sans JP, KR and SC, Latin; no HarfBuzz", "script-cjk"],
  ["first render of an Arabic document (script-rtl): HarfBuzz started", "script-rtl"],
  ["first render of every script (world-scripts): twelve families, HarfBuzz", "world-scripts"],
  ["every demo document in one process (all families, regular and bold, shaped)", "world-scripts,script-cjk,script-rtl,script-indic,script-sea,script-more,inspection-short,multilingual"],
];

/** The table (Markdown lines), each row from a fresh process. */
export function fontLoadingTable(): string[] {
  const lines = ["| process | first render ms | second render ms | families loaded | RSS MiB at the end (peak) |", "| --- | ---: | ---: | ---: | ---: |"];
  for (const [name, ids] of LINES) {
    const out = execFileSync(process.execPath, ["-e", WORKER, ids], { cwd: FUNCTIONS_DIR, encoding: "utf8", maxBuffer: 1 << 20 });
    const r = JSON.parse(out.trim().split("\n").at(-1)!) as { first: number; warm: number; families: number; rssMiB: number; peakRssMiB: number };
    lines.push(`| ${name} | ${r.first.toFixed(0)} | ${r.warm.toFixed(1)} | ${r.families} | ${r.rssMiB.toFixed(0)} (${r.peakRssMiB.toFixed(0)}) |`);
  }
  return lines;
}

if (require.main === module) console.log(fontLoadingTable().join("\n"));
