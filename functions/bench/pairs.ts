// What one feature adds to a render, in time and bytes: a base variant and the variant with the
// feature alternate render by render in one worker process, so that both meet the same machine. This
// machine's speed moves in phases of seconds (a one-page render takes 1.2 ms for a while, then 2.5 ms,
// every engine alike: measured), so variants timed in separate processes, seconds apart, do not
// compare: for one build they gave tagging +58% of our one page where pairs give 11-14%, and a
// templated page 1.48x the default where pairs give 1.17-1.19x. Paired, a share stays within a few
// points from run to run. Both variants share one heap: collector work that one render's allocations
// cause can land in the other's, so a share may come out a little low (the orders alternate pair by pair).
// The features: tagging (ours and Typst's), a print template (issue 35), signing (issue 36, the local
// signer with a throwaway CA). Measures lib/ (what the function runs); setup builds it first when src/ is newer.
//   npm run bench:pairs [-- tagging|template|signing]   those pairs (default: all), 3 processes of 3 s each
//                             (npm run bench measures the same after its table: render.ts)
//   npm run bench:tagging / bench:signing                 the same, one feature
//   node --import tsx bench/pairs.ts --worker <pair index> <cases.json> <budget ms>
//                             one worker: prints RESULT {json}, the ms and bytes of each render of each variant

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildCases, FUNCTIONS_DIR, RENDERER_MODULE, type BenchCase, type RendererModule } from "./cases";
import { createEngine, PEER_OF, type Engine, type EngineName } from "./engines";
import { createOurs } from "./engines/ours";
import { setup } from "./setup";
import { fmt, median, summarize, type Summary } from "./stats";

export type Feature = "tagging" | "template" | "signing";

/** One side of a pair: an engine on a case, ours optionally signing what it prints. */
export interface Variant {
  engine: EngineName;
  caseKey: string;
  signed?: boolean;
}

export interface PairSpec {
  feature: Feature;
  base: Variant;
  /** The base with the feature. */
  variant: Variant;
}

const ours = (caseKey: string, signed?: boolean): Variant => ({ engine: "ours", caseKey, ...(signed && { signed }) });

/** Every pair measured: the targets of issues 18 (tagging against Typst's), 35 (templates) and 36 (signing) read them. */
export const PAIRS: readonly PairSpec[] = [
  { feature: "tagging", base: { engine: "ours-untagged", caseKey: "one-page" }, variant: ours("one-page") },
  { feature: "tagging", base: { engine: "typst", caseKey: "one-page" }, variant: { engine: "typst-tagged", caseKey: "one-page" } },
  { feature: "template", base: ours("one-page"), variant: ours("one-page-templated") },
  { feature: "template", base: ours("photos"), variant: ours("photos-templated") },
  { feature: "signing", base: ours("one-page"), variant: ours("one-page", true) },
];

/** Renders of each variant before timing (JIT and caches warm). */
export const WARMUP = 20;

/** Each render of each variant, pair by pair: baseMs[i] and variantMs[i] ran one after the other. */
interface PairWorkerResult {
  baseMs: number[];
  variantMs: number[];
  baseBytes: number;
  variantBytes: number;
  /** Loading the signing libraries (pkijs, asn1js), once a process, when the variant signs. */
  signingLoadMs?: number;
}

export interface PairedCost {
  spec: PairSpec;
  /** ms per render of each side, every process pooled. */
  baseMs: Summary;
  variantMs: Summary;
  /**
   * The median of variant / base - 1 over every pair: each pair meets one phase of the machine
   * (pooled medians of processes that met different phases can fall outside every process's share).
   */
  share: number;
  /** The median of variant - base over every pair, ms. */
  addedMs: number;
  /** The share per process (its spread). */
  processShares: Summary;
  /** One PDF of each side (the last one a worker printed). */
  baseBytes: number;
  variantBytes: number;
  signingLoadMs?: number;
}

/** The engines and peers a pair needs, as setup() and the run's engine list name them. */
export const enginesOf = (p: PairSpec): EngineName[] => [p.base.engine, p.variant.engine];

