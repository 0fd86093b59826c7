// A print job's end: its chunks' PDFs streamed from their packs into one ZIP object (with
// manifest.json) or merged into one PDF (render/merge.ts), the final status and result written in
// one update, then the packs deleted. Idempotent: a finishing task run twice writes the same archive
// (entries in chunk order, fixed times) or PDF (the merge depends only on its documents and the job;
// a signed one, whose signature is new each time, is kept once stored) and changes nothing once the
// job is final, but deletes what packs are left.

import { createHash } from "node:crypto";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import yazl from "yazl";
import { db, defaultBucket, firestoreSdk } from "../../firebase";
import { auditInTransaction } from "../../audit";
import { firestoreCall, firestoreTransaction } from "../../http/deadline";
import { HttpError } from "../../http/errors";
import * as logs from "../../logs";
import { recordPrintedPdfs, serviceSignature } from "../documents";
import { storageCall } from "../storageCall";
import { serviceSigner, signingUnavailable } from "../signing/serviceSigner";
import { archiveNames } from "./names";
import { readChunks, tally } from "./progress";
import { enqueueJobTasks } from "./queue";
import { archivePath, FINAL_STATUSES, jobAudit, jobFolder, jobPath, mergedPath, packPath, PRINT_JOB_LIMITS, type ChunkDocument, type JobDocument, type JobFailure, type JobFile, type JobStatus } from "./model";

/**
 * Finishes a job whose chunks have all run. On the queue's last attempt an output that still cannot
 * be written (Storage down all along) ends the job `failed`, saying so, rather than leaving it running.
 */
export async function finishJob(target: string, jobId: string, lastAttempt = false): Promise<void> {
  const jobRef = db().doc(jobPath(target, jobId));
  const jobSnap = await firestoreCall(() => jobRef.get());
  if (!jobSnap.exists) return logs.jobTaskIgnored(jobId, "no such job");
  const job = jobSnap.data() as JobDocument;
  if (!FINAL_STATUSES.includes(job.status) && job.chunks > 0) {
    const snapshots = await readChunks(target, jobId, job.chunks);
    if (snapshots.some((c) => c.get("finished") !== true)) return logs.jobTaskIgnored(jobId, "a chunk has not run");
    const { files, failures } = tally(snapshots);
    const chunks = snapshots.map((c) => c.data() as ChunkDocument);
    // An archive even when nothing printed: its manifest says why for every document (the status lists 100).
    // A merged PDF only of what printed (a PDF of no pages is none): the status lists the failures.
    let result: JobDocument["result"];
    let error: string | undefined;
    try {
      result = job.output === "merged" ? await writeMerged(target, jobId, job, chunks, files.length) : await writeArchive(target, jobId, job, chunks, files, failures);
    } catch (failure) {
      if (!lastAttempt) throw failure;
      error = `The job's output could not be written after the queue's last attempt: ${failure instanceof HttpError ? failure.message : "the print service failed."}`;
    }
    const status: JobStatus = error || files.length === 0 ? "failed" : failures.length === 0 ? "succeeded" : "completed_with_failures";
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
        ...(result ? { result } : error ? { error } : {}),
        active: false,
        finishedAt: FieldValue.serverTimestamp(),
      });
      // The job's end on its trail, in the same commit (documents of a job have no pdf.printed each).
      auditInTransaction(tx, ...jobAudit(target, job), { action: "print_job.finished", subject: jobId, details: { status, total: job.total, done: files.length, failed: failures.length } });
    });
    logs.printJobFinished(jobId, status, files.length, failures.length);
  }
  // It has ended (here, or by a cancel): its webhook goes out on the queue, once (a fixed task id).
  if (job.webhook) await enqueueJobTasks([{ target, jobId, webhook: true }]);
  await storageCall(() => defaultBucket().deleteFiles({ prefix: `${jobFolder(target, jobId)}/parts/` }), JOB_STORAGE_DEADLINE_MS);
}

