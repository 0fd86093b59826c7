// Print jobs against the naive loop, over a stack that is already running (`npm start`, or
// STACK_PORT_OFFSET for another one): the same one-page instances printed as one job of each output
// (one ZIP, one merged PDF, on the stack's Cloud Tasks emulator) and as one `print` request each at
// concurrency 1 and 8, time to the last byte of the result, documents per second, CPU per document
// and the peak RSS of the function workers (read from /proc: the functions emulator runs each worker
// as a process with FUNCTION_TARGET in its environment). It writes its own instances (a fresh
// tenant of acme's, deleted afterwards).
//   npm run bench:jobs -- [documents...]      (default 1000 10000; `npm run bench` runs it as --only=jobs)
// Targets (issue 34): 10,000 documents as one ZIP in under 60 s on this 2-core machine, at least 5x the
// naive loop's documents per second, peak RSS of any worker under 512 MiB.

import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { getFirestore } from "firebase-admin/firestore";
import { URLS } from "../stack/config";
import { DEMO_PASSWORD } from "../stack/examples";
import { signInToStack, stackAdminApp } from "../stack/seedStack";
import { functionOfProcess } from "../stack/socketOwner";
import { JOB_OUTPUTS } from "../src/print/jobs/model";

export interface JobsBenchRow {
  how: string;
  documents: number;
  seconds: number;
  documentsPerSecond: number;
  /** CPU time of the function's workers per document (user + system). */
  cpuMsPerDocument: number;
  /** Highest RSS of one worker while it ran (sampled every 100 ms). */
  peakRssMiB: number;
  /** Of the finishing task alone (the job's last phase), for a job. */
  finishPeakRssMiB?: number;
  result: string;
}
export interface JobsBenchResult {
  notRun?: string;
  rows: JobsBenchRow[];
}

const TICK_MS = 1000 / 100; // /proc/PID/stat counts CPU in clock ticks of 1/100 s on Linux

/** The functions emulator's workers of one function: their CPU so far and their RSS now. */
function workers(fn: string): Map<number, { cpuMs: number; rssMiB: number }> {
  const found = new Map<number, { cpuMs: number; rssMiB: number }>();
  for (const name of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    const pid = Number(name);
    if (functionOfProcess(pid) !== fn) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      found.set(pid, { cpuMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS, rssMiB: Number(rss?.[1] ?? 0) / 1024 });
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/** Samples a function's workers while `work` runs: their CPU spent and the highest RSS one of them reached (and, from `phase()` true on, apart). */
async function sampled<T>(fn: string, work: () => Promise<T>, phase: () => boolean = () => false) {
  const before = workers(fn);
  let peak = 0;
  let phasePeak = 0;
  const last = new Map(before);
  const timer = setInterval(() => {
    for (const [pid, w] of workers(fn)) {
      last.set(pid, w);
      peak = Math.max(peak, w.rssMiB);
      if (phase()) phasePeak = Math.max(phasePeak, w.rssMiB);
    }
  }, 100);
  try {
    const value = await work();
    for (const [pid, w] of workers(fn)) last.set(pid, w);
    const cpuMs = [...last].reduce((sum, [pid, w]) => sum + w.cpuMs - (before.get(pid)?.cpuMs ?? 0), 0);
    return { value, cpuMs, peakRssMiB: peak, phasePeakRssMiB: phasePeak };
  } finally {
    clearInterval(timer);
  }
}

async function call(method: string, url: string, token: string, body?: Record<string, unknown>) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body) headers["content-type"] = "application/json";
  const res = await fetch(url, { method, headers, body: body ? JSON.stringify(body) : undefined, signal: AbortSignal.timeout(300_000) });
  return { status: res.status, json: (await res.json()) as any };
}

