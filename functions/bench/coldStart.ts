/**
 * Cold start: how long a fresh Node process takes to import each function's code, median of
 * RUNS processes, compared with importing firebase-functions' https module and express alone.
 * Run after `npm run build`:  npm run bench:cold-start   (bench/run.ts runs it with the rest)
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FUNCTIONS_DIR } from "./cases";
import { fmt, summarize, type Summary } from "./stats";

/** Processes per row: with 10, the api's ratio to the base moved between 1.36x and 1.55x across runs of unchanged code. */
export const RUNS = 20;

export interface ColdStartCase {
  key: "base" | "api" | "print" | "renderer";
  name: string;
  modules: string[];
  /** Target: at most this many times the base (undefined: shown for information). */
  targetRatio?: number;
}

/** Each case is the list of modules one process requires, timed together. */
export const CASES: ColdStartCase[] = [
  { key: "base", name: "base (firebase-functions/v2/https + express)", modules: ["firebase-functions/v2/https", "express"] },
  { key: "api", name: "api (lib/index.js + lib/api/app.js)", modules: ["./lib/index.js", "./lib/api/app.js"], targetRatio: 1.5 },
  { key: "print", name: "print (lib/index.js + lib/print/app.js)", modules: ["./lib/index.js", "./lib/print/app.js"], targetRatio: 2 },
  // The renderer is loaded on the first render, not at cold start: its own import cost, for information.
  { key: "renderer", name: "print's renderer, loaded on first render (lib/print/render)", modules: ["./lib/print/render/index.js"] },
];

export interface ColdStartRow {
  key: ColdStartCase["key"];
  name: string;
  ms: Summary;
  /** median / base median */
  ratio: number;
  /** CPU time of the imports (all threads): less sensitive than wall time to other load on the machine. */
  cpuMs: Summary;
  cpuRatio: number;
  targetRatio?: number;
  /** For the functions (rows with a target): the packages they load beyond the base. */
  breakdown?: BreakdownRow[];
}

/** Wall-clock and CPU ms (all threads) of one fresh process's imports. */
function importMs(modules: string[]): { wall: number; cpu: number } {
  const script =
    `const c=process.cpuUsage(),t=process.hrtime.bigint();${modules.map((m) => `require(${JSON.stringify(m)});`).join("")}` +
    `const w=Number(process.hrtime.bigint()-t)/1e6,u=process.cpuUsage(c);console.log(w+" "+(u.user+u.system)/1000)`;
  const [wall, cpu] = execFileSync(process.execPath, ["-e", script], { cwd: FUNCTIONS_DIR, encoding: "utf8" }).trim().split(" ").map(Number);
  return { wall, cpu };
}

// ---- where the time goes -------------------------------------------------------------------------

/**
 * A preload script (node -r) that times every first load of a package (inclusive: with what it loads)
 * when our own code (lib/) requires it, after the base modules are loaded untimed, then prints JSON.
 */
const HOOK = `
const Module = require("module");
const path = require("path");
const lib = path.join(process.cwd(), "lib") + path.sep;
const rows = {};
const seen = new Set();
let timing = false;
const load = Module._load;
Module._load = function (request, parent, isMain) {
  let file;
  try { file = Module._resolveFilename(request, parent, isMain); } catch { return load.apply(this, arguments); }
  const fromLib = timing && parent && parent.filename && parent.filename.startsWith(lib) && !file.startsWith(lib) && file.includes("node_modules");
  if (!fromLib || seen.has(file)) return load.apply(this, arguments);
  seen.add(file);
  const t = process.hrtime.bigint();
  try { return load.apply(this, arguments); } finally {
    const key = request + "  (from " + path.relative(process.cwd(), parent.filename) + ")";
    rows[key] = (rows[key] || 0) + Number(process.hrtime.bigint() - t) / 1e6;
  }
};
globalThis.__coldStartBreakdown = (base, modules) => {
  for (const m of base) require(require.resolve(m, { paths: [process.cwd()] }));
  timing = true;
  for (const m of modules) require(require.resolve(m, { paths: [process.cwd()] }));
  process.stdout.write(JSON.stringify(rows));
};
`;

export interface BreakdownRow {
  /** "firebase-functions  (from lib/logs.js)" */
  what: string;
  ms: number;
}

/** The packages our code loads beyond the base, by inclusive import time (median of `runs`), largest first. */
export function breakdown(modules: string[], runs = 3, top = 6): BreakdownRow[] {
  const dir = join(tmpdir(), "print-bench");
  mkdirSync(dir, { recursive: true });
  const hook = join(dir, "cold-start-hook.js");
  writeFileSync(hook, HOOK);
  const base = CASES[0].modules;
  const all = new Map<string, number[]>();
  for (let i = 0; i < runs; i++) {
    const out = execFileSync(process.execPath, ["-r", hook, "-e", `__coldStartBreakdown(${JSON.stringify(base)}, ${JSON.stringify(modules)})`], { cwd: FUNCTIONS_DIR, encoding: "utf8" });
    for (const [k, v] of Object.entries(JSON.parse(out) as Record<string, number>)) all.set(k, [...(all.get(k) ?? []), v]);
  }
  return [...all]
    .map(([what, ms]) => ({ what, ms: summarize(ms).median }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, top);
}

export function measureColdStart(runs = RUNS): ColdStartRow[] {
  // Interleaved (base, api, print, ... base, api, print) so that a slow moment hits every case alike.
  const times = new Map<string, { wall: number; cpu: number }[]>(CASES.map((c) => [c.key, []]));
  for (let i = 0; i < runs; i++) for (const c of CASES) times.get(c.key)!.push(importMs(c.modules));
  const base = summarize(times.get("base")!.map((t) => t.wall)).median;
  const baseCpu = summarize(times.get("base")!.map((t) => t.cpu)).median;
  return CASES.map((c) => {
    const ms = summarize(times.get(c.key)!.map((t) => t.wall));
    const cpuMs = summarize(times.get(c.key)!.map((t) => t.cpu));
    return {
      key: c.key,
      name: c.name,
      ms,
      ratio: ms.median / base,
      cpuMs,
      cpuRatio: cpuMs.median / baseCpu,
      targetRatio: c.targetRatio,
      breakdown: c.targetRatio !== undefined ? breakdown(c.modules) : undefined,
    };
  });
}

if (require.main === module) {
  const rows = measureColdStart();
  console.log(`Import time, median of ${RUNS} fresh processes (node ${process.version}):`);
  for (const r of rows) {
    console.log(
      `  ${r.name.padEnd(62)} ${fmt(r.ms.median).padStart(7)} ms  (min ${fmt(r.ms.min)}, max ${fmt(r.ms.max)})  ${r.ratio.toFixed(2)}x base;  CPU ${fmt(r.cpuMs.median)} ms, ${r.cpuRatio.toFixed(2)}x`,
    );
  }
  for (const c of CASES.filter((x) => x.targetRatio !== undefined)) {
    console.log(`Packages ${c.key} loads beyond the base (inclusive ms, median of 3):`);
    for (const b of breakdown(c.modules)) console.log(`  ${fmt(b.ms).padStart(7)} ms  ${b.what}`);
  }
}