/**
 * The bound of a job's long Storage work (the archive streamed, the parts deleted): a few minutes for
 * 10,000 documents, within the task function's 540 s (the 10 s of a single call would fail every job
 * of a few hundred documents, on every attempt).
 */
const JOB_STORAGE_DEADLINE_MS = 480_000;

/** A resumable upload's chunk (a multiple of 256 KiB, as Cloud Storage asks). */
const OUTPUT_CHUNK_BYTES = 32 * 1024 * 1024;

/** The ZIP: one PDF per printed instance in chunk order, and manifest.json naming every requested instance once. */
async function writeArchive(target: string, jobId: string, job: JobDocument, chunks: ChunkDocument[], files: JobFile[], failures: JobFailure[]) {
  const storagePath = archivePath(target, jobId);
  const mtime = job.createdAt.toDate();
  const names = archiveNames(files);
  const failed = new Map(failures.map((f) => [f.objectInstanceId, f]));
  const manifest = chunks.flatMap((c) => c.ids.map((id) => (names.has(id) ? { objectInstanceId: id, file: names.get(id) } : { objectInstanceId: id, ...pick(failed.get(id)) })));

  const zip = new yazl.ZipFile();
  const out = outputStream(storagePath, "application/zip", job);
  // yazl reports a part it could not read as an "error" of the archive: the upload is then abandoned (a simple upload is all or nothing).
  zip.on("error", (error: Error) => out.destroy(error));
  const written = storageCall(() => pipeline(zip.outputStream, out), JOB_STORAGE_DEADLINE_MS);
  // Each pack downloaded when the archive reaches its first PDF, one pack in memory at a time
  // (at most 32 MiB and a document), whatever the job's size: entries are read in order.
  const packs = new PackReader(target, jobId);
  chunks.forEach((chunk) => {
    for (const file of chunk.files ?? []) {
      zip.addReadStreamLazy(names.get(file.objectInstanceId)!, { mtime, compress: false }, (done) => {
        packs.slice(file).then((bytes) => done(null, Readable.from([bytes])), (error: Error) => done(error, undefined as never));
      });
    }
  });
  zip.addBuffer(Buffer.from(`${JSON.stringify({ jobId, total: job.total, done: files.length, failed: failures.length, documents: manifest }, null, 2)}\n`), "manifest.json", { mtime });
  zip.end();
  await written;
  return outputResult(storagePath, job);
}

/**
 * The merged PDF (render/merge.ts): the printed documents in chunk order, each sliced from its pack
 * when the merge reaches it and written on before the next is read, so a worker holds one pack, a
 * chunk of the upload and the merge's own state (a few hundred bytes a document) whatever the job's size.
 * A signing target's merged PDF is signed as a whole as its last bytes are written, and recorded by
 * its SHA-256 (POST verify's issuedHere) before the upload ends, so that every stored signed PDF is
 * one the verify route knows. Signatures are not deterministic (ECDSA): a finishing task that finds
 * the signed output already stored (a duplicate delivery, or a retry after the job's update failed)
 * keeps it rather than storing other bytes under the same name.
 */
