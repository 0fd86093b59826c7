// One chunk of a print job: its instances rendered as print renders them, each PDF stored under the
// job's folder, and the chunk's result written to its own document. Idempotent: Cloud Tasks delivers
// at least once, and a chunk run twice (or after its instance died halfway) writes the same files
// under the same names and the same result, counted once because it is set, never added.

import { db, defaultBucket, firestoreSdk } from "../../firebase";
import { firestoreCall, firestoreTransaction } from "../../http/deadline";
import { HttpError } from "../../http/errors";
import * as logs from "../../logs";
import { fileOf, renderStoredInstance, storageCall, titleOf } from "../documents";
import { pictureObjects } from "../pictures";
import { imagePaths } from "../render/format";
import { chunkPath, FINAL_STATUSES, jobFolder, jobPath, PRINT_JOB_LIMITS, type ChunkDocument, type JobDocument, type JobFailure, type JobFile, type JobStatus } from "./model";
import { readChunks } from "./progress";
import { enqueueJobTasks } from "./queue";

/** The job ended (it was cancelled) while its chunk ran: the chunk stops between documents. */
class JobEnded extends Error {}

const CANCEL_CHECK_MS = 1_000;

/** Characters of a title a chunk keeps (its file's name uses 80): 50 of them stay far from a document's 1 MiB. */
const TITLE_KEPT = 200;

/**
 * Runs chunk `index` of a job, then enqueues the job's finishing task if every chunk has run. On
 * the queue's last attempt a chunk that still fails as a whole (the platform down all along) is
 * finished all the same, its documents not printed yet each a failure with the reason: no job waits
 * forever for a chunk the queue gave up on.
 */
export async function runChunk(target: string, jobId: string, index: number, lastAttempt: boolean): Promise<void> {
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
    // Each attempt counted on the chunk (the queue's retries, seen from outside).
    await firestoreCall(() => chunkSnap.ref.update({ attempts: firestoreSdk().FieldValue.increment(1) }));
    const result: { files: JobFile[]; failures: JobFailure[] } = { files: [], failures: [] };
    try {
      await printChunk(target, jobId, index, job, chunk.ids, result);
    } catch (error) {
      if (error instanceof JobEnded) return logs.jobTaskIgnored(jobId, "the job was cancelled while its chunk ran");
      if (!lastAttempt) throw error;
      const reason = error instanceof HttpError ? error.message : "The print service failed.";
      const handled = new Set([...result.files, ...result.failures].map((d) => d.objectInstanceId));
      for (const objectInstanceId of chunk.ids) if (!handled.has(objectInstanceId)) result.failures.push({ objectInstanceId, status: 503, reason: `Not printed after the queue's last attempt: ${reason}` });
    }
    await firestoreCall(() => chunkSnap.ref.update({ finished: true, ...result }));
  }
  // The job's next chunk into the queue (fixed ids: a chunk run twice enqueues it once), or its end.
  const next = index + PRINT_JOB_LIMITS.chunksInFlight;
  if (next < job.chunks) await enqueueJobTasks([{ target, jobId, chunk: next }]);
  await finishIfLast(target, jobId, job.chunks);
}

/** Prints the chunk's instances into `result` (so that a failure part way leaves what was done). */
async function printChunk(target: string, jobId: string, index: number, job: JobDocument, ids: readonly string[], result: { files: JobFile[]; failures: JobFailure[] }): Promise<void> {
  const refs = ids.map((id) => db().doc(`${target}/objectInstances/${id}`));
  if (refs.length === 0) return;
  const instances = await firestoreCall(() => db().getAll(...refs));
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
      const pdf = await renderStoredInstance({ path: target, name: job.targetName }, objectInstanceId, stored, pictures, job.settings);
      const storagePath = `${jobFolder(target, jobId)}/parts/${String(index).padStart(5, "0")}/${objectInstanceId}.pdf`;
      await storageCall(() => defaultBucket().file(storagePath).save(Buffer.from(pdf.bytes), { resumable: false, contentType: "application/pdf" }));
      result.files.push({ objectInstanceId, storagePath, title: titleOf(stored).slice(0, TITLE_KEPT) });
    } catch (error) {
      // A platform failure (503) fails the chunk, which the queue retries; what the instance causes is its own failure.
      if (error instanceof HttpError && error.statusCode >= 500) throw error;
      if (!(error instanceof HttpError)) logs.unexpectedError(error);
      const answer = error instanceof HttpError ? error : new HttpError(422, "The object instance could not be printed.");
      result.failures.push({ objectInstanceId, status: answer.statusCode, reason: answer.message });
    }
  }
}

/**
 * Every chunk writes its own document, then reads them all: the last to finish sees every one
 * finished (reads follow writes) and enqueues the finishing task, whose fixed id makes two such
 * enqueues one task. No job document is incremented by every chunk.
 */
async function finishIfLast(target: string, jobId: string, chunks: number): Promise<void> {
  const all = await readChunks(target, jobId, chunks);
  if (all.length > 0 && all.every((c) => c.get("finished") === true)) await enqueueJobTasks([{ target, jobId, finish: true }]);
}
