// What a job's chunks hold: all of them read at once, and their printed files and failures added up.

import type { DocumentSnapshot } from "firebase-admin/firestore";
import { db, firestoreSdk } from "../../firebase";
import { firestoreCall } from "../../http/deadline";
import { chunkPath, chunksPath, type JobDocument, type JobFailure, type JobFile } from "./model";

/** Every chunk document of a job, in order (none for a job of no chunks: getAll needs one reference). */
export async function readChunks(target: string, jobId: string, chunks: number): Promise<DocumentSnapshot[]> {
  if (chunks < 1) return [];
  const refs = Array.from({ length: chunks }, (_, i) => db().doc(chunkPath(target, jobId, i)));
  return firestoreCall(() => db().getAll(...refs));
}

/** The files printed and the failures recorded by the chunks that have run. */
export function tally(chunks: readonly DocumentSnapshot[]): { files: JobFile[]; failures: JobFailure[] } {
  return {
    files: chunks.flatMap((c) => (c.get("files") as JobFile[] | undefined) ?? []),
    failures: chunks.flatMap((c) => (c.get("failures") as JobFailure[] | undefined) ?? []),
  };
}

/**
 * Documents printed and failed so far: the sums of the chunks' counts, one aggregation (a status poll
 * of a 200-chunk job reads 200 chunk documents otherwise, each poll).
 */
export async function progressOf(target: string, jobId: string): Promise<{ done: number; failed: number }> {
  const { AggregateField } = firestoreSdk();
  const sums = await firestoreCall(() => db().collection(chunksPath(target, jobId)).aggregate({ done: AggregateField.sum("done"), failed: AggregateField.sum("failed") }).get());
  return { done: sums.data().done ?? 0, failed: sums.data().failed ?? 0 };
}

/**
 * Documents printed and failed: the job's own counts once written (its finishing task, or a cancel
 * just after it commits), else the chunks' sums so far: while it runs, and in the moment between a
 * cancel's commit and its counts (a second cancel, a reading or its webhook would otherwise say null or 0).
 */
export async function countsOf(target: string, jobId: string, job: Pick<JobDocument, "done" | "failed">): Promise<{ done: number; failed: number }> {
  if (job.done !== undefined) return { done: job.done, failed: job.failed ?? 0 };
  return progressOf(target, jobId);
}

/** The job with its counts as countsOf finds them (a cancelled job's, while they are being written). */
export async function withCounts<J extends Pick<JobDocument, "done" | "failed">>(target: string, jobId: string, job: J): Promise<J> {
  return { ...job, ...(await countsOf(target, jobId, job)) };
}
