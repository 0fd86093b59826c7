// Rendering benchmark, in process and warm: our renderer, headless Chromium, Typst and pdfmake on the
// same documents (cases.ts). Each (engine, case) runs in fresh worker processes (renderWorker.ts),
// several times, interleaved, so that memory peaks never mix and slow drift hits every engine alike.
// An engine that cannot print a case at all (pdfmake and the world scripts) is not run on it: the
// table says why (engines/types.ts, cannotPrint).
// Run alone (bench/run.ts runs it with the rest):
//   node --import tsx bench/render.ts [--engines=ours,typst,chromium] [--cases=one-page,world-one-page]
//     [--processes=N] [--budget-ms=MS]     prints the rendering part of the report (targets included)

import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildCases, RENDERER_MODULE, type BenchCase, type RendererModule } from "./cases";
import { cannotPrint, ENGINES, PEER_OF, type EngineName } from "./engines/types";
import type { WorkerBudget, WorkerResult } from "./renderWorker";
import { loadAverage, machine } from "./machine";
import { markdown } from "./report";
import { whereTimeGoes, type WhereTimeGoes } from "./profile";
import type { EngineCaseResult, RenderBenchResult, RenderOptionsBench, Report } from "./results";
import { setup, type Setup } from "./setup";
import { cannotPair, describe, enginesOf, pairedCost, PAIRS, type PairedCost } from "./pairs";
import { median, summarize } from "./stats";

export const DEFAULT_RENDER_OPTIONS: RenderOptionsBench = {
  processes: 3,
  budget: { warmup: 3, minIterations: 5, maxIterations: 2000, budgetMs: 3000 },
  engines: ENGINES,
};

const WORKER = resolve(__dirname, "renderWorker.ts");
/** Cases profiled besides the world-scripts ones (report.ts reads garbage collection's share of the long ones). */
export const PROFILED = ["one-page", "audit-long", "table-2000"];
const MiB = 1024 * 1024;

function runWorker(engine: EngineName, casesFile: string, c: BenchCase, outDir: string, budget: WorkerBudget, env: NodeJS.ProcessEnv): WorkerResult {
  const r = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", WORKER, engine, casesFile, c.key, outDir, JSON.stringify(budget)], {
    cwd: resolve(__dirname, ".."),
    env,
    encoding: "utf8",
    maxBuffer: 64 * MiB,
    timeout: 15 * 60_000,
  });
  const line = r.stdout?.split("\n").find((l) => l.startsWith("RESULT "));
  if (r.status !== 0 || !line) {
    const err = (r.stderr || r.error?.message || "").trim().split("\n").slice(0, 3).join(" | ");
    throw new Error(`${engine} worker on ${c.key} failed (exit ${r.status ?? r.signal}): ${err}`);
  }
  return JSON.parse(line.slice("RESULT ".length)) as WorkerResult;
}

function aggregate(engine: EngineName, c: BenchCase, runs: WorkerResult[]): EngineCaseResult {
  const sizes = new Set(runs.map((r) => r.sizeBytes));
  return {
    engine,
    caseKey: c.key,
    pageCount: runs[0].pageCount,
    sizeBytes: median(runs.map((r) => r.sizeBytes)),
    sizeVaries: sizes.size > 1,
    timeMs: summarize(runs.flatMap((r) => r.samplesMs)),
    cpuMs: summarize(runs.map((r) => r.cpuMsPerPdf)),
    perSecondOneCore: summarize(runs.map((r) => 1000 / r.cpuMsPerPdf)),
    peakMiB: summarize(runs.map((r) => r.peakBytes / MiB)),
    idleMiB: summarize(runs.map((r) => r.idleBytes / MiB)),
    renders: runs.reduce((a, r) => a + r.samplesMs.length, 0),
    bareMiB: median(runs.map((r) => r.bareBytes / MiB)),
    outputFile: runs[0].outputFile,
  };
}

