// Print jobs (issue 34) on the stack's Cloud Tasks emulator: POST print-jobs answers 202 at once, the
// task-queue function prints the chunks and the last one's finishing task streams one ZIP with its
// manifest, or one merged PDF; GET print-jobs/{jobId} follows it. Read back with unzip, qpdf, pdfinfo
// and pdftotext.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FieldValue, Timestamp } from "firebase-admin/firestore";
import { getStorage } from "firebase-admin/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REGION } from "../../src/config";
import { db, taskQueue } from "../../src/firebase";
import { CHUNK_LEASE_MS } from "../../src/print/jobs/chunk";
import type { JobTask } from "../../src/print/jobs/model";
import { PRINT_JOB_FUNCTION, taskId } from "../../src/print/jobs/queue";
import { reapStuckJobs } from "../../src/print/jobs/reaper";
import { quotaDocumentPath } from "../../src/print/rateLimit";
import { BUCKET, HOST, PORTS } from "../../stack/config";
import { stackAdminApp } from "../../stack/seedStack";
import { firestore } from "../api/fixtures";
import { BASES, call, idTokenFor } from "../helpers";
import { mailSink, runId } from "../security/support";
import { catalogOf, pdfInfo, qpdfCheck, qpdfObjects, resolve, streamText } from "./pdfChecks";
import { pageRaster, popplerLines } from "./popplerText";

const r = runId();
/** Instances test 2 stores in acme-north (and later tests use). */
const MANY = Array.from({ length: 120 }, (_, i) => `job-${r}-${String(i).padStart(3, "0")}`);
const jobs = (target = "/tenant/acme-north") => `${BASES.print.functionUrl}${target}/print-jobs`;
const bucket = () => getStorage(stackAdminApp()).bucket(BUCKET);