/** Why a pair cannot run here (a peer missing, a case not built), or undefined. */
export function cannotPair(p: PairSpec, cases: readonly BenchCase[], unavailable: Partial<Record<string, string>>): string | undefined {
  for (const v of [p.base, p.variant]) {
    const peer = PEER_OF[v.engine];
    if (peer && unavailable[peer]) return unavailable[peer];
    if (!cases.some((c) => c.key === v.caseKey)) return `no case ${v.caseKey} in this run`;
  }
  return undefined;
}

/** Runs `processes` paired workers of pair `index` of PAIRS, `budgetMs` each. */
export function pairedCost(casesFile: string, index: number, processes: number, budgetMs: number, env: NodeJS.ProcessEnv): PairedCost {
  const spec = PAIRS[index];
  const runs: PairWorkerResult[] = [];
  for (let p = 0; p < processes; p++) {
    const r = spawnSync(process.execPath, ["--import", "tsx", __filename, "--worker", String(index), casesFile, String(budgetMs)], {
      cwd: resolve(__dirname, ".."),
      env,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      timeout: 10 * 60_000,
    });
    const line = r.stdout?.split("\n").find((l) => l.startsWith("RESULT "));
    if (r.status !== 0 || !line) throw new Error(`pairs ${label(spec)} failed (exit ${r.status ?? r.signal}): ${(r.stderr || "").trim().split("\n").slice(0, 3).join(" | ")}`);
    runs.push(JSON.parse(line.slice("RESULT ".length)) as PairWorkerResult);
  }
  const shares = (r: PairWorkerResult): number[] => r.variantMs.map((t, i) => t / r.baseMs[i] - 1);
  const loads = runs.flatMap((r) => (r.signingLoadMs === undefined ? [] : [r.signingLoadMs]));
  return {
    spec,
    baseMs: summarize(runs.flatMap((r) => r.baseMs)),
    variantMs: summarize(runs.flatMap((r) => r.variantMs)),
    share: median(runs.flatMap(shares)),
    addedMs: median(runs.flatMap((r) => r.variantMs.map((t, i) => t - r.baseMs[i]))),
    processShares: summarize(runs.map((r) => median(shares(r)))),
    baseBytes: runs[runs.length - 1].baseBytes,
    variantBytes: runs[runs.length - 1].variantBytes,
    ...(loads.length && { signingLoadMs: median(loads) }),
  };
}

/** "ours-untagged/ours on one-page", "ours on one-page/one-page-templated", "ours on one-page, unsigned/signed". */
export function label({ base, variant }: PairSpec): string {
  if (base.caseKey !== variant.caseKey) return `${base.engine} on ${base.caseKey}/${variant.caseKey}`;
  if (base.engine !== variant.engine) return `${base.engine}/${variant.engine} on ${base.caseKey}`;
  return `${base.engine} on ${base.caseKey}, unsigned/signed`;
}

/** Ours, signing with a throwaway CA's key made in `dir` (what the local stack signs with). */
async function signingOurs(dir: string): Promise<{ engine: Engine; loadMs: number }> {
  const start = process.hrtime.bigint();
  require("pkijs");
  require("asn1js");
  const loadMs = Number(process.hrtime.bigint() - start) / 1e6;
  const { ensureSigningIdentity } = await import("../stack/signingCa.js");
  const { localSigner } = require(resolve(FUNCTIONS_DIR, "lib", "print", "signing", "signer.js")) as typeof import("../src/print/signing/signer");
  const identity = ensureSigningIdentity(dir, new Date());
  const signer = localSigner(identity.keyPem, identity.chainPem);
  return { engine: await createOurs({ tagged: true, signature: (c) => ({ signer, signedAt: new Date(c.generatedAt), reason: "Issued by the print service", name: "Print service" }) }), loadMs };
}

