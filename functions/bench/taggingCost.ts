/**
 * What tagging adds to the one-page render, in instructions rather than milliseconds: timings on a
 * shared 2-core machine vary by 20-40% between runs, instruction counts under valgrind in V8's
 * predictable mode (V8_FLAGS) by a few instructions a render. Renders the case N1 and N2 times in
 * fresh single-threaded processes under valgrind (Debian's valgrind, installed where missing) and
 * prints (count(N2) - count(N1)) / (N2 - N1) per variant: tagged (as printed), untagged (tagged:
 * false), so start-up cancels out. N1 is past the first few hundred renders, where V8 is still
 * compiling the renderer (renders 30 to 330 cost 2.6 M instructions more each than renders 330 to
 * 1,330, measured): a warm instance, and the bench's timed loop of up to 2,000 renders, run compiled code.
 * Run after `npm run build`:  npm run bench:tagging   (about three minutes; not part of npm run bench)
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureDebianPackage } from "../stack/debianPackages";
import { buildCases, RENDERER_MODULE, renderOptions, type RendererModule } from "./cases";

const [N1, N2] = [330, 1330];
/**
 * V8 in its predictable mode, with fixed seeds: without them a count moves with the clock (the
 * garbage collector's heuristics follow it) and with the seeds of hash tables. Measured, two runs of
 * 200 renders while other processes ran: 18 M instructions apart with the seeds alone, 11 M with a
 * fixed collection schedule too, 1,877 in predictable mode. In predictable mode a render takes about
 * 3% more instructions than in a normal process, and tagging's share comes out about a point lower
 * (7.0% against 7.8% with the seeds alone, session 8): it is for comparing variants and changes.
 */
const V8_FLAGS = ["--predictable", "--hash-seed=1", "--random-seed=1"];
const VARIANTS = { tagged: true, untagged: false } as const;

/**
 * The worker, a plain CommonJS file. The same renderer measured through `node --eval`, or with
 * --perf-basic-prof under callgrind, came out at 9.5% and 8.9% where this set-up gives 5.0-5.4%
 * (session 8; an earlier build: 8.9% under tsx's loader against 6.9% here). The untagged count
 * holds at 11.7-11.8 M a render, the tagged one is either 12.4 M or 12.8-12.9 M (cause not found;
 * the collector and code layout are the suspects). Compare changes within one set-up, and read the
 * share as a range.
 */
const WORKER = join(__dirname, "taggingWorker.cjs");

/** Instructions valgrind counts for a worker process (all of it: start-up, compilation, renders). */
function instructions(caseFile: string, tagged: boolean, count: number): Promise<number> {
  const args = ["--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", "--smc-check=all-non-file"];
  const node = [process.execPath, "--single-threaded", ...V8_FLAGS, WORKER, RENDERER_MODULE, caseFile, String(tagged), String(count)];
  return new Promise((resolve, reject) => {
    const child = spawn("valgrind", [...args, ...node], { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("close", (code) => {
      const refs = /I\s+refs:\s+([\d,]+)/.exec(err);
      if (code === 0 && refs) resolve(Number(refs[1].replaceAll(",", "")));
      else reject(new Error(`valgrind exited ${code}: ${err.split("\n").slice(-5).join(" ")}`));
    });
  });
}

async function main(): Promise<void> {
  const missing = ensureDebianPackage("valgrind", "/usr/bin/valgrind", (line) => console.log(`[bench:tagging] ${line}`));
  if (missing) throw new Error(missing);
  const renderer = require(RENDERER_MODULE) as RendererModule;
  const onePage = (await buildCases(renderer)).find((c) => c.key === "one-page");
  if (!onePage) throw new Error("no one-page case");
  const dir = mkdtempSync(join(tmpdir(), "tagging-cost-"));
  try {
    const caseFile = join(dir, "case.json");
    writeFileSync(caseFile, JSON.stringify({ instance: onePage.instance, options: renderOptions(onePage) }));
    console.log(`[bench:tagging] ${onePage.name}: ${N1} and ${N2} renders per variant under valgrind (two at a time)`);
    const perRender: Record<string, number> = {};
    for (const [name, tagged] of Object.entries(VARIANTS)) {
      const [a, b] = await Promise.all([instructions(caseFile, tagged, N1), instructions(caseFile, tagged, N2)]);
      perRender[name] = (b - a) / (N2 - N1);
      console.log(`[bench:tagging] ${name.padEnd(8)} ${(perRender[name] / 1e6).toFixed(2)} M instructions per render`);
    }
    const share = perRender.tagged / perRender.untagged - 1;
    console.log(`[bench:tagging] tagging adds ${(100 * share).toFixed(1)}% instructions to the one-page render (valgrind ${execFileSync("valgrind", ["--version"], { encoding: "utf8" }).trim()})`);
    console.log("[bench:tagging] other process set-ups gave 8.9-9.5% for the same build (session 8): see WORKER in bench/taggingCost.ts");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