export async function runRenderBench(options: RenderOptionsBench = DEFAULT_RENDER_OPTIONS, prepared?: Setup): Promise<RenderBenchResult> {
  const s = prepared ?? setup(options.engines);
  const renderer = require(RENDERER_MODULE) as RendererModule;
  const all = await buildCases(renderer);
  const unknown = (options.cases ?? []).filter((k) => !all.some((c) => c.key === k));
  if (unknown.length) throw new Error(`--cases: unknown case ${unknown.join(", ")} (${all.map((c) => c.key).join(", ")})`);
  const cases = all.filter((c) => !options.cases || options.cases.includes(c.key));
  const outDir = join(tmpdir(), "print-bench");
  mkdirSync(outDir, { recursive: true });
  const casesFile = join(outDir, "cases.json");
  writeFileSync(casesFile, JSON.stringify(cases));

  const runs = new Map<string, WorkerResult[]>();
  const failed = new Map<string, string>();
  const key = (e: EngineName, c: BenchCase) => `${e}/${c.key}`;
  for (let p = 0; p < options.processes; p++) {
    for (const c of cases) {
      for (const e of options.engines) {
        const peer = PEER_OF[e];
        if (peer && s.unavailable[peer]) continue;
        if (cannotPrint(e, c) || failed.has(key(e, c))) continue;
        const t = Date.now();
        try {
          const r = runWorker(e, casesFile, c, outDir, options.budget, s.env);
          runs.set(key(e, c), [...(runs.get(key(e, c)) ?? []), r]);
          console.log(
            `[bench] render ${p + 1}/${options.processes} ${c.key.padEnd(16)} ${e.padEnd(8)} median ${median(r.samplesMs).toFixed(2).padStart(8)} ms` +
              `  ${String(r.samplesMs.length).padStart(4)} renders  ${r.pageCount} pages  ${(r.sizeBytes / 1024).toFixed(1)} KiB  (${((Date.now() - t) / 1000).toFixed(1)} s)`,
          );
        } catch (err) {
          const msg = err instanceof Error ? err.message : String(err);
          console.log(`[bench] ${msg}`);
          failed.set(key(e, c), msg);
        }
      }
    }
  }

  const results: EngineCaseResult[] = [];
  for (const c of cases) {
    for (const e of options.engines) {
      const peer = PEER_OF[e];
      const unavailable = (peer ? s.unavailable[peer] : undefined) ?? cannotPrint(e, c);
      const got = runs.get(key(e, c));
      if (unavailable) results.push({ engine: e, caseKey: c.key, unavailable });
      else if (failed.has(key(e, c)) && !got?.length) results.push({ engine: e, caseKey: c.key, unavailable: failed.get(key(e, c)) });
      else if (got?.length) results.push(aggregate(e, c, got));
    }
  }
  // Where our time goes on the one-page, the long and the world-scripts cases: profiled after the timed renders.
  const profiles: WhereTimeGoes[] = [];
  for (const c of cases.filter((x) => PROFILED.includes(x.key) || x.worldScripts)) {
    console.log(`[bench] profile ${c.key} (ours, 3 s under the sampling profiler)`);
    profiles.push(whereTimeGoes(casesFile, c));
  }
  // What tagging, a template and signing add, each base and its variant alternating in one process
  // (the separate runs above meet the machine at different moments: their medians are for the table,
  // not for a share of 5%).
  const pairs: PairedCost[] = [];
  for (const [i, p] of PAIRS.entries()) {
    if (!enginesOf(p).every((e) => options.engines.includes(e)) || cannotPair(p, cases, s.unavailable)) continue;
    try {
      const paired = pairedCost(casesFile, i, options.processes, options.budget.budgetMs, s.env);
      console.log(`[bench] pairs ${describe(paired)}`);
      pairs.push(paired);
    } catch (err) {
      console.log(`[bench] ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { cases, results, setupNotes: s.notes, options, outDir, profiles, pairs };
}

/** Options of a run of this file alone (see the header). */
function parseArgs(argv: string[]): RenderOptionsBench {
  const get = (name: string): string | undefined => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const engines = (get("engines")?.split(",") ?? [...ENGINES]) as EngineName[];
  for (const e of engines) if (!ENGINES.includes(e)) throw new Error(`--engines: unknown engine '${e}' (${ENGINES.join(", ")})`);
  if (!engines.includes("ours")) engines.unshift("ours");
  const processes = Number(get("processes") ?? DEFAULT_RENDER_OPTIONS.processes);
  const budgetMs = Number(get("budget-ms") ?? DEFAULT_RENDER_OPTIONS.budget.budgetMs);
  if (!Number.isInteger(processes) || processes < 1) throw new Error("--processes must be a whole number from 1");
  if (!(budgetMs > 0)) throw new Error("--budget-ms must be a positive number");
  return { processes, budget: { ...DEFAULT_RENDER_OPTIONS.budget, budgetMs }, engines, cases: get("cases")?.split(",") };
}

if (require.main === module) {
  const started = Date.now();
  const options = parseArgs(process.argv.slice(2));
  const m = machine();
  runRenderBench(options)
    .then((render) => {
      const report: Report = {
        machine: { ...machine(), date: m.date, load: m.load },
        loadAtEnd: loadAverage(),
        durationS: (Date.now() - started) / 1000,
        command: `node --import tsx bench/render.ts ${process.argv.slice(2).join(" ")}`.trim(),
        render,
      };
      console.log(`\n${markdown(report)}`);
    })
    .catch((e: unknown) => {
      console.error(e);
      process.exit(1);
    });
}