/** Polls the job until it has finished (its chunks run on the queue: seconds here). */
async function finished(token: string, statusUrl: string, target = "/tenant/acme-north", timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call(new URL(statusUrl, `${jobs(target)}`).href, { auth: { bearer: token } });
    expect(res.status, res.text).toBe(200);
    if (res.json.data.finishedAt !== null) return res.json.data;
    if (Date.now() > deadline) throw new Error(`job still ${res.json.data.status} after ${timeoutMs} ms: ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/** Cancels the job (POST print-jobs/{jobId}/cancel). */
const cancelJob = (token: string, jobId: string, target = "/tenant/acme-north") => call(`${jobs(target)}/${jobId}/cancel`, { method: "POST", auth: { bearer: token } });

/** The ZIP's entries, unpacked by Info-ZIP's unzip. */
async function unzipped(url: string): Promise<{ names: string[]; read: (name: string) => Buffer; cleanup: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), "job-"));
  writeFileSync(join(dir, "out.zip"), Buffer.from(await (await fetch(url, { signal: AbortSignal.timeout(30_000) })).arrayBuffer()));
  execFileSync("unzip", ["-q", "out.zip", "-d", "x"], { cwd: dir });
  return { names: readdirSync(join(dir, "x")).sort(), read: (name) => readFileSync(join(dir, "x", name)), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A finished job of acme-north put back as a job created an hour ago and still running, as a reaper
 * finds one, its chunks' results taken away as they would be had they not run; `gaveUp`: the queue
 * gave up on chunk 0 (its attempts spent, its lease run out) and chunks 1 and 2 never ran.
 */
async function reopenedAnHourAgo(jobId: string, gaveUp = true) {
  const job = firestore().doc(`tenants/acme-north/printJobs/${jobId}`);
  const chunk = (i: number) => job.collection("chunks").doc(String(i).padStart(5, "0"));
  const gone = FieldValue.delete();
  await job.update({ status: "running", active: true, createdAt: Timestamp.fromMillis(Date.now() - 3_600_000), done: gone, failed: gone, failures: gone, result: gone, finishedAt: gone, finishEnqueuedAt: gone, reapedAt: gone });
  const notRun = { finished: false, attempts: gone, leaseUntil: gone, files: gone, failures: gone, done: gone, failed: gone };
  if (gaveUp) {
    await chunk(0).update({ ...notRun, attempts: 6, leaseUntil: Timestamp.fromMillis(Date.now() - 600_000) });
    for (const i of [1, 2]) await chunk(i).update(notRun);
  }
  return { job, chunk, notRun };
}

describe("print jobs", () => {
  let reader: string;
  let southReader: string;
  const created: string[] = [];
  beforeAll(async () => {
    // One test runs the scheduled reaper's code here, on the stack's app: src/firebase.ts must set up
    // its Firestore before anything else uses it (settings() comes before any use).
    stackAdminApp();
    db();
    [reader, southReader] = await Promise.all([idTokenFor("north-reader@acme.test"), idTokenFor("south-admin@acme.test")]);
  });
  afterAll(async () => {
    await Promise.all(created.map((path) => firestore().doc(path).delete()));
  });

  it("prints the named instances into one ZIP whose manifest names each once; a missing one is a listed failure, not a lost one", async () => {
    const ids = ["inspection-short", "multilingual", `missing-${r}`, "script-rtl"];
    const res = await call(jobs(), { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: ids } });
    expect(res.status, res.text).toBe(202);
    expect(res.json.data).toMatchObject({ status: "queued", total: 4 });
    const { jobId, statusUrl } = res.json.data;
    expect(res.headers.get("location")).toBe(statusUrl);
    expect(statusUrl).toBe(`print-jobs/${jobId}`);

    const job = await finished(reader, statusUrl);
    expect(job).toMatchObject({ jobId, status: "completed_with_failures", total: 4, done: 3, failed: 1, output: "zip" });
    expect((await call(new URL(statusUrl, jobs()).href, { auth: { bearer: reader } })).json.message).toBe("Print job completed with failures.");
    expect(job.failures).toEqual([{ objectInstanceId: `missing-${r}`, status: 404, reason: `Object instance 'missing-${r}' does not exist in this target.` }]);
    expect(job.result.storagePath).toBe(`generated-pdfs/tenants/acme-north/jobs/${jobId}/${jobId}.zip`);

    const zip = await unzipped(job.result.downloadUrl);
    try {
      const manifest = JSON.parse(zip.read("manifest.json").toString("utf8"));
      expect(manifest.documents.map((d: { objectInstanceId: string }) => d.objectInstanceId)).toEqual(ids);
      expect(manifest.documents[2]).toEqual({ objectInstanceId: `missing-${r}`, status: 404, reason: expect.stringContaining("does not exist") });
      const files = manifest.documents.filter((d: { file?: string }) => d.file).map((d: { file: string }) => d.file);
      expect(zip.names).toEqual([...files, "manifest.json"].sort());
      expect(files[0]).toBe("inspection-short Boiler Inspection B-12.pdf");
      // In the title's own letters (ZIP's UTF-8 names, which unzip reads back as written).
      expect(files[1]).toBe("multilingual Προδιαγραφή _ Спецификация _ Spécification.pdf");
      const dir = mkdtempSync(join(tmpdir(), "pdf-"));
      for (const file of files) {
        writeFileSync(join(dir, "x.pdf"), zip.read(file));
        expect(execFileSync("pdfinfo", [join(dir, "x.pdf")], { encoding: "utf8" }), file).toMatch(/Tagged:\s+yes/);
      }
      writeFileSync(join(dir, "x.pdf"), zip.read(files[0]));
      expect(execFileSync("pdftotext", [join(dir, "x.pdf"), "-"], { encoding: "utf8" })).toContain("Boiler Inspection B-12");
      rmSync(dir, { recursive: true, force: true });
    } finally {
      zip.cleanup();
    }
    // The job's end is on the trail, once, with its counts.
    const admin = await idTokenFor("north-admin@acme.test");
    const trail = await call(`${BASES.api.functionUrl}/tenant/acme-north/audit-events?action=print_job.finished&subject=${jobId}`, { auth: { bearer: admin } });
    expect(trail.json.data).toEqual([expect.objectContaining({ actor: { uid: "north-reader", scheme: "bearer" }, details: { status: "completed_with_failures", total: 4, done: 3, failed: 1 } })]);
    // The chunks' PDFs are gone once the archive holds them.
    expect((await bucket().getFiles({ prefix: `generated-pdfs/tenants/acme-north/jobs/${jobId}/parts/` }))[0]).toEqual([]);
  }, 120_000);

  it("names the job's status relative to the URL asked, a trailing slash's too", async () => {
    const asked = `${jobs()}/`;
    const res = await call(asked, { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: ["inspection-short"] } });
    expect(res.status, res.text).toBe(202);
    const { jobId, statusUrl } = res.json.data;
    expect(res.headers.get("location")).toBe(statusUrl);
    expect(new URL(statusUrl, asked).href).toBe(`${jobs()}/${jobId}`);
    expect(await finished(reader, new URL(statusUrl, asked).href)).toMatchObject({ jobId, status: "succeeded", done: 1 });
  }, 120_000);

  it("merges the printed instances into one tagged PDF/A-2u: each from a new page under a bookmark of its own; a missing one is a listed failure, absent from the PDF", async () => {
    // Demo instances, then enough of its own for a second chunk (and so a second pack).
    const own = Array.from({ length: 56 }, (_, i) => `merged-${r}-${String(i).padStart(2, "0")}`);
    const batch = firestore().batch();
    for (const [i, id] of own.entries()) {
      created.push(`tenants/acme-north/objectInstances/${id}`);
      batch.set(firestore().doc(created.at(-1)!), { title: `Merged document ${i}`, objectTypeName: "Bench", sections: [{ title: "S", fields: [{ label: "N", type: "number", value: i }] }] });
    }
    await batch.commit();
    const ids = ["inspection-short", `missing-${r}`, "multilingual", "script-rtl", ...own];
    const printed = ids.filter((id) => !id.startsWith("missing"));
    const res = await call(jobs(), { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: ids, output: "merged", conformance: "PDF/A-2u" } });
    expect(res.status, res.text).toBe(202);
    const job = await finished(reader, res.json.data.statusUrl);
    expect(job).toMatchObject({ status: "completed_with_failures", total: 60, done: 59, failed: 1, output: "merged" });
    expect(job.failures).toEqual([{ objectInstanceId: `missing-${r}`, status: 404, reason: expect.stringContaining("does not exist") }]);
    expect(job.result.storagePath).toBe(`generated-pdfs/tenants/acme-north/jobs/${job.jobId}/${job.jobId}.pdf`);
    const download = await fetch(job.result.downloadUrl, { signal: AbortSignal.timeout(30_000) });
    expect(download.headers.get("content-type")).toBe("application/pdf");
    const pdf = Buffer.from(await download.arrayBuffer());
    expect(pdf.length).toBe(job.result.sizeBytes);

    expect(qpdfCheck(pdf)).toContain("No syntax or stream encoding errors found");
    const info = pdfInfo(pdf);
    expect(info).toMatchObject({ Tagged: "yes", Title: "Acme North" });
    // One bookmark per printed instance, in order, each at the first page that shows its title; the pages add up.
    const objects = qpdfObjects(pdf);
    const { catalog } = catalogOf(objects);
    const pages = (resolve(objects, catalog["/Pages"])["/Kids"] as string[]).flatMap((kid) => resolve(objects, kid)["/Kids"] as string[]);
    expect(pages).toHaveLength(Number(info.Pages));
    const outline: { title: string; page: number }[] = [];
    for (let ref = resolve(objects, catalog["/Outlines"])["/First"]; ref; ref = resolve(objects, ref)["/Next"]) {
      const item = resolve(objects, ref);
      outline.push({ title: String(item["/Title"]).replace(/^u:/, ""), page: pages.indexOf(item["/Dest"][0]) + 1 });
    }
    const titles = await Promise.all(printed.map(async (id) => (await firestore().doc(`tenants/acme-north/objectInstances/${id}`).get()).get("title") as string));
    expect(outline.map((o) => o.title)).toEqual(titles);
    expect(outline[0].page).toBe(1);
    expect(outline.map((o) => o.page)).toEqual([...outline.map((o) => o.page)].sort((a, b) => a - b));
    const text = popplerLines(pdf).join("\n").split("\f");
    outline.forEach(({ title, page }) => expect(text[page - 1].replace(/\s+/g, " ")).toContain(title.replace(/\s+/g, " ")));
    expect(text.join("")).not.toContain(`missing-${r}`);
    // One structure tree of a Part per instance; PDF/A's output intent and claim once.
    const document = resolve(objects, resolve(objects, catalog["/StructTreeRoot"])["/K"]);
    expect((document["/K"] as string[]).map((part) => resolve(objects, part)["/S"])).toEqual(printed.map(() => "/Part"));
    expect(catalog["/OutputIntents"]).toHaveLength(1);
    expect(streamText(pdf, catalog["/Metadata"])).toContain("<pdfaid:part>2</pdfaid:part>");
    // What a reader sees of its first page: drawn, with dark text on white.
    const { rgb } = pageRaster(pdf, 1, 30);
    expect(rgb.some((v) => v < 100)).toBe(true);
    expect((await bucket().getFiles({ prefix: `generated-pdfs/tenants/acme-north/jobs/${job.jobId}/parts/` }))[0]).toEqual([]);
  }, 120_000);

  it("ends a merged job succeeded when every instance printed, and failed without a result when none did (a PDF of no pages is none), its failures listed; a ZIP of none still holds its manifest", async () => {
    const missing = [`missing-${r}-a`, `missing-${r}-b`];
    const start = (objectInstanceIds: string[], output = "merged") => call(jobs(), { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds, output } });
    const [all, none, noneZipped] = await Promise.all([start(["inspection-short"]), start(missing), start(missing, "zip")]);
    expect([all.status, none.status, noneZipped.status], none.text).toEqual([202, 202, 202]);
    const [printed, failed, failedZip] = await Promise.all([finished(reader, all.json.data.statusUrl), finished(reader, none.json.data.statusUrl), finished(reader, noneZipped.json.data.statusUrl)]);
    // The ZIP of a job that printed nothing: failed, with an archive whose manifest says why for each.
    expect(failedZip).toMatchObject({ status: "failed", total: 2, done: 0, failed: 2, output: "zip" });
    expect(failedZip.failures.map((f: { objectInstanceId: string }) => f.objectInstanceId)).toEqual(missing);
    const zip = await unzipped(failedZip.result.downloadUrl);
    try {
      expect(zip.names).toEqual(["manifest.json"]);
      expect(JSON.parse(zip.read("manifest.json").toString("utf8")).documents).toEqual(missing.map((id) => ({ objectInstanceId: id, status: 404, reason: `Object instance '${id}' does not exist in this target.` })));
    } finally {
      zip.cleanup();
    }
    expect(printed).toMatchObject({ status: "succeeded", total: 1, done: 1, failed: 0, failures: [], output: "merged" });
    const pdf = Buffer.from(await (await fetch(printed.result.downloadUrl, { signal: AbortSignal.timeout(30_000) })).arrayBuffer());
    expect(pdfInfo(pdf)).toMatchObject({ Tagged: "yes", Pages: "2" });
    expect(failed).toMatchObject({ status: "failed", total: 2, done: 0, failed: 2, output: "merged" });
    expect(failed.failures.map((f: { objectInstanceId: string }) => f.objectInstanceId)).toEqual(missing);
    expect(failed.result).toBeUndefined();
  }, 120_000);

  it("documents output \"merged\" in the create body and the status answer (OpenAPI from the routes' schemas)", async () => {
    const doc = (await call(`${BASES.print.hosting}/openapi.json`)).json;
    const jobsPath = doc.paths["/print/tenant/{tenantId}/print-jobs"];
    const jobPath = doc.paths["/print/tenant/{tenantId}/print-jobs/{jobId}"];
    expect(jobsPath.post.requestBody.content["application/json"].schema.properties.output).toMatchObject({ enum: ["zip", "merged"], default: "zip" });
    expect(jobPath.get.responses["200"].content["application/json"].schema.properties.data.properties.output.enum).toEqual(["zip", "merged"]);
  });

  it("splits a job into chunks of 50 on the queue and prints every document once; the same Idempotency-Key and body answer the same job", async () => {
    const ids = MANY;
    const batch = firestore().batch();
    for (const [i, id] of ids.entries()) {
      const path = `tenants/acme-north/objectInstances/${id}`;
      created.push(path);
      batch.set(firestore().doc(path), { title: `Job document ${i}`, objectTypeName: "Bench", sections: [{ title: "S", fields: [{ label: "N", type: "number", value: i }] }] });
    }
    await batch.commit();
    const key = `job-key-${r}`;
    const start = () => call(jobs(), { method: "POST", auth: { bearer: reader }, headers: { "idempotency-key": key }, body: { objectInstanceIds: ids } });
    const first = await start();
    expect(first.status, first.text).toBe(202);
    const again = await start();
    expect(again.status).toBe(202);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.json.data.jobId).toBe(first.json.data.jobId);
    const other = await call(jobs(), { method: "POST", auth: { bearer: reader }, headers: { "idempotency-key": key }, body: { objectInstanceIds: ids.slice(1) } });
    expect(other.status).toBe(422);

    const job = await finished(reader, first.json.data.statusUrl);
    expect(job).toMatchObject({ status: "succeeded", total: 120, done: 120, failed: 0, failures: [] });
    const zip = await unzipped(job.result.downloadUrl);
    try {
      expect(zip.names).toHaveLength(121);
      const manifest = JSON.parse(zip.read("manifest.json").toString("utf8"));
      expect(manifest.documents.map((d: { objectInstanceId: string }) => d.objectInstanceId)).toEqual(ids);
      expect(new Set(manifest.documents.map((d: { file: string }) => d.file)).size).toBe(120);
    } finally {
      zip.cleanup();
    }
  }, 180_000);

  // Cloud Tasks delivers at least once and retries a failed task: a chunk whose pack cannot be stored
  // fails as a whole (503), one whose worker dies mid-chunk fails with it, and the retry prints every
  // document once.
  it.for<[string, Record<string, unknown>]>([
    ["a chunk fails once (Storage answers 503 to its pack)", { mode: "unavailable", only: "uploads", match: "/parts/", times: 1 }],
    ["a worker exits mid-chunk (killed as it stores its pack)", { mode: "exit-worker", only: "uploads", match: "/parts/", times: 1 }],
  ])("retries when %s, and counts each document once", { timeout: 120_000 }, async ([, fault], context) => {
    if ((await mailSink("/faults")).status !== 200) return context.skip("needs the stack's JavaScript Storage emulator and its fault switch: skipped, not passed");
    const ids = ["inspection-short", "multilingual"];
    const exitedBefore = (await mailSink("/faults")).json.workersExited;
    expect((await mailSink("/faults", { method: "PUT", body: { storage: fault } })).status).toBe(200);
    try {
      const res = await call(jobs(), { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: ids } });
      expect(res.status, res.text).toBe(202);
      const job = await finished(reader, `print-jobs/${res.json.data.jobId}`);
      expect(job).toMatchObject({ status: "succeeded", total: 2, done: 2, failed: 0 });
      // The fault acted (it cleared itself), and the chunk took a second attempt.
      const faults = (await mailSink("/faults")).json;
      expect(faults.storage).toBeNull();
      expect(faults.workersExited - exitedBefore).toBe(fault.mode === "exit-worker" ? 1 : 0);
      // At least a second: Cloud Tasks delivers at least once, and under the full suite's load the
      // stack's queue once made a third (session 19's CI), which must count nothing twice either.
      expect((await firestore().doc(`tenants/acme-north/printJobs/${job.jobId}/chunks/00000`).get()).get("attempts")).toBeGreaterThanOrEqual(2);
      const zip = await unzipped(job.result.downloadUrl);
      try {
        const manifest = JSON.parse(zip.read("manifest.json").toString("utf8"));
        expect(manifest.documents.map((d: { objectInstanceId: string }) => d.objectInstanceId)).toEqual(ids);
        expect(zip.names).toHaveLength(3);
        for (const name of zip.names.filter((n) => n.endsWith(".pdf"))) expect(zip.read(name).subarray(0, 5).toString("latin1")).toBe("%PDF-");
      } finally {
        zip.cleanup();
      }
    } finally {
      await mailSink("/faults", { method: "PUT", body: {} });
    }
  });

  // A job whose output cannot be written on any of the queue's attempts ends failed, saying why,
  // rather than running forever (the stack's queue retries 1 to 4 s apart; production's 5 s to 5 minutes).
  it("ends a job failed, saying why, when its archive cannot be written on the queue's last attempt", async (context) => {
    if ((await mailSink("/faults")).status !== 200) return context.skip("needs the stack's JavaScript Storage emulator and its fault switch: skipped, not passed");
    expect((await mailSink("/faults", { method: "PUT", body: { storage: { mode: "unavailable", only: "uploads", match: ".zip" } } })).status).toBe(200);
    try {
      const res = await call(jobs(), { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: ["inspection-short"] } });
      expect(res.status, res.text).toBe(202);
      const job = await finished(reader, `print-jobs/${res.json.data.jobId}`);
      expect(job).toMatchObject({ status: "failed", total: 1, done: 1, failed: 0, error: "The job's output could not be written after the queue's last attempt: Cloud Storage is unavailable; try again shortly." });
      expect(job.result).toBeUndefined();
    } finally {
      await mailSink("/faults", { method: "PUT", body: {} });
    }
  }, 90_000);

  // No job stays running forever: a chunk whose worker died on the queue's last attempt records nothing
  // and enqueues nothing after it. The state such a job is left in is written here as it would be an
  // hour later (the queue's attempts spent, the chunk's lease run out); reading the job's status reaps it.
  it("ends a job the queue gave up on: the dead chunk's documents are failures, the chunks that never ran run, and the job finishes", async () => {
    const started = await call(jobs(), { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: MANY } });
    expect(started.status, started.text).toBe(202);
    const { jobId } = started.json.data;
    expect(await finished(reader, `print-jobs/${jobId}`)).toMatchObject({ status: "succeeded", done: 120 });
    await reopenedAnHourAgo(jobId);

    const reaped = await finished(reader, `print-jobs/${jobId}`);
    expect(reaped).toMatchObject({ status: "completed_with_failures", total: 120, done: 70, failed: 50 });
    expect(reaped.failures[0]).toEqual({ objectInstanceId: MANY[0], status: 503, reason: "Not printed: the worker printing it stopped on the queue's last attempt." });
    const zip = await unzipped(reaped.result.downloadUrl);
    try {
      const manifest = JSON.parse(zip.read("manifest.json").toString("utf8"));
      expect(manifest.documents.map((d: { objectInstanceId: string }) => d.objectInstanceId)).toEqual(MANY);
      expect(manifest.documents.filter((d: { file?: string }) => d.file).length).toBe(70);
    } finally {
      zip.cleanup();
    }
  }, 120_000);

  // Production also reaps on a schedule (printJobReaper), for jobs nobody polls: one collection-group
  // query across every target. Run here from the test process against the stack (the emulators cannot
  // run schedules), on a job left as the test above leaves it and never read before.
  it("the scheduled reaper finds an overdue job of any target without a status read, and reaps it", async () => {
    const started = await call(jobs(), { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: MANY } });
    const { jobId } = started.json.data;
    await finished(reader, `print-jobs/${jobId}`);
    const { job, chunk } = await reopenedAnHourAgo(jobId);
    // The code the schedule runs, with the stack's Firestore and Cloud Tasks emulator.
    process.env.CLOUD_TASKS_EMULATOR_HOST = `${HOST}:${PORTS.tasks}`;
    expect(await reapStuckJobs()).toBeGreaterThanOrEqual(1);
    // Reaped before anyone read it: the dead chunk ended with its documents as failures.
    expect((await job.get()).get("reapedAt")).toBeInstanceOf(Timestamp);
    expect((await chunk(0).get()).data()).toMatchObject({ finished: true, failed: 50 });
    const reaped = await finished(reader, `print-jobs/${jobId}`);
    expect(reaped).toMatchObject({ status: "completed_with_failures", total: 120, done: 70, failed: 50 });
  }, 120_000);

  // The reaper keeps a job's window: it enqueues again only chunks that should be in the queue (the
  // first two, or one whose predecessor two places before has finished), never the rest at once.
  it("reaps an overdue job that is still running without putting its later chunks in the queue", async () => {
    const started = await call(jobs(), { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: MANY } });
    const { jobId } = started.json.data;
    await finished(reader, `print-jobs/${jobId}`);
    const { job, chunk, notRun } = await reopenedAnHourAgo(jobId, false);
    // Chunk 0 is running (its lease ahead), chunks 1 and 2 have not run: 1 is due, 2 waits for 0.
    await chunk(0).update({ ...notRun, attempts: 1, leaseUntil: Timestamp.fromMillis(Date.now() + 600_000) });
    for (const i of [1, 2]) await chunk(i).update(notRun);
    try {
      expect((await call(`${jobs()}/${jobId}`, { auth: { bearer: reader } })).json.data.status).toBe("running");
      const round = Math.floor(Date.now() / CHUNK_LEASE_MS); // the reaper's, on that status read
      const deadline = Date.now() + 30_000;
      while ((await chunk(1).get()).get("finished") !== true && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await chunk(1).get()).get("finished")).toBe(true);
      expect((await chunk(2).get()).get("attempts")).toBeUndefined();
      expect((await job.get()).get("status")).toBe("running");
      // Chunk 2 is not in the queue: the queue refuses an id it has seen, and takes the one the reaper
      // would have given it. (The task taken then runs it; the job is cancelled below.)
      process.env.CLOUD_TASKS_EMULATOR_HOST = `${HOST}:${PORTS.tasks}`;
      const task = { target: "tenants/acme-north", jobId, chunk: 2, round };
      await expect(taskQueue<JobTask>(`locations/${REGION}/functions/${PRINT_JOB_FUNCTION}`).enqueue(task, { id: taskId(task) })).resolves.toBeUndefined();
      // The check can tell: the chunk the reaper did put in the queue has its id taken.
      await expect(taskQueue<JobTask>(`locations/${REGION}/functions/${PRINT_JOB_FUNCTION}`).enqueue({ ...task, chunk: 1 }, { id: taskId({ ...task, chunk: 1 }) })).rejects.toMatchObject({ code: "functions/task-already-exists" });
    } finally {
      await cancelJob(reader, jobId);
    }
  }, 120_000);

  it("cancels a job that has not ended: it ends cancelled at once with what was done and no result, and stays so", async () => {
    const started = await call(jobs(), { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: MANY } });
    expect(started.status, started.text).toBe(202);
    const { jobId } = started.json.data;
    const cancel = () => cancelJob(reader, jobId);
    const cancelled = await cancel();
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.json.data).toMatchObject({ jobId, status: "cancelled", total: 120 });
    expect(cancelled.json.data.done + cancelled.json.data.failed).toBeLessThanOrEqual(120);
    expect((await cancel()).json).toMatchObject({ message: "Print job was already cancelled.", data: { status: "cancelled" } });
    // Its chunks, dispatched or not, stop or do nothing: seconds later it is still cancelled, with no archive.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const job = (await call(`${jobs()}/${jobId}`, { auth: { bearer: reader } })).json.data;
    expect(job).toMatchObject({ status: "cancelled", done: cancelled.json.data.done, failed: cancelled.json.data.failed });
    expect(job.result).toBeUndefined();
    expect((await bucket().getFiles({ prefix: `generated-pdfs/tenants/acme-north/jobs/${jobId}/${jobId}.zip` }))[0]).toEqual([]);
    // A job that has ended cannot be cancelled; an unknown one is 404.
    const small = await call(jobs(), { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: ["inspection-short"] } });
    await finished(reader, small.json.data.statusUrl);
    const late = await cancelJob(reader, small.json.data.jobId);
    expect([late.status, late.json.message]).toEqual([409, "The print job has ended (succeeded): there is nothing to cancel."]);
    expect((await cancelJob(reader, `unknown-${r}`)).status).toBe(404);
    // Its trail: created, then cancelled by the reader.
    const admin = await idTokenFor("north-admin@acme.test");
    const trail = await call(`${BASES.api.functionUrl}/tenant/acme-north/audit-events?subject=${jobId}`, { auth: { bearer: admin } });
    expect(trail.json.data.map((e: { action: string }) => e.action)).toEqual(["print_job.cancelled", "print_job.created"]);
  }, 120_000);

  it("lets only the job's creator or an ADMIN of the target cancel it: another user with a print permission gets 401 and nothing changes", async () => {
    const started = await call(jobs(), { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: MANY } });
    expect(started.status, started.text).toBe(202);
    const { jobId } = started.json.data;
    const other = await idTokenFor("north-objects@acme.test"); // MANAGE_OBJECTS: may print, start and read jobs
    const refused = await cancelJob(other, jobId);
    expect([refused.status, refused.json.message]).toEqual([401, "Only the user who started this print job, or an ADMIN of the target, can cancel it."]);
    expect((await firestore().doc(`tenants/acme-north/printJobs/${jobId}`).get()).get("status")).not.toBe("cancelled");
    const byAdmin = await cancelJob(await idTokenFor("north-admin@acme.test"), jobId);
    expect([byAdmin.status, byAdmin.json.data?.status]).toEqual([200, "cancelled"]);
  }, 60_000);

  // A cancel commits the job's status first and writes its counts just after: a second cancel or a
  // reading in between answers the chunks' sums, not null or 0. The moment is made here by taking a
  // finished job's counts away and marking it cancelled.
  it("answers what was done while a cancelled job's counts are being written: the chunks' sums", async () => {
    const started = await call(jobs(), { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: ["inspection-short", "audit-long", `absent-${r}`] } });
    const { jobId, statusUrl } = started.json.data;
    const ended = await finished(reader, statusUrl);
    expect(ended).toMatchObject({ status: "completed_with_failures", done: 2, failed: 1 });
    await firestore().doc(`tenants/acme-north/printJobs/${jobId}`).update({ status: "cancelled", done: FieldValue.delete(), failed: FieldValue.delete() });
    const again = await cancelJob(reader, jobId);
    expect(again.json).toMatchObject({ message: "Print job was already cancelled.", data: { status: "cancelled", done: 2, failed: 1 } });
    expect((await call(`${jobs()}/${jobId}`, { auth: { bearer: reader } })).json.data).toMatchObject({ status: "cancelled", done: 2, failed: 1 });
    const listed = (await call(`${jobs()}?limit=100`, { auth: { bearer: reader } })).json.data.find((j: { jobId: string }) => j.jobId === jobId);
    expect(listed).toMatchObject({ status: "cancelled", done: 2, failed: 1 });
  }, 60_000);

  // One queue serves every tenant: a job keeps two chunks in it at a time, so a small job started after
  // a 10,000-document one waits behind two of its chunks, not 200.
  it("finishes a 10-document job started after a 10,000-document one first", async () => {
    const big = Array.from({ length: 10_000 }, (_, i) => (i < MANY.length ? MANY[i] : `absent-${r}-${i}`));
    const large = await call(jobs(), { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: big }, timeoutMs: 60_000 });
    expect(large.status, large.text).toBe(202);
    try {
      const small = await call(jobs(), { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: MANY.slice(0, 10) } });
      expect(small.status, small.text).toBe(202);
      const done = await finished(reader, small.json.data.statusUrl);
      expect(done).toMatchObject({ status: "succeeded", done: 10 });
      const meanwhile = (await call(`${jobs()}/${large.json.data.jobId}`, { auth: { bearer: reader } })).json.data;
      expect(meanwhile.status).toBe("running");
      expect(meanwhile.done + meanwhile.failed).toBeLessThan(2_000);
      // What made it so, as its chunks show now: no more than two dispatched and unfinished, none
      // dispatched beyond two places after its last finished one.
      const chunks = (await firestore().collection(`tenants/acme-north/printJobs/${large.json.data.jobId}/chunks`).get()).docs;
      const dispatched = chunks.filter((c) => c.get("attempts") !== undefined).map((c) => Number(c.id));
      const unfinished = chunks.filter((c) => c.get("attempts") !== undefined && c.get("finished") !== true);
      expect(unfinished.length).toBeLessThanOrEqual(2);
      const lastFinished = Math.max(-1, ...chunks.filter((c) => c.get("finished") === true).map((c) => Number(c.id)));
      expect(Math.max(...dispatched)).toBeLessThanOrEqual(lastFinished + 2);
    } finally {
      expect((await cancelJob(reader, large.json.data.jobId)).status).toBe(200);
    }
  }, 120_000);

  it("lists the target's jobs newest first, a page at a time; a token continues only its own target's list", async () => {
    const page1 = await call(`${jobs()}?limit=2`, { auth: { bearer: reader } });
    expect(page1.status, page1.text).toBe(200);
    expect(page1.json.data).toHaveLength(2);
    const [a, b] = page1.json.data;
    expect(Date.parse(a.createdAt)).toBeGreaterThanOrEqual(Date.parse(b.createdAt));
    const page2 = await call(`${jobs()}?limit=2&pageToken=${page1.json.nextPageToken}`, { auth: { bearer: reader } });
    expect(page2.status).toBe(200);
    expect(page2.json.data.map((j: { jobId: string }) => j.jobId)).not.toContain(a.jobId);
    expect(Date.parse(page2.json.data[0].createdAt)).toBeLessThanOrEqual(Date.parse(b.createdAt));
    const foreign = await call(`${jobs("/tenant/acme-south")}?pageToken=${page1.json.nextPageToken}`, { auth: { bearer: southReader } });
    expect([foreign.status, foreign.json.message]).toEqual([400, expect.stringContaining("'pageToken'")]);
    expect((await call(`${jobs()}?limit=0`, { auth: { bearer: reader } })).status).toBe(400);
  });

  it("bounds a target: 3 jobs queued or running at once, and its documents a day (429 with Retry-After, nothing queued)", async () => {
    const target = "tenants/acme-north";
    const jobsOf = firestore().collection(`${target}/printJobs`);
    const fake = (i: number, createdAt: Date) => jobsOf.doc(`bound-${r}-${i}`).set({ status: "running", active: true, total: 1, chunks: 0, createdAt: Timestamp.fromDate(createdAt) });
    // Three running; a fourth stuck for 7 hours does not count (its instance died before it enqueued anything).
    await Promise.all([fake(0, new Date()), fake(1, new Date()), fake(2, new Date()), fake(3, new Date(Date.now() - 7 * 3_600_000))]);
    const before = (await jobsOf.get()).size;
    try {
      const refused = await call(jobs(), { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: ["inspection-short"] } });
      expect(refused.status, refused.text).toBe(429);
      expect(refused.json.message).toBe("At most 3 print jobs of a target may be queued or running; try again when one has finished.");
      expect(refused.headers.get("retry-after")).toBe("30");
      expect((await jobsOf.get()).size).toBe(before);
    } finally {
      await Promise.all([0, 1, 2, 3].map((i) => jobsOf.doc(`bound-${r}-${i}`).delete()));
    }
    // The documents of a day, spent when a job is created: this target's counter as if it had printed all day.
    const counter = firestore().doc(quotaDocumentPath("jobDocuments", target));
    await counter.set({ action: "jobDocuments", windowStart: Timestamp.now(), count: 9_999_999, expiresAt: Timestamp.fromMillis(Date.now() + 86_400_000) });
    try {
      const refused = await call(jobs(), { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: ["inspection-short", "multilingual"] } });
      expect(refused.status, refused.text).toBe(429);
      expect(refused.json.message).toMatch(/^At most \d+ documents a day in print jobs of a target; try again in \d+ s\.$/);
      expect((await jobsOf.get()).size).toBe(before - 4);
    } finally {
      await counter.delete();
    }
  });

  it("bounds requests at once as it bounds them one by one: one key spends the day's documents once, and no more than 3 jobs start", async () => {
    const tenant = `burst-${r}`;
    const db = firestore();
    await db.doc(`tenants/${tenant}`).set({ name: "Burst", organizationId: null, features: {} });
    await db.doc(`tenants/${tenant}/members/north-reader`).set({ permissions: ["READ"] });
    // 10,000 ids a job (missing ones: nothing renders): a request takes long enough that requests sent at
    // once overlap, and a job that starts runs for longer than the burst.
    const ids = Array.from({ length: 10_000 }, (_, i) => `m-${i}`);
    const post = (headers: Record<string, string> = {}) => call(jobs(`/tenant/${tenant}`), { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: ids }, headers });
    const spent = async () => (await db.doc(quotaDocumentPath("jobDocuments", `tenants/${tenant}`)).get()).get("count") as number;
    // Five retries of one request at once: one job, its documents spent once.
    const keyed = await Promise.all(Array.from({ length: 5 }, () => post({ "idempotency-key": "burst-1" })));
    expect(keyed.map((res) => res.status)).toEqual(Array(5).fill(202));
    const keyedJob = keyed[0].json.data.jobId as string;
    expect(new Set(keyed.map((res) => res.json.data.jobId))).toEqual(new Set([keyedJob]));
    expect(await spent()).toBe(10_000);
    expect((await cancelJob(reader, keyedJob, `/tenant/${tenant}`)).status).toBe(200);
    // Two others running: one place left. Of five new jobs at once, one starts.
    const jobsOf = db.collection(`tenants/${tenant}/printJobs`);
    await Promise.all([0, 1].map((i) => jobsOf.doc(`held-${i}`).set({ status: "running", active: true, total: 1, chunks: 0, createdAt: Timestamp.now() })));
    const burst = await Promise.all(Array.from({ length: 5 }, () => post()));
    const started = burst.filter((res) => res.status === 202);
    expect(burst.map((res) => res.status).sort(), burst.map((res) => res.text.slice(0, 200)).join("\n")).toEqual([202, 429, 429, 429, 429]);
    expect(await spent()).toBe(20_000);
    for (const res of started) await cancelJob(reader, res.json.data.jobId as string, `/tenant/${tenant}`);
    await Promise.all([0, 1].map((i) => jobsOf.doc(`held-${i}`).delete()));
  }, 120_000);

  // Per target alone, an organization's reader could run 3 jobs on each of its targets and hold the
  // shared queue: jobs under one root are bounded together too.
  it("bounds the jobs of an organization and the targets below it together: 4 queued or running at once (429), another root unaffected", async () => {
    const db = firestore();
    const org = `root-${r}`;
    const [a, b] = [`root-a-${r}`, `root-b-${r}`];
    await db.doc(`organizations/${org}`).set({ name: "Root", features: {} });
    await db.doc(`organizations/${org}/members/north-reader`).set({ permissions: ["READ"] });
    for (const tenant of [a, b]) await db.doc(`tenants/${tenant}`).set({ name: tenant, organizationId: org, features: {} });
    const held = [...[0, 1].map((i) => db.doc(`tenants/${a}/printJobs/held-${i}`)), db.doc(`tenants/${a}/divisions/none/printJobs/held-0`)];
    const stuck = db.doc(`tenants/${a}/printJobs/stuck-0`);
    // 10,000 ids (missing ones: nothing renders): a job that starts runs for longer than the test.
    const ids = Array.from({ length: 10_000 }, (_, i) => `m-${i}`);
    const post = (target: string) => call(jobs(target), { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: ids }, timeoutMs: 60_000 });
    try {
      // Two running on tenant a and one on its division, and one stuck for a day (it does not count): tenant b may start one.
      await Promise.all(held.map((ref) => ref.set({ status: "running", active: true, total: 1, chunks: 0, createdAt: Timestamp.now(), root: `organizations/${org}` })));
      await stuck.set({ status: "running", active: true, total: 1, chunks: 0, createdAt: Timestamp.fromMillis(Date.now() - 86_400_000), root: `organizations/${org}` });
      const fourth = await post(`/organization/${org}/tenant/${b}`);
      expect(fourth.status, fourth.text).toBe(202);
      try {
        // Four under the organization: the next is refused, on any of its targets, and nothing is queued.
        const before = (await db.collection(`tenants/${b}/printJobs`).get()).size;
        const fifth = await post(`/organization/${org}/tenant/${b}`);
        expect([fifth.status, fifth.json.message, fifth.headers.get("retry-after")]).toEqual([429, "At most 4 print jobs of an organization and the targets below it may be queued or running at once; try again when one has finished.", "30"]);
        expect((await post(`/organization/${org}`)).status).toBe(429);
        expect((await db.collection(`tenants/${b}/printJobs`).get()).size).toBe(before);
        // Another root (acme-north's organization) is not affected.
        const elsewhere = await call(jobs(), { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: ["m-1"] } });
        expect(elsewhere.status, elsewhere.text).toBe(202);
        await cancelJob(reader, elsewhere.json.data.jobId);
      } finally {
        expect((await cancelJob(reader, fourth.json.data.jobId, `/organization/${org}/tenant/${b}`)).status).toBe(200);
      }
    } finally {
      await Promise.all([...held, stuck].map((ref) => ref.delete()));
    }
  }, 120_000);

  it("refuses bad jobs and job ids with a 400 naming the problem, and shows a job only in its own target", async () => {
    const post = (body: unknown) => call(jobs(), { method: "POST", auth: { bearer: reader }, body });
    for (const [body, message] of [
      [{}, /objectInstanceIds/],
      [{ objectInstanceIds: [] }, /objectInstanceIds/],
      [{ objectInstanceIds: ["a", "a"] }, /twice/],
      [{ objectInstanceIds: ["a/b"] }, /not a valid id/],
      [{ objectInstanceIds: Array.from({ length: 10_001 }, (_, i) => `d${i}`) }, /objectInstanceIds/],
      [{ objectInstanceIds: ["a"], output: "tar" }, /output/],
      [{ objectInstanceIds: ["a"], extra: 1 }, /extra/],
    ] as const) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.json.message).toMatch(message);
    }
    const started = await post({ objectInstanceIds: ["inspection-short"] });
    expect(started.status).toBe(202);
    const { jobId } = started.json.data;
    expect((await call(`${jobs()}/..`, { auth: { bearer: reader } })).status).toBeGreaterThanOrEqual(400);
    expect((await call(`${jobs()}/__x__`, { auth: { bearer: reader } })).status).toBe(400);
    expect((await call(`${jobs()}/unknown-${r}`, { auth: { bearer: reader } })).status).toBe(404);
    // Another tenant's caller: its own tenant has no such job (404); the job's tenant is not theirs (401).
    {
      expect((await call(`${jobs("/tenant/acme-south")}/${jobId}`, { auth: { bearer: southReader } })).status).toBe(404);
      expect((await call(`${jobs()}/${jobId}`, { auth: { bearer: southReader } })).status).toBe(401);
    }
    await finished(reader, `print-jobs/${jobId}`);
  }, 120_000);
});
