// What tagging adds to a render, in time: an engine's untagged and tagged variants alternate render by
// render in one worker process, so that both meet the same machine. This machine's speed moves in
// phases of seconds (a one-page render takes 1.2 ms for a while, then 2.5 ms, every engine alike:
// measured), so variants timed in separate processes, seconds apart, do not compare: for one build
// they gave tagging +58% of our one page where pairs give 11-14%. Paired, the share stays within a
// few points from run to run (ours 9-12% in five runs of session 9, with the machine's phase).
// Both variants share one heap: collector work that the tagged render's allocations cause can land in
// an untagged render, so the share may come out a little low (the orders alternate pair by pair).
// Measures lib/ (what the function runs); setup builds it first when src/ is newer.
//   npm run bench:tagging     ours and Typst on the one-page case, 3 processes of 3 s each (npm run
//                             bench measures the same after its table: render.ts)
//   node --import tsx bench/taggingPairs.ts --worker <untagged engine> <tagged engine> <cases.json> <case key> <budget ms>
//                             one worker: prints RESULT {json}, the ms of each render of each variant

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildCases, RENDERER_MODULE, type BenchCase, type RendererModule } from "./cases";
import { createEngine, PEER_OF, type EngineName } from "./engines";
import { setup } from "./setup";
import { median, summarize, type Summary } from "./stats";

/** The variants compared: ours, and Typst's (the target's reference). */
export const TAGGING_PAIRS = [
  ["ours-untagged", "ours"],
  ["typst", "typst-tagged"],
] as const satisfies readonly (readonly [EngineName, EngineName])[];

/** Renders of each variant before timing (JIT and caches warm). */
export const WARMUP = 20;

/** The ms of each render, pair by pair: untaggedMs[i] and taggedMs[i] ran one after the other. */
interface PairWorkerResult {
  untaggedMs: number[];
  taggedMs: number[];
}

export interface TaggingPairs {
  caseKey: string;
  untagged: EngineName;
  tagged: EngineName;
  /** ms per render of each variant, every process pooled. */
  untaggedMs: Summary;
  taggedMs: Summary;
  /**
   * The median of tagged / untagged - 1 over every pair: each pair meets one phase of the machine
   * (pooled medians of processes that met different phases can fall outside every process's share).
   */
  share: number;
  /** The median of tagged - untagged over every pair, ms. */
  addedMs: number;
  /** The share per process (its spread). */
  processShares: Summary;
}

/** Runs `processes` paired workers of `untagged` and `tagged` on case `c`, `budgetMs` each. */
export function pairedTaggingCost(casesFile: string, c: BenchCase, untagged: EngineName, tagged: EngineName, processes: number, budgetMs: number, env: NodeJS.ProcessEnv): TaggingPairs {
  const runs: PairWorkerResult[] = [];
  for (let p = 0; p < processes; p++) {
    const r = spawnSync(process.execPath, ["--import", "tsx", __filename, "--worker", untagged, tagged, casesFile, c.key, String(budgetMs)], {
      cwd: resolve(__dirname, ".."),
      env,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      timeout: 10 * 60_000,
    });
    const line = r.stdout?.split("\n").find((l) => l.startsWith("RESULT "));
    if (r.status !== 0 || !line) throw new Error(`tagging pairs ${untagged}/${tagged} on ${c.key} failed (exit ${r.status ?? r.signal}): ${(r.stderr || "").trim().split("\n").slice(0, 3).join(" | ")}`);
    runs.push(JSON.parse(line.slice("RESULT ".length)) as PairWorkerResult);
  }
  const shares = (r: PairWorkerResult): number[] => r.taggedMs.map((t, i) => t / r.untaggedMs[i] - 1);
  return {
    caseKey: c.key,
    untagged,
    tagged,
    untaggedMs: summarize(runs.flatMap((r) => r.untaggedMs)),
    taggedMs: summarize(runs.flatMap((r) => r.taggedMs)),
    share: median(runs.flatMap(shares)),
    addedMs: median(runs.flatMap((r) => r.taggedMs.map((t, i) => t - r.untaggedMs[i]))),
    processShares: summarize(runs.map((r) => median(shares(r)))),
  };
}

/** One worker: both variants loaded, rendering in turn for `budgetMs`. */
async function worker(untagged: string, tagged: string, casesFile: string, caseKey: string, budgetMs: string): Promise<void> {
  const c = (JSON.parse(readFileSync(casesFile, "utf8")) as BenchCase[]).find((x) => x.key === caseKey);
  if (!c) throw new Error(`unknown case ${caseKey}`);
  const engines = [await createEngine(untagged as EngineName), await createEngine(tagged as EngineName)];
  const samples: [number[], number[]] = [[], []];
  const render = async (k: 0 | 1): Promise<number> => {
    engines[k].forget?.();
    const start = process.hrtime.bigint();
    await engines[k].render(c);
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  try {
    for (let i = 0; i < WARMUP; i++) for (const k of [0, 1] as const) await render(k);
    const end = Date.now() + Number(budgetMs);
    // Each pair in the other order from the last: neither variant always follows the other.
    for (let i = 0; Date.now() < end; i++) for (const k of i % 2 ? ([1, 0] as const) : ([0, 1] as const)) samples[k].push(await render(k));
  } finally {
    for (const e of engines) await e.close();
  }
  console.log(`RESULT ${JSON.stringify({ untaggedMs: samples[0], taggedMs: samples[1] } satisfies PairWorkerResult)}`);
}

/** npm run bench:tagging: both pairs on the one-page case. */
async function standalone(): Promise<void> {
  const s = setup(TAGGING_PAIRS.flat());
  const onePage = (await buildCases(require(RENDERER_MODULE) as RendererModule)).find((c) => c.key === "one-page");
  if (!onePage) throw new Error("no one-page case");
  const dir = mkdtempSync(join(tmpdir(), "tagging-pairs-"));
  try {
    const casesFile = join(dir, "cases.json");
    writeFileSync(casesFile, JSON.stringify([onePage]));
    for (const [untagged, tagged] of TAGGING_PAIRS) {
      const peer = PEER_OF[tagged];
      if (peer && s.unavailable[peer]) {
        console.log(`[bench:tagging] ${s.unavailable[peer]}`);
        continue;
      }
      const p = pairedTaggingCost(casesFile, onePage, untagged, tagged, 3, 3000, s.env);
      const pct = (x: number): string => `${x < 0 ? "" : "+"}${(100 * x).toFixed(1)}%`;
      console.log(
        `[bench:tagging] ${tagged.padEnd(12)} ${p.untaggedMs.median.toFixed(3)} -> ${p.taggedMs.median.toFixed(3)} ms a render (pooled medians); per pair (median): ${pct(p.share)}, ` +
          `${p.addedMs < 0 ? "" : "+"}${p.addedMs.toFixed(3)} ms (per process ${pct(p.processShares.min)} to ${pct(p.processShares.max)}; ${p.untaggedMs.n} pairs)`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const [mode, ...args] = process.argv.slice(2);
  (mode === "--worker" ? worker(args[0], args[1], args[2], args[3], args[4]) : standalone()).then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : e);
      process.exit(1);
    },
  );
}
