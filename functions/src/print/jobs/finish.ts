// A print job's end: its chunks' PDFs streamed into one ZIP object (with manifest.json), the final
// status and result written in one update, then the parts deleted. Idempotent: a finishing task run
// twice writes the same archive (entries in chunk order, fixed times) and changes nothing once the
// job is final, but deletes what parts are left.

import { randomUUID } from "node:crypto";
import { PassThrough } from "node:stream";
import { pipeline } from "node:stream/promises";
import yazl from "yazl";
import { isEmulator } from "../../config";
import { db, defaultBucket, firestoreSdk } from "../../firebase";
import { firestoreCall, firestoreTransaction } from "../../http/deadline";
import * as logs from "../../logs";
import { safeFileName, storageCall } from "../documents";
import { chunkPath, FINAL_STATUSES, jobFolder, jobPath, PRINT_JOB_LIMITS, type ChunkDocument, type JobDocument, type JobFailure, type JobFile, type JobStatus } from "./model";

export async function finishJob(target: string, jobId: string): Promise<void> {
  const jobRef = db().doc(jobPath(target, jobId));
  const jobSnap = await firestoreCall(() => jobRef.get());
  if (!jobSnap.exists) return logs.jobTaskIgnored(jobId, "no such job");
  const job = jobSnap.data() as JobDocument;
  if (!FINAL_STATUSES.includes(job.status)) {
    const refs = Array.from({ length: job.chunks }, (_, i) => db().doc(chunkPath(target, jobId, i)));
    const chunks = (await firestoreCall(() => db().getAll(...refs))).map((c) => c.data() as ChunkDocument | undefined);
    if (chunks.some((c) => !c?.finished)) return logs.jobTaskIgnored(jobId, "a chunk has not run");
    const files = chunks.flatMap((c) => c!.files ?? []);
    const failures = chunks.flatMap((c) => c!.failures ?? []);
    const result = files.length > 0 ? await writeArchive(target, jobId, job, chunks as ChunkDocument[], files, failures) : undefined;
    const status: JobStatus = failures.length === 0 ? "succeeded" : files.length === 0 ? "failed" : "completed_with_failures";
    const { FieldValue } = firestoreSdk();
    // The final status and the result in one update, once: a second finishing task finds the job final.
    await firestoreTransaction(async (tx) => {
      const now = await tx.get(jobRef);
      if (FINAL_STATUSES.includes(now.get("status") as JobStatus)) return;
      tx.update(jobRef, {
        status,
        done: files.length,
        failed: failures.length,
        failures: failures.slice(0, PRINT_JOB_LIMITS.failuresListed),
        result: result ?? FieldValue.delete(),
        finishedAt: FieldValue.serverTimestamp(),
      });
    });
    logs.printJobFinished(jobId, status, files.length, failures.length);
  }
  await storageCall(() => defaultBucket().deleteFiles({ prefix: `${jobFolder(target, jobId)}/parts/` }));
}

/** The ZIP: one PDF per printed instance in chunk order, and manifest.json naming every requested instance once. */
async function writeArchive(target: string, jobId: string, job: JobDocument, chunks: ChunkDocument[], files: JobFile[], failures: JobFailure[]) {
  const storagePath = `${jobFolder(target, jobId)}/${jobId}.zip`;
  const mtime = job.createdAt.toDate();
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const file of files) {
    const base = `${file.objectInstanceId} ${file.title}`.trim();
    let name = safeFileName(base);
    for (let n = 2; taken.has(name); n++) name = safeFileName(`${base} (${n})`);
    taken.add(name);
    names.set(file.objectInstanceId, name);
  }
  const failed = new Map(failures.map((f) => [f.objectInstanceId, f]));
  const manifest = chunks.flatMap((c) => c.ids.map((id) => (names.has(id) ? { objectInstanceId: id, file: names.get(id) } : { objectInstanceId: id, ...pick(failed.get(id)) })));

  const zip = new yazl.ZipFile();
  // The emulator serves files by download token; production signs URLs.
  const downloadToken = isEmulator() ? randomUUID() : undefined;
  const out = defaultBucket()
    .file(storagePath)
    .createWriteStream({ resumable: false, contentType: "application/zip", metadata: { contentDisposition: `attachment; filename="${jobId}.zip"`, metadata: { ...(downloadToken && { firebaseStorageDownloadTokens: downloadToken }) } } });
  const written = storageCall(() => pipeline(zip.outputStream, out));
  for (const file of files) {
    // Each PDF read only when the archive reaches it: one at a time, whatever the job's size.
    zip.addReadStreamLazy(names.get(file.objectInstanceId)!, { mtime, compress: false }, (done) => {
      const through = new PassThrough();
      defaultBucket().file(file.storagePath).createReadStream().on("error", (e) => through.destroy(e)).pipe(through);
      done(null, through);
    });
  }
  zip.addBuffer(Buffer.from(`${JSON.stringify({ jobId, total: job.total, done: files.length, failed: failures.length, documents: manifest }, null, 2)}\n`), "manifest.json", { mtime });
  zip.end();
  await written;
  const [metadata] = await storageCall(() => defaultBucket().file(storagePath).getMetadata());
  return { storagePath, sizeBytes: Number(metadata.size), ...(downloadToken && { downloadToken }) };
}

const pick = (f: JobFailure | undefined) => ({ status: f?.status ?? 500, reason: f?.reason ?? "Not printed." });