/** One worker: both variants loaded, rendering in turn for `budgetMs`. */
async function worker(index: string, casesFile: string, budgetMs: string): Promise<void> {
  const spec = PAIRS[Number(index)];
  if (!spec) throw new Error(`no pair ${index}`);
  const cases = JSON.parse(readFileSync(casesFile, "utf8")) as BenchCase[];
  const caseOf = (v: Variant): BenchCase => {
    const c = cases.find((x) => x.key === v.caseKey);
    if (!c) throw new Error(`unknown case ${v.caseKey}`);
    return c;
  };
  const dir = mkdtempSync(join(tmpdir(), "bench-pairs-"));
  let signingLoadMs: number | undefined;
  const engineOf = async (v: Variant): Promise<Engine> => {
    if (!v.signed) return createEngine(v.engine);
    const s = await signingOurs(dir);
    signingLoadMs = s.loadMs;
    return s.engine;
  };
  const sides = [spec.base, spec.variant].map(caseOf);
  const engines = [await engineOf(spec.base), await engineOf(spec.variant)];
  const samples: [number[], number[]] = [[], []];
  const bytes = [0, 0];
  const render = async (k: 0 | 1): Promise<number> => {
    engines[k].forget?.();
    const start = process.hrtime.bigint();
    const out = await engines[k].render(sides[k]);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    bytes[k] = out.bytes.length;
    return ms;
  };
  try {
    for (let i = 0; i < WARMUP; i++) for (const k of [0, 1] as const) await render(k);
    const end = Date.now() + Number(budgetMs);
    // Each pair in the other order from the last: neither variant always follows the other.
    for (let i = 0; Date.now() < end; i++) for (const k of i % 2 ? ([1, 0] as const) : ([0, 1] as const)) samples[k].push(await render(k));
  } finally {
    for (const e of engines) await e.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const result: PairWorkerResult = { baseMs: samples[0], variantMs: samples[1], baseBytes: bytes[0], variantBytes: bytes[1], ...(signingLoadMs !== undefined && { signingLoadMs }) };
  console.log(`RESULT ${JSON.stringify(result)}`);
}

/** One line of a pair's figures, for the console. */
export function describe(p: PairedCost): string {
  const pct = (x: number): string => `${x < 0 ? "" : "+"}${(100 * x).toFixed(1)}%`;
  return (
    `${label(p.spec)}: ${fmt(p.baseMs.median)} -> ${fmt(p.variantMs.median)} ms a render (pooled medians); per pair (median): ${pct(p.share)}, ` +
    `${p.addedMs < 0 ? "" : "+"}${fmt(p.addedMs)} ms (per process ${pct(p.processShares.min)} to ${pct(p.processShares.max)}; ${p.baseMs.n} pairs); ` +
    `${p.variantBytes - p.baseBytes < 0 ? "" : "+"}${p.variantBytes - p.baseBytes} bytes` +
    (p.signingLoadMs === undefined ? "" : `; loading pkijs and asn1js, once a process: ${fmt(p.signingLoadMs)} ms`)
  );
}

/** npm run bench:pairs [-- features]: those pairs, 3 processes of 3 s each. */
async function standalone(features: Feature[]): Promise<void> {
  const chosen = PAIRS.map((p, i) => [p, i] as const).filter(([p]) => !features.length || features.includes(p.feature));
  const s = setup([...new Set(chosen.flatMap(([p]) => enginesOf(p)))]);
  const keys = new Set(chosen.flatMap(([p]) => [p.base.caseKey, p.variant.caseKey]));
  const cases = (await buildCases(require(RENDERER_MODULE) as RendererModule)).filter((c) => keys.has(c.key));
  const dir = mkdtempSync(join(tmpdir(), "pairs-"));
  try {
    const casesFile = join(dir, "cases.json");
    writeFileSync(casesFile, JSON.stringify(cases));
    for (const [p, i] of chosen) {
      const why = cannotPair(p, cases, s.unavailable);
      console.log(`[bench:pairs] ${why ? `${label(p)}: not run: ${why}` : describe(pairedCost(casesFile, i, 3, 3000, s.env))}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const [mode, ...args] = process.argv.slice(2);
  const features = process.argv.slice(2) as Feature[];
  for (const f of mode === "--worker" ? [] : features) if (!["tagging", "template", "signing"].includes(f)) throw new Error(`unknown feature '${f}' (tagging, template, signing)`);
  (mode === "--worker" ? worker(args[0], args[1], args[2]) : standalone(features)).then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : e);
      process.exit(1);
    },
  );
}
