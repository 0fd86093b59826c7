// `npm run bench` (functions/) or `npm run bench` at the root (installs and builds first):
// the rendering benchmark (render.ts), cold start (coldStart.ts), and over a running local stack the
// end-to-end figures (http.ts) and print jobs (jobs.ts); prints the report and, when every part ran,
// writes it to docs/BENCHMARKS.md.
//
// Options (after `--`):
//   --only=render,fonts,cold,http,jobs   run only these parts (default: all)
//   --quick                   one worker process per (engine, case), 1 s each: a smoke run, not for the report
//   --processes=N             worker processes per (engine, case) (default 3)
//   --engines=ours,pdfmake    rendering engines to run (default: all: ours, ours-untagged, chromium,
//                             chromium-tagged, typst, typst-warm, typst-tagged, pdfmake; ours always runs)
//   --cases=one-page,audit-long  rendering cases to run (one-page, inspection-short, audit-long, table-2000,
//                             world-one-page, arabic-20, japanese-20, photos)
//   --no-write                print the report only

import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { FUNCTIONS_DIR } from "./cases";
import { measureColdStart, RUNS } from "./coldStart";
import { FONT_LOADING_PROCESSES, fontLoading } from "./fonts";
import { shapingTable } from "./shaping";
import { ENGINES, type EngineName } from "./engines/types";
import { runHttpBench } from "./http";
import { runJobsBench } from "./jobs";
import { loadAverage, machine } from "./machine";
import { DEFAULT_RENDER_OPTIONS, runRenderBench } from "./render";
import { markdown } from "./report";
import type { RenderOptionsBench, Report } from "./results";
import { ensureBuilt, setup } from "./setup";

export const REPORT_FILE = join(FUNCTIONS_DIR, "docs", "BENCHMARKS.md");

function parseArgs(argv: string[]): { parts: Set<string>; render: RenderOptionsBench; write: boolean; quick: boolean } {
  const get = (name: string): string | undefined => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const parts = new Set((get("only") ?? "render,fonts,cold,http,jobs").split(",").map((s) => s.trim()));
  for (const p of parts) if (!["render", "fonts", "cold", "http", "jobs"].includes(p)) throw new Error(`--only: unknown part '${p}' (render, fonts, cold, http, jobs)`);
  const quick = argv.includes("--quick");
  const engines = (get("engines")?.split(",") ?? [...ENGINES]) as EngineName[];
  for (const e of engines) if (!ENGINES.includes(e)) throw new Error(`--engines: unknown engine '${e}' (${ENGINES.join(", ")})`);
  if (!engines.includes("ours")) engines.unshift("ours");
  const processes = Number(get("processes") ?? (quick ? 1 : DEFAULT_RENDER_OPTIONS.processes));
  if (!Number.isInteger(processes) || processes < 1) throw new Error("--processes must be a whole number from 1");
  const budget = quick ? { ...DEFAULT_RENDER_OPTIONS.budget, budgetMs: 1000, minIterations: 3 } : DEFAULT_RENDER_OPTIONS.budget;
  const cases = get("cases")?.split(",");
  return { parts, render: { processes, budget, engines, cases }, write: !argv.includes("--no-write"), quick };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`;
  console.log("[bench] print-admin benchmarks: rendering (ours, Chromium, Typst, pdfmake), cold start, and end to end over a running local stack");
  console.log("[bench] the local stack is never started here");
  const m = machine();
  const report: Report = { machine: m, loadAtEnd: "", durationS: 0, command };
  if (args.parts.has("render")) {
    const s = setup(args.render.engines);
    for (const why of Object.values(s.unavailable)) console.log(`[bench] ${why}`);
    // The versions may have changed (chromium or packages installed just now).
    report.machine = { ...machine(), date: m.date, load: m.load };
    report.render = await runRenderBench(args.render, s);
  }
  if (args.parts.has("fonts")) {
    ensureBuilt();
    console.log(`[bench] fonts: first renders in ${FONT_LOADING_PROCESSES} fresh processes a row, and the two shaping paths`);
    report.fonts = { loading: fontLoading(), shaping: await shapingTable() };
  }
  if (args.parts.has("cold")) {
    ensureBuilt();
    console.log(`[bench] cold start: ${RUNS} fresh processes per module`);
    report.coldStart = measureColdStart(RUNS);
  }
  if (args.parts.has("http")) report.http = await runHttpBench();
  if (args.parts.has("jobs")) report.jobs = await runJobsBench();
  report.loadAtEnd = loadAverage();
  report.durationS = (Date.now() - started) / 1000;
  const md = markdown(report);
  console.log(`\n${md}`);
  if (args.write && !args.quick && !args.render.cases && args.parts.size === 5) {
    mkdirSync(join(FUNCTIONS_DIR, "docs"), { recursive: true });
    writeFileSync(REPORT_FILE, md);
    console.log(`[bench] written to ${relative(process.cwd(), REPORT_FILE) || REPORT_FILE}`);
  } else {
    console.log("[bench] report not written (--quick, --cases, --only or --no-write: the file holds every part)");
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exit(1);
});