async function writeMerged(target: string, jobId: string, job: JobDocument, chunks: ChunkDocument[], printed: number) {
  if (printed === 0) return undefined;
  const storagePath = mergedPath(target, jobId);
  const signing = job.settings.sign === true;
  if (signing && (await storageCall(() => defaultBucket().file(storagePath).exists()))[0]) return outputResult(storagePath, job);
  const { mergedPdfStream } = await import("../render/merge.js");
  const { SignatureFillError } = await import("../render/signature.js");
  const packs = new PackReader(target, jobId);
  async function* documents() {
    for (const chunk of chunks) for (const file of chunk.files ?? []) yield { objectInstanceId: file.objectInstanceId, title: file.title, bytes: await packs.slice(file) };
  }
  // The signer first: a key that cannot sign is the 503 of signingUnavailable before anything is written.
  const signer = signing ? await serviceSigner() : undefined;
  /** What failed that is not Storage's (signing, or recording the signed file): answered as itself, not as Storage's 503. */
  let failure: unknown;
  const failed = (error: unknown) => Promise.reject((failure ??= error));
  const signature = signer && serviceSignature({ chain: signer.chain, sign: (data) => signer.sign(data).catch(failed) }, job.createdAt.toDate());
  const options = { title: job.targetName || jobId, subject: `Print job ${jobId}: ${printed} documents`, keywords: [jobId], date: job.createdAt.toDate(), language: job.settings.locale || undefined /* none set: the first document's */, conformance: job.settings.conformance, signature };
  const hash = createHash("sha256");
  const hashed = new Transform({
    transform: (chunk: Buffer, _encoding, done) => done(null, hash.update(chunk) && chunk),
    // After the last byte and before the upload ends: no signed object is stored unrecorded.
    flush: (done) => {
      if (!signer) return done();
      recordPrintedPdfs(target, [{ sha256: hash.digest("hex"), storagePath, printJobId: jobId }]).then(() => done(), (error: unknown) => failed(error).catch(done));
    },
  });
  const merged = () => pipeline(mergedPdfStream(documents(), options), hashed, outputStream(storagePath, "application/pdf", job)).catch((error: unknown) => (error instanceof SignatureFillError ? failed(error) : Promise.reject(error)));
  try {
    await storageCall(merged, JOB_STORAGE_DEADLINE_MS);
  } catch (error) {
    if (failure === undefined) throw error;
    throw failure instanceof HttpError ? failure : signingUnavailable(failure);
  }
  return outputResult(storagePath, job);
}

/**
 * The output object's upload. Resumable, in chunks of OUTPUT_CHUNK_BYTES: an output of 10,000
 * documents is hundreds of MB, more than one request should carry (and than the Storage emulator takes
 * in one), and no more than a chunk of it is held in memory. The token was drawn when the job was
 * created: two finishing tasks write the same object and name the same token.
 */
function outputStream(storagePath: string, contentType: string, job: JobDocument) {
  const downloadToken = job.outputToken;
  const fileName = storagePath.slice(storagePath.lastIndexOf("/") + 1);
  return defaultBucket()
    .file(storagePath)
    .createWriteStream({ resumable: true, chunkSize: OUTPUT_CHUNK_BYTES, contentType, metadata: { contentDisposition: `attachment; filename="${fileName}"`, metadata: { ...(downloadToken && { firebaseStorageDownloadTokens: downloadToken }) } } });
}

/** The job's result once its output is stored. */
async function outputResult(storagePath: string, job: JobDocument): Promise<NonNullable<JobDocument["result"]>> {
  const [metadata] = await storageCall(() => defaultBucket().file(storagePath).getMetadata());
  return { storagePath, sizeBytes: Number(metadata.size), ...(job.outputToken && { downloadToken: job.outputToken }) };
}

/** The PDFs of a job's packs, read in order: the pack last downloaded is kept for the next slice. */
class PackReader {
  private current: { path: string; bytes: Promise<Buffer> } | undefined;
  constructor(
    private readonly target: string,
    private readonly jobId: string,
  ) {}

  async slice(file: JobFile): Promise<Buffer> {
    const path = packPath(this.target, this.jobId, file.pack);
    if (this.current?.path !== path) this.current = { path, bytes: defaultBucket().file(path).download().then(([bytes]) => bytes) };
    const bytes = await this.current.bytes;
    if (file.offset + file.length > bytes.length) throw new Error(`pack ${path} is shorter than its chunk says`);
    return bytes.subarray(file.offset, file.offset + file.length);
  }
}

const pick = (f: JobFailure | undefined) => ({ status: f?.status ?? 500, reason: f?.reason ?? "Not printed." });