export async function runJobsBench(sizes: readonly number[] = [1000, 10_000]): Promise<JobsBenchResult> {
  const up = await fetch(`${URLS.print}/print/openapi.json`, { signal: AbortSignal.timeout(5_000) }).then((r) => r.ok, () => false);
  if (!up) return { notRun: `no local stack answers at ${URLS.print} (start one with \`npm start\` in another terminal, then run \`npm run bench -- --only=jobs\`)`, rows: [] };
  const db = getFirestore(stackAdminApp());
  const tenant = `bench-jobs-${randomBytes(3).toString("hex")}`;
  const ids = Array.from({ length: Math.max(...sizes) }, (_, i) => `doc-${String(i).padStart(5, "0")}`);
  await db.doc(`tenants/${tenant}`).set({ name: "Bench jobs", organizationId: "acme", features: {} });
  for (let i = 0; i < ids.length; i += 400) {
    const batch = db.batch();
    for (const id of ids.slice(i, i + 400)) {
      batch.set(db.doc(`tenants/${tenant}/objectInstances/${id}`), { title: `Inspection ${id}`, objectTypeName: "Safety Inspection", updatedAt: new Date(0), sections: [{ title: "Readings", fields: [{ label: "Pressure (bar)", type: "number", value: 4.2 }, { label: "Result", type: "text", value: "Within limits" }, { label: "Checked", type: "boolean", value: true }] }] });
    }
    await batch.commit();
  }
  // The organization's ADMIN prints anywhere below it.
  const token = await signInToStack("org-admin@acme.test", DEMO_PASSWORD);
  const base = `${URLS.print}/print/organization/acme/tenant/${tenant}`;
  const rows: JobsBenchRow[] = [];
  try {
    for (const documents of sizes) for (const output of JOB_OUTPUTS) {
      // One job of each output: from the request to the output's last byte.
      let finishing = false;
      const started = performance.now();
      const run = await sampled(
        "printJobTask",
        async () => {
          const created = await call("POST", `${base}/print-jobs`, token, { objectInstanceIds: ids.slice(0, documents), output });
          if (created.status !== 202) throw new Error(`POST print-jobs: ${created.status} ${JSON.stringify(created.json)}`);
          let job: any;
          for (;;) {
            job = (await call("GET", `${base}/print-jobs/${created.json.data.jobId}`, token)).json.data;
            finishing = job.done + job.failed === job.total;
            if (job.finishedAt) break;
            await new Promise((resolve) => setTimeout(resolve, 250));
          }
          const result = new Uint8Array(await (await fetch(job.result.downloadUrl)).arrayBuffer());
          return { job, bytes: result.length };
        },
        () => finishing,
      );
      const seconds = (performance.now() - started) / 1000;
      const { job, bytes } = run.value;
      rows.push({
        how: output === "zip" ? "one job (ZIP)" : "one job (merged PDF)",
        documents,
        seconds,
        documentsPerSecond: documents / seconds,
        cpuMsPerDocument: run.cpuMs / documents,
        peakRssMiB: run.peakRssMiB,
        finishPeakRssMiB: run.phasePeakRssMiB,
        result: `${job.status}, ${job.done} printed, ${(bytes / 1024 / 1024).toFixed(1)} MiB`,
      });
      console.log(`[bench] jobs: ${documents} documents (${output}) in ${seconds.toFixed(1)} s`);
    }

    // The naive loop: a print request per instance, its PDF fetched, at concurrency 1 and 8 (a sample of
    // 200 documents, not printed by the jobs' worker: its rate is the loop's, whatever the count).
    for (const concurrency of [1, 8]) {
      const sample = ids.slice(0, 200);
      let next = 0;
      let errors = 0;
      const started = performance.now();
      const run = await sampled("print", () =>
        Promise.all(
          Array.from({ length: concurrency }, async () => {
            while (next < sample.length) {
              const id = sample[next++];
              const res = await call("POST", `${base}/print`, token, { objectInstanceId: id, timeZone: concurrency === 1 ? "+00:00" : "+01:00" });
              if (res.status !== 201) errors++;
              else await (await fetch(res.json.data.downloadUrl)).arrayBuffer();
            }
          }),
        ),
      );
      const seconds = (performance.now() - started) / 1000;
      rows.push({ how: `naive loop, concurrency ${concurrency}`, documents: sample.length, seconds, documentsPerSecond: sample.length / seconds, cpuMsPerDocument: run.cpuMs / sample.length, peakRssMiB: run.peakRssMiB, result: `${errors} errors` });
    }
  } finally {
    for (let i = 0; i < ids.length; i += 400) {
      const batch = db.batch();
      for (const id of ids.slice(i, i + 400)) batch.delete(db.doc(`tenants/${tenant}/objectInstances/${id}`));
      await batch.commit();
    }
    await db.doc(`tenants/${tenant}`).delete();
  }
  return { rows };
}

/** The rows as a Markdown table. */
export function jobsTable(rows: readonly JobsBenchRow[]): string {
  const lines = ["| how | documents | s to the last byte | documents/s | worker CPU ms/document | peak RSS of a worker (MiB) | finishing task's peak RSS (MiB) | result |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"];
  for (const r of rows) {
    lines.push(`| ${r.how} | ${r.documents} | ${r.seconds.toFixed(1)} | ${r.documentsPerSecond.toFixed(1)} | ${r.cpuMsPerDocument.toFixed(1)} | ${r.peakRssMiB.toFixed(0)} | ${r.finishPeakRssMiB === undefined ? "—" : r.finishPeakRssMiB.toFixed(0)} | ${r.result} |`);
  }
  return lines.join("\n");
}

if (require.main === module) {
  const sizes = process.argv.slice(2).map(Number);
  runJobsBench(sizes.length > 0 ? sizes : undefined).then(
    (result) => {
      if (result.notRun) throw new Error(result.notRun);
      console.log(jobsTable(result.rows));
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
