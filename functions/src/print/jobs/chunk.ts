// One chunk of a print job: its instances rendered as print renders them, their PDFs stored end to
// end in one object under the job's folder (a pack), and the chunk's result written to its own
// document. Idempotent: Cloud Tasks delivers at least once, and a chunk run twice (or after its
// instance died halfway) writes the same packs under the same names and the same result, counted once
// because it is set, never added.

import { randomBytes } from "node:crypto";
import { db, defaultBucket, firestoreSdk } from "../../firebase";
import { firestoreCall, firestoreTransaction } from "../../http/deadline";
import { HttpError } from "../../http/errors";
import * as logs from "../../logs";
import type { DocumentSnapshot } from "firebase-admin/firestore";
import { fileOf, recordPrintedPdfs, renderBatch, renderStoredInstance, sha256Hex, titleOf, type PrintedPdf } from "../documents";
import { storageCall } from "../storageCall";
import { serviceSigner } from "../signing/serviceSigner";
import type { DocumentTemplate } from "../render/template";
import { templateFor } from "../templates/store";
import { pictureObjects } from "../pictures";
import { imagePaths } from "../render/format";
import { archivePath, chunkPath, chunksPath, FINAL_STATUSES, jobPath, packName, packPath, PRINT_JOB_LIMITS, type ChunkDocument, type JobDocument, type JobFailure, type JobFile, type JobStatus } from "./model";
import { enqueueJobTasks } from "./queue";

/** The job ended (it was cancelled) while its chunk ran: the chunk stops between documents. */
class JobEnded extends Error {}

const CANCEL_CHECK_MS = 1_000;

/** Characters of a title a chunk keeps (its file's name uses 80): 50 of them stay far from a document's 1 MiB. */
const TITLE_KEPT = 200;

/**
 * How long an attempt at a chunk may still be running or be retried: the task function's timeout
 * (540 s), the queue's longest backoff (300 s) and a minute's slack. A chunk unfinished past it was
 * given up on by the queue (its worker died on the last attempt): the reaper ends it (reaper.ts).
 */
export const CHUNK_LEASE_MS = 900_000;

/**
 * A chunk's PDFs are stored end to end in one object, a new one from this size on: one Storage write
 * for 50 one-page documents (a write per document was most of a job's time), and a chunk of large
 * documents holds at most this much (plus one document) in memory at once.
 */
const PACK_BYTES = 32 * 1024 * 1024;

/**
 * Runs chunk `index` of a job, then enqueues the job's finishing task if every chunk has run. On
 * the queue's last attempt a chunk that still fails as a whole (the platform down all along) is
 * finished all the same, its documents not printed yet each a failure with the reason: no job waits
 * forever for a chunk the queue gave up on.
 */
export async function runChunk(target: string, jobId: string, index: number, lastAttempt: boolean, now = Date.now): Promise<void> {
  const jobRef = db().doc(jobPath(target, jobId));
  const [jobSnap, chunkSnap] = await firestoreCall(() => db().getAll(jobRef, db().doc(chunkPath(target, jobId, index))));
  if (!jobSnap.exists || !chunkSnap.exists) return logs.jobTaskIgnored(jobId, "no such job or chunk");
  const job = jobSnap.data() as JobDocument;
  const chunk = chunkSnap.data() as ChunkDocument;
  if (FINAL_STATUSES.includes(job.status)) return logs.jobTaskIgnored(jobId, `the job is ${job.status}`);
  if (!chunk.finished) {
    // Only queued becomes running, on the state as it is now (a job finished meanwhile stays finished).
    if (job.status === "queued") {
      await firestoreTransaction(async (tx) => {
        if ((await tx.get(jobRef)).get("status") === ("queued" satisfies JobStatus)) tx.update(jobRef, { status: "running" });
      });
    }
    // Each attempt counted on the chunk (the queue's retries, seen from outside), and its lease renewed.
    const { FieldValue, Timestamp } = firestoreSdk();
    await firestoreCall(() => chunkSnap.ref.update({ attempts: FieldValue.increment(1), leaseUntil: Timestamp.fromMillis(now() + CHUNK_LEASE_MS) }));
    const result: ChunkResult = { files: [], failures: [], packsStored: new Set() };
    try {
      await printChunk(target, jobId, index, job, chunk.ids, result);
    } catch (error) {
      if (error instanceof JobEnded) return logs.jobTaskIgnored(jobId, "the job was cancelled while its chunk ran");
      if (!lastAttempt) throw error;
      const reason = error instanceof HttpError ? error.message : "The print service failed.";
      // Only what is stored counts: documents rendered into a pack that could not be written are failures too.
      result.files = result.files.filter((file) => result.packsStored.has(file.pack));
      failUnhandled(chunk.ids, result, `Not printed after the queue's last attempt: ${reason}`);
    }
    await finishChunk(chunkSnap.ref, result);
  }
  // The job's next chunk into the queue (fixed ids: a chunk run twice enqueues it once), or its end.
  const next = index + PRINT_JOB_LIMITS.chunksInFlight;
  if (next < job.chunks) await enqueueJobTasks([{ target, jobId, chunk: next }]);
  await finishIfLast(target, jobId);
}

