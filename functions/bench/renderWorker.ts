// One rendering measurement in a process of its own (so that memory peaks never mix):
//   node --expose-gc --import tsx bench/renderWorker.ts <engine> <cases.json> <case key> <out dir> <budget JSON>
// Loads the engine, measures idle memory, renders the case a few times to warm up, then renders it
// again and again for a time budget and prints one line: RESULT {json}. An engine that caches results
// across renders (Typst) is made to forget them before each render, outside the timing (Engine.forget).

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BenchCase } from "./cases";
import { createEngine, type EngineName } from "./engines";

export interface WorkerBudget {
  warmup: number;
  minIterations: number;
  maxIterations: number;
  /** Measuring stops after this many ms once minIterations are done. */
  budgetMs: number;
}

export interface WorkerResult {
  engine: EngineName;
  caseKey: string;
  pageCount: number;
  sizeBytes: number;
  /** Wall-clock ms of each measured render. */
  samplesMs: number[];
  /** CPU ms per PDF over the measured renders: this process (all threads) plus helper processes. */
  cpuMsPerPdf: number;
  /** Resident memory of this process before loading the engine (Node.js and tsx). */
  bareBytes: number;
  /** Resident memory after loading the engine, before the first render (this process + helpers' PSS). */
  idleBytes: number;
  /**
   * High-water mark: this process's max RSS + the helpers' highest PSS, sampled every 20 ms during
   * extra renders after the timed ones (sampling /proc costs CPU, so it never runs while timing).
   */
  peakBytes: number;
  /** Where the first output was written. */
  outputFile: string;
}

/** Pages in a PDF: page objects counted in the file (engines that do not say it themselves). */
export function countPages(bytes: Uint8Array): number {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  return (text.match(/\/Type\s*\/Page(?![s\w])/g) ?? []).length;
}

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

async function main(): Promise<void> {
  const [engineName, casesFile, caseKey, outDir, budgetJson] = process.argv.slice(2);
  const cases = JSON.parse(readFileSync(casesFile, "utf8")) as BenchCase[];
  const c = cases.find((x) => x.key === caseKey);
  if (!c) throw new Error(`unknown case ${caseKey}`);
  const budget = JSON.parse(budgetJson) as WorkerBudget;

  gc();
  const bareBytes = process.memoryUsage().rss;
  const engine = await createEngine(engineName as EngineName);
  let helperPeak = 0;
  const sampleHelpers = (): number => {
    const b = engine.helperMemoryBytes?.() ?? 0;
    if (b > helperPeak) helperPeak = b;
    return b;
  };
  gc();
  const idleBytes = process.memoryUsage().rss + sampleHelpers();
  let sampler: NodeJS.Timeout | undefined;
  // CPU time of engine.forget() (outside the timing), left out of the CPU time per PDF.
  let forgetCpuMs = 0;
  const forget = (): void => {
    if (!engine.forget) return;
    const c0 = process.cpuUsage();
    engine.forget();
    const d = process.cpuUsage(c0);
    forgetCpuMs += (d.user + d.system) / 1000;
  };
  try {
    let first: Uint8Array | undefined;
    let pageCount = 0;
    for (let i = 0; i < budget.warmup; i++) {
      forget();
      const out = await engine.render(c);
      if (!first) {
        first = out.bytes;
        pageCount = out.pageCount ?? countPages(out.bytes);
      }
    }
    if (!first) throw new Error("warmup must render at least once");
    const outputFile = join(outDir, `${engineName}-${caseKey}.pdf`);
    writeFileSync(outputFile, first);

    const samplesMs: number[] = [];
    const cpu0 = process.cpuUsage();
    const helperCpu0 = engine.helperCpuMs?.() ?? 0;
    forgetCpuMs = 0;
    const start = performance.now();
    while (samplesMs.length < budget.maxIterations && (samplesMs.length < budget.minIterations || performance.now() - start < budget.budgetMs)) {
      forget();
      const t = performance.now();
      await engine.render(c);
      samplesMs.push(performance.now() - t);
    }
    const cpu = process.cpuUsage(cpu0);
    const helperCpu = (engine.helperCpuMs?.() ?? 0) - helperCpu0;
    const measuredForgetCpuMs = forgetCpuMs;
    if (engine.helperMemoryBytes) {
      // The helpers' memory peak: a few more renders while sampling.
      sampler = setInterval(sampleHelpers, 20);
      const t = performance.now();
      for (let i = 0; i < 3 || performance.now() - t < 1000; i++) {
        forget();
        await engine.render(c);
      }
      clearInterval(sampler);
      sampleHelpers();
    }
    const result: WorkerResult = {
      engine: engineName as EngineName,
      caseKey,
      pageCount,
      sizeBytes: first.byteLength,
      samplesMs,
      cpuMsPerPdf: ((cpu.user + cpu.system) / 1000 - measuredForgetCpuMs + helperCpu) / samplesMs.length,
      bareBytes,
      idleBytes,
      peakBytes: process.resourceUsage().maxRSS * 1024 + helperPeak,
      outputFile,
    };
    process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  } finally {
    if (sampler) clearInterval(sampler);
    await engine.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
