// What signing (issue 36, PAdES B-B with the local signer) adds to the one-page case's render, in time
// and bytes: unsigned and signed renders alternate pair by pair in one process, as tagging was
// measured (bench/taggingPairs.ts: this machine's speed moves in phases of seconds, so only pairs
// compare), each pair in the other order from the last. Runs the sources (tsx), the test CA made in a
// temporary folder. Also: what loading pkijs costs the first signed render of a process.
//   npm run bench:signing -- [seconds per variant set, default 5] [--pdfa]

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as renderer from "../src/print/render";
import * as scripts from "../src/print/render/text/scripts";
import { localSigner } from "../src/print/signing/signer";
import { buildCases } from "./cases";
import { fmt, median, summarize } from "./stats";

const WARMUP = 20;

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const seconds = Number(argv.find((a) => /^\d+(\.\d+)?$/.test(a)) ?? 5);
  const conformance = argv.includes("--pdfa") ? "PDF/A-2u" : undefined;
  const loadStart = process.hrtime.bigint();
  require("pkijs");
  require("asn1js");
  const pkijsMs = Number(process.hrtime.bigint() - loadStart) / 1e6;

  const onePage = (await buildCases(renderer, scripts)).find((c) => c.key === "one-page");
  if (!onePage) throw new Error("no one-page case");
  const dir = mkdtempSync(join(tmpdir(), "bench-signing-"));
  try {
    // After pkijs's load was timed: the CA's module loads it.
    const { ensureSigningIdentity } = await import("../stack/signingCa.js");
    const identity = ensureSigningIdentity(dir, new Date());
    const signer = localSigner(identity.keyPem, identity.chainPem);
    const generatedAt = new Date(onePage.generatedAt);
    const base = { instanceId: onePage.instanceId, targetName: onePage.targetName, generatedAt, conformance };
    const variants = [base, { ...base, signature: { signer, signedAt: generatedAt, reason: "Issued by the print service", name: "Print service" } }];
    const render = async (k: number): Promise<{ ms: number; bytes: number }> => {
      const start = process.hrtime.bigint();
      const { bytes } = await renderer.renderInstancePdf(onePage.instance, variants[k]);
      return { ms: Number(process.hrtime.bigint() - start) / 1e6, bytes: bytes.length };
    };
    for (let i = 0; i < WARMUP; i++) for (const k of [0, 1]) await render(k);
    const samples: [number[], number[]] = [[], []];
    const sizes = [0, 0];
    const end = Date.now() + seconds * 1000;
    for (let i = 0; Date.now() < end; i++) {
      for (const k of i % 2 ? [1, 0] : [0, 1]) {
        const r = await render(k);
        samples[k as 0 | 1].push(r.ms);
        sizes[k] = r.bytes;
      }
    }
    const [unsigned, signed] = samples.map(summarize);
    const added = samples[1].map((t, i) => t - samples[0][i]);
    const share = median(samples[1].map((t, i) => t / samples[0][i] - 1));
    console.log(`one-page case${conformance ? ` (${conformance})` : ""}, ${unsigned.n} pairs in ${seconds} s, one process`);
    console.log(`  unsigned: median ${fmt(unsigned.median)} ms (p10 ${fmt(unsigned.p10)}, p90 ${fmt(unsigned.p90)}), ${sizes[0]} bytes`);
    console.log(`  signed:   median ${fmt(signed.median)} ms (p10 ${fmt(signed.p10)}, p90 ${fmt(signed.p90)}), ${sizes[1]} bytes`);
    console.log(`  signing adds: median ${fmt(median(added))} ms a render (${fmt(100 * share)}% of the pair's unsigned render), ${sizes[1] - sizes[0]} bytes`);
    console.log(`  loading pkijs and asn1js (once a process, on its first signed render or verification): ${fmt(pkijsMs)} ms`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
