// The merged output of print jobs (src/print/render/merge.ts) alone, without the stack: N documents of
// the renderer merged into a file on disk, each run in a fresh process, with its time, CPU and memory.
// The documents are rendered once (20 different one-page inspections, or the demo's 22-page
// audit-long) and handed to the merger as fresh copies, as the finishing task downloads them.
//   npm run bench:merge -- [1000,10000] [--long] [--pdfa] [--check]
// --check also runs qpdf --check on each output (40 s for 10,000 documents). What it shows: memory is
// bounded by the largest document plus a few bytes per object of the job, not by the job's output.

import { execFileSync, spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { renderInstancePdf, type PrintableInstance } from "../src/print/render";
import { mergedPdfStream } from "../src/print/render/merge";
import { DEMO_FIXTURE } from "./cases";

const MiB = 1024 * 1024;
const argv = process.argv.slice(2);
const conformance = argv.includes("--pdfa") ? "PDF/A-2u" : undefined;
const long = argv.includes("--long");

/** The documents to merge, rendered once: `count` distinct ones. */
async function rendered(count: number): Promise<{ title: string; bytes: Uint8Array }[]> {
  const options = (instanceId: string) => ({ instanceId, targetName: "Bench jobs", generatedAt: new Date("2026-05-04T16:12:05Z"), conformance });
  if (long) {
    const demo = JSON.parse(readFileSync(DEMO_FIXTURE, "utf8")) as { documents: Record<string, PrintableInstance> };
    const audit = demo.documents["tenants/acme-north/objectInstances/audit-long"];
    return [{ title: audit.title, bytes: (await renderInstancePdf(audit, options("audit-long"))).bytes }];
  }
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      // The instances of bench:jobs: one page, three fields.
      const title = `Inspection doc-${String(i).padStart(5, "0")}`;
      const instance: PrintableInstance = { title, objectTypeName: "Safety Inspection", sections: [{ title: "Readings", fields: [{ label: "Pressure (bar)", type: "number", value: 4 + i / 10 }, { label: "Result", type: "text", value: "Within limits" }, { label: "Checked", type: "boolean", value: true }] }] };
      return { title, bytes: (await renderInstancePdf(instance, options(`doc-${i}`))).bytes };
    }),
  );
}

/** The least-squares slope of y over x. */
function slope(points: [number, number][]): number {
  const mean = (f: (p: [number, number]) => number) => points.reduce((sum, p) => sum + f(p), 0) / points.length;
  const [mx, my] = [mean((p) => p[0]), mean((p) => p[1])];
  return mean((p) => (p[0] - mx) * (p[1] - my)) / mean((p) => (p[0] - mx) ** 2);
}

/** One run, in this process (started by main with --expose-gc): prints its figures as JSON. */
async function child(documents: number, out: string): Promise<void> {
  const gc = globalThis.gc!;
  const sources = await rendered(20);
  gc();
  const base = process.memoryUsage();
  let peakRss = base.rss;
  let peakHeap = base.heapUsed;
  // What the merge keeps of the job: the memory after a full collection (typed arrays, outside the
  // heap, counted too), at ten points of the run: its slope is what each document adds.
  const samples: [number, number][] = [];
  const step = Math.max(1, Math.floor(documents / 10));
  async function* input() {
    for (let i = 0; i < documents; i++) {
      if (i % 50 === 0) {
        const now = process.memoryUsage();
        peakRss = Math.max(peakRss, now.rss);
        peakHeap = Math.max(peakHeap, now.heapUsed);
      }
      if (i > 0 && i % step === 0) {
        gc();
        const { heapUsed, arrayBuffers } = process.memoryUsage();
        samples.push([i, heapUsed + arrayBuffers]);
      }
      const source = sources[i % sources.length];
      yield { objectInstanceId: `doc-${i}`, title: `${source.title} (${i})`, bytes: Buffer.from(source.bytes) };
    }
  }
  const cpu = process.cpuUsage();
  const started = performance.now();
  await pipeline(mergedPdfStream(input(), { title: "Bench jobs", subject: `${documents} documents`, keywords: [], date: new Date("2026-05-04T16:12:05Z"), conformance }), createWriteStream(out));
  const seconds = (performance.now() - started) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  console.log(
    JSON.stringify({
      documents,
      seconds,
      cpuMsPerDocument: (user + system) / 1000 / documents,
      inputMiB: sources.reduce((sum, s) => sum + s.bytes.length, 0) / sources.length / 1024 / 1024,
      baseRssMiB: base.rss / MiB,
      peakRssMiB: Math.max(peakRss, process.resourceUsage().maxRSS * 1024) / MiB,
      peakHeapMiB: peakHeap / MiB,
      keptBytesPerDocument: slope(samples),
    }),
  );
}

async function main(): Promise<void> {
  const counts = (argv.find((a) => /^\d[\d,]*$/.test(a)) ?? "1000,10000").split(",").map(Number);
  const dir = mkdtempSync(join(tmpdir(), "bench-merge-"));
  const rows: string[] = [];
  try {
    for (const documents of counts) {
      const out = join(dir, `${documents}.pdf`);
      const run = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", resolve(__filename), "--child", String(documents), out, ...argv.filter((a) => a.startsWith("--"))], { encoding: "utf8", maxBuffer: 1 << 24 });
      if (run.status !== 0) throw new Error(`the run of ${documents} failed: ${run.stderr}`);
      const r = JSON.parse(run.stdout.trim().split("\n").at(-1)!);
      const pages = /Pages:\s+(\d+)/.exec(execFileSync("pdfinfo", [out], { encoding: "utf8" }))![1];
      const check = argv.includes("--check") ? (spawnSync("qpdf", ["--check", out], { encoding: "utf8" }).status === 0 ? ", qpdf --check clean" : ", qpdf --check FAILED") : "";
      rows.push(
        `| ${documents.toLocaleString("en-GB")} ${long ? "× audit-long" : "one-page"}${conformance ? " (PDF/A-2u)" : ""} | ${r.seconds.toFixed(2)} | ${Math.round(documents / r.seconds)} | ${r.cpuMsPerDocument.toFixed(2)} | ${(statSync(out).size / MiB).toFixed(1)} MiB, ${pages} pages${check} | ${r.baseRssMiB.toFixed(0)} → ${r.peakRssMiB.toFixed(0)} | ${r.peakHeapMiB.toFixed(0)} | ${Math.round(r.keptBytesPerDocument)} |`,
      );
      rmSync(out, { force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log("| documents | s | documents/s | CPU ms/document | output | RSS MiB: before → peak | peak heap MiB | kept per document (bytes) |");
  console.log("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |");
  for (const row of rows) console.log(row);
}

const at = argv.indexOf("--child");
(at >= 0 ? child(Number(argv[at + 1]), argv[at + 2]) : main()).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