interface ChunkResult {
  files: JobFile[];
  failures: JobFailure[];
  /** Packs written so far (files in a later pack are not stored yet). */
  packsStored: Set<string>;
}

/** Every id of the chunk that has neither a file nor a failure becomes a failure, with this reason. */
export function failUnhandled(ids: readonly string[], result: Pick<ChunkResult, "files" | "failures">, reason: string): void {
  const handled = new Set([...result.files, ...result.failures].map((d) => d.objectInstanceId));
  for (const objectInstanceId of ids) if (!handled.has(objectInstanceId)) result.failures.push({ objectInstanceId, status: 503, reason });
}

/**
 * A chunk's result, set once and never added to: the first run to finish the chunk wins (a chunk run
 * twice at once, or the reaper and a late retry, would otherwise leave one run's offsets over the
 * other's packs). `due` is checked on the chunk as the transaction reads it.
 */
export async function finishChunk(ref: FirebaseFirestore.DocumentReference, result: Pick<ChunkResult, "files" | "failures">, due: (chunk: ChunkDocument) => boolean = () => true): Promise<boolean> {
  const { files, failures } = result;
  return firestoreTransaction(async (tx) => {
    const chunk = (await tx.get(ref)).data() as ChunkDocument | undefined;
    if (!chunk || chunk.finished || !due(chunk)) return false;
    tx.update(ref, { finished: true, files, failures, done: files.length, failed: failures.length });
    return true;
  });
}

/**
 * The template of each object type among a chunk's instances, found before any is printed (the one
 * the job names, else the type's nearest on the job's chain): a chunk prints its instances with one
 * version of each. A platform failure fails the chunk (the queue retries it); a named template
 * deleted since the job started is each document's failure (404), with the reason.
 */
async function chunkTemplates(job: JobDocument, instances: readonly DocumentSnapshot[]): Promise<(objectTypeName: unknown) => DocumentTemplate | HttpError | undefined> {
  const chain = job.auditChain.map((path) => ({ path, data: {} }));
  if (job.templateId !== undefined) {
    try {
      const named = (await templateFor(chain, undefined, job.templateId))?.template;
      return () => named;
    } catch (error) {
      if (error instanceof HttpError && error.statusCode === 404) return () => error;
      throw error;
    }
  }
  const types = [...new Set(instances.filter((i) => i.exists).map((i) => i.get("objectTypeName") as unknown))];
  const found = new Map(await Promise.all(types.map(async (type) => [type, (await templateFor(chain, type))?.template] as const)));
  return (objectTypeName) => found.get(objectTypeName);
}

