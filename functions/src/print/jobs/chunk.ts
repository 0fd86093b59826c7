// One chunk of a print job: its instances rendered as print renders them, each PDF stored under the
// job's folder, and the chunk's result written to its own document. Idempotent: Cloud Tasks delivers
// at least once, and a chunk run twice (or after its instance died halfway) writes the same files
// under the same names and the same result, counted once because it is set, never added.

import { db, defaultBucket } from "../../firebase";
import { firestoreCall } from "../../http/deadline";
import { HttpError } from "../../http/errors";
import * as logs from "../../logs";
import { renderStoredInstance, storageCall } from "../documents";
import { pictureObjects } from "../pictures";
import { imagePaths } from "../render/format";
import { chunkPath, FINAL_STATUSES, jobFolder, jobPath, type ChunkDocument, type JobDocument, type JobFailure, type JobFile } from "./model";
import { enqueueJobTasks } from "./queue";

/** Runs chunk `index` of a job, then enqueues the job's finishing task if every chunk has run. */
export async function runChunk(target: string, jobId: string, index: number): Promise<void> {
  const [jobSnap, chunkSnap] = await firestoreCall(() => db().getAll(db().doc(jobPath(target, jobId)), db().doc(chunkPath(target, jobId, index))));
  if (!jobSnap.exists || !chunkSnap.exists) return logs.jobTaskIgnored(jobId, "no such job or chunk");
  const job = jobSnap.data() as JobDocument;
  const chunk = chunkSnap.data() as ChunkDocument;
  if (FINAL_STATUSES.includes(job.status)) return logs.jobTaskIgnored(jobId, `the job is ${job.status}`);
  if (!chunk.finished) {
    if (job.status === "queued") await firestoreCall(() => jobSnap.ref.update({ status: "running" }));
    const { files, failures } = await printChunk(target, jobId, index, job, chunk.ids);
    await firestoreCall(() => chunkSnap.ref.update({ finished: true, files, failures }));
  }
  await finishIfLast(target, jobId, job.chunks);
}

async function printChunk(target: string, jobId: string, index: number, job: JobDocument, ids: readonly string[]): Promise<{ files: JobFile[]; failures: JobFailure[] }> {
  const refs = ids.map((id) => db().doc(`${target}/objectInstances/${id}`));
  const instances = await firestoreCall(() => db().getAll(...refs));
  const files: JobFile[] = [];
  const failures: JobFailure[] = [];
  for (const instance of instances) {
    const objectInstanceId = instance.id;
    if (!instance.exists) {
      failures.push({ objectInstanceId, status: 404, reason: `Object instance '${objectInstanceId}' does not exist in this target.` });
      continue;
    }
    try {
      const stored = instance.data()!;
      const pictures = await pictureObjects({ path: target }, imagePaths(stored), (path) => defaultBucket().file(path), storageCall);
      const pdf = await renderStoredInstance({ path: target, name: job.targetName }, objectInstanceId, stored, pictures, job.settings);
      const storagePath = `${jobFolder(target, jobId)}/parts/${String(index).padStart(5, "0")}/${objectInstanceId}.pdf`;
      await storageCall(() => defaultBucket().file(storagePath).save(Buffer.from(pdf.bytes), { resumable: false, contentType: "application/pdf" }));
      files.push({ objectInstanceId, storagePath, title: String(stored.title ?? "") });
    } catch (error) {
      // A platform failure (503) fails the task, which the queue retries; what the instance causes is its failure.
      if (!(error instanceof HttpError) || error.statusCode >= 500) throw error;
      failures.push({ objectInstanceId, status: error.statusCode, reason: error.message });
    }
  }
  return { files, failures };
}

/**
 * Every chunk writes its own document, then reads them all: the last to finish sees every one
 * finished (reads follow writes) and enqueues the finishing task, whose fixed id makes two such
 * enqueues one task. No job document is incremented by every chunk.
 */
async function finishIfLast(target: string, jobId: string, chunks: number): Promise<void> {
  const refs = Array.from({ length: chunks }, (_, i) => db().doc(chunkPath(target, jobId, i)));
  const all = await firestoreCall(() => db().getAll(...refs));
  if (all.every((c) => c.get("finished") === true)) await enqueueJobTasks([{ target, jobId, finish: true }]);
}
