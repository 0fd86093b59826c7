/**
 * What tagging adds to the one-page render, in instructions rather than milliseconds: timings on a
 * shared 2-core machine vary by 20-40% between runs, instruction counts under valgrind by well under
 * a percent once V8's seeds are fixed (SEEDS). Renders the case N1 and N2 times in fresh
 * single-threaded processes under valgrind (Debian's valgrind, installed where missing) and prints
 * (count(N2) - count(N1)) / (N2 - N1) per variant: tagged (as printed), untagged (tagged: false), so
 * start-up cancels out. N1 is past the first few hundred renders, where V8 is still compiling the
 * renderer (renders 30 to 330 cost 2.6 M instructions more each than renders 330 to 1,330,
 * measured): a warm instance, and the bench's timed loop of up to 2,000 renders, run compiled code.
 * Run after `npm run build`:  npm run bench:tagging   (about three minutes; not part of npm run bench)
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureDebianPackage } from "../stack/debianPackages";
import { buildCases, RENDERER_MODULE, renderOptions, type RendererModule } from "./cases";

const [N1, N2] = [330, 1330];
/**
 * Fixed seeds for V8's string hashes and its random numbers: with them two runs of 100 renders
 * differed by 60 K instructions in all, without them by 16 M (measured), as hash tables grow and
 * collide differently from run to run.
 */
const SEEDS = ["--hash-seed=1", "--random-seed=1"];
const VARIANTS = { tagged: true, untagged: false } as const;

/** The worker: renders the case `count` times, nothing else. */
async function work(caseFile: string, tagged: boolean, count: number): Promise<void> {
  const { instance, options } = JSON.parse(readFileSync(caseFile, "utf8")) as { instance: unknown; options: Record<string, unknown> };
  const renderer = require(RENDERER_MODULE) as RendererModule;
  const render = { ...options, generatedAt: new Date(options.generatedAt as string), tagged } as Parameters<RendererModule["renderInstancePdf"]>[1];
  for (let i = 0; i < count; i++) await renderer.renderInstancePdf(instance as Parameters<RendererModule["renderInstancePdf"]>[0], render);
}

/** Instructions valgrind counts for a worker process (all of it: start-up, compilation, renders). */
function instructions(caseFile: string, tagged: boolean, count: number): Promise<number> {
  const args = ["--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", "--smc-check=all-non-file"];
  const node = [process.execPath, "--single-threaded", ...SEEDS, "--import", "tsx", __filename, "--worker", caseFile, String(tagged), String(count)];
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
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--worker") {
  const [caseFile, tagged, count] = process.argv.slice(3);
  void work(caseFile, tagged === "true", Number(count));
} else {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