/** Prints the chunk's instances into `result` (so that a failure part way leaves what was done). */
async function printChunk(target: string, jobId: string, index: number, job: JobDocument, ids: readonly string[], result: ChunkResult): Promise<void> {
  const refs = ids.map((id) => db().doc(`${target}/objectInstances/${id}`));
  if (refs.length === 0) return;
  const instances = await firestoreCall(() => db().getAll(...refs));
  // The logo once for the chunk (a failure to get it fails the chunk, retried as a whole), and one log line.
  const batch = renderBatch(job.settings);
  const templateOf = await chunkTemplates(job, instances);
  // Signed as print signs them when the target's setting says so (a job made before the setting has
  // none: unsigned), into a ZIP only: a merged PDF is signed as a whole when it is written (finish.ts),
  // and a signature of each part would not survive the merge. A key that cannot sign fails the chunk
  // (503), which the queue retries: never an unsigned PDF in a signed target's ZIP.
  const signer = job.settings.sign === true && job.output === "zip" ? await serviceSigner() : undefined;
  /** The signed PDFs of the pack being filled: recorded (POST verify's issuedHere) before the pack is stored. */
  let signed: PrintedPdf[] = [];
  const run = randomBytes(4).toString("hex");
  let pack: Buffer[] = [];
  let packBytes = 0;
  let name = packName(index, run, 0);
  const storePack = async () => {
    if (pack.length === 0) return;
    const bytes = Buffer.concat(pack);
    await recordPrintedPdfs(target, signed);
    signed = [];
    await storageCall(() => defaultBucket().file(packPath(target, jobId, name)).save(bytes, { resumable: false, contentType: "application/octet-stream" }));
    result.packsStored.add(name);
    [pack, packBytes, name] = [[], 0, packName(index, run, result.packsStored.size)];
  };
  let checked = Date.now();
  for (const instance of instances) {
    // Cancelled meanwhile? Asked between documents, at most once a second (a read each time).
    if (Date.now() - checked > CANCEL_CHECK_MS) {
      checked = Date.now();
      const status = (await firestoreCall(() => db().doc(jobPath(target, jobId)).get())).get("status") as JobStatus;
      if (FINAL_STATUSES.includes(status)) throw new JobEnded();
    }
    const objectInstanceId = instance.id;
    if (!instance.exists) {
      result.failures.push({ objectInstanceId, status: 404, reason: `Object instance '${objectInstanceId}' does not exist in this target.` });
      continue;
    }
    try {
      const stored = instance.data()!;
      const pictures = await pictureObjects({ path: target }, imagePaths(stored), fileOf, storageCall);
      const template = templateOf(stored.objectTypeName);
      if (template instanceof HttpError) throw template;
      const pdf = await renderStoredInstance({ path: target, name: job.targetName }, objectInstanceId, stored, pictures, job.settings, { batch, template, signer });
      if (signer) signed.push({ sha256: sha256Hex(pdf.bytes), storagePath: archivePath(target, jobId), objectInstanceId, printJobId: jobId });
      result.files.push({ objectInstanceId, title: titleOf(stored).slice(0, TITLE_KEPT), pack: name, offset: packBytes, length: pdf.bytes.length });
      pack.push(Buffer.from(pdf.bytes.buffer, pdf.bytes.byteOffset, pdf.bytes.length));
      packBytes += pdf.bytes.length;
      if (packBytes >= PACK_BYTES) await storePack();
    } catch (error) {
      // A platform failure (503) fails the chunk, which the queue retries; what the instance causes is its own failure.
      if (error instanceof HttpError && error.statusCode >= 500) throw error;
      if (!(error instanceof HttpError)) logs.unexpectedError(error);
      const answer = error instanceof HttpError ? error : new HttpError(422, "The object instance could not be printed.");
      result.failures.push({ objectInstanceId, status: answer.statusCode, reason: answer.message });
    }
  }
  await storePack();
  logs.pdfRendered(batch.rendered, { jobId, chunk: index });
}

/**
 * When no chunk is left unfinished (a count, not a read of every chunk), the job's finishing task is
 * enqueued, by one chunk only: the first to mark the job in a transaction (chunks finishing at once
 * may both see none left). Its task id carries the time: a mark older than a chunk's lease is of a
 * finishing task the queue lost or gave up on, and the reaper's call enqueues another, which the
 * queue would refuse under the same id.
 */
export async function finishIfLast(target: string, jobId: string, now = Date.now()): Promise<void> {
  const chunks = db().collection(chunksPath(target, jobId));
  const left = await firestoreCall(() => chunks.where("finished", "==", false).count().get());
  if (left.data().count > 0) return;
  const jobRef = db().doc(jobPath(target, jobId));
  const { FieldValue, Timestamp } = firestoreSdk();
  const marked = await firestoreTransaction(async (tx) => {
    const job = await tx.get(jobRef);
    const previous = job.get("finishEnqueuedAt") as FirebaseFirestore.Timestamp | undefined;
    if (!job.exists || FINAL_STATUSES.includes(job.get("status") as JobStatus) || (previous && now - previous.toMillis() < CHUNK_LEASE_MS)) return false;
    tx.update(jobRef, { finishEnqueuedAt: Timestamp.fromMillis(now) });
    return true;
  });
  if (!marked) return;
  try {
    await enqueueJobTasks([{ target, jobId, finish: true, round: now }]);
  } catch (error) {
    // Unmarked so that this chunk's retry enqueues it (else the reaper does).
    await firestoreCall(() => jobRef.update({ finishEnqueuedAt: FieldValue.delete() })).catch(() => undefined);
    throw error;
  }
}
