// Stuck jobs: a job whose chunk the queue gave up on without a result (its worker died on the last
// attempt, so the chunk neither recorded its documents nor enqueued the next), or whose tasks were
// never enqueued (the creating instance died first), would stay `running` forever. The reaper ends
// such a chunk with its documents as failures, enqueues what never ran, and so lets the job finish.
// It runs on every status read of a job older than a chunk's lease, and on a schedule in production
// (printJobReaper in index.ts) for the jobs nobody polls.

import { db, firestoreSdk } from "../../firebase";
import { firestoreCall, firestoreTransaction } from "../../http/deadline";
import * as logs from "../../logs";
import { CHUNK_LEASE_MS, failUnhandled, finishChunk, finishIfLast } from "./chunk";
import { chunksPath, jobPath, PRINT_JOB_LIMITS, type ChunkDocument, type JobDocument, type JobTask } from "./model";
import { enqueueJobTasks } from "./queue";

/** Whether a job may be stuck: still active longer than a chunk's lease after it was created. */
export const overdue = (job: Pick<JobDocument, "active" | "createdAt">, now: number) => job.active === true && now - job.createdAt.toMillis() > CHUNK_LEASE_MS;

/** How often one job is reaped at most: a status poll every second must not re-read its chunks each time. */
const REAP_EVERY_MS = 60_000;

/**
 * Ends what the queue gave up on in one job, and enqueues again its chunks that should be in the
 * queue and are not (the first two, or one whose predecessor two places before has finished: it
 * would have enqueued it). A chunk not yet due stays unqueued, so the job keeps at most two chunks in
 * the queue, fair to the other jobs, however long it runs.
 */
export async function reapJob(target: string, jobId: string, now = Date.now()): Promise<void> {
  const jobRef = db().doc(jobPath(target, jobId));
  const { Timestamp } = firestoreSdk();
  // One reaper at a time per job, at most once a minute (the status reads of an overdue job all call it).
  const job = await firestoreTransaction(async (tx) => {
    const snap = await tx.get(jobRef);
    const reapedAt = snap.get("reapedAt") as FirebaseFirestore.Timestamp | undefined;
    if (!snap.exists || snap.get("active") !== true || (reapedAt && now - reapedAt.toMillis() < REAP_EVERY_MS)) return undefined;
    tx.update(jobRef, { reapedAt: Timestamp.fromMillis(now) });
    return snap.data() as JobDocument;
  });
  if (!job) return;
  const unfinished = await firestoreCall(() => db().collection(chunksPath(target, jobId)).where("finished", "==", false).get());
  const open = new Set(unfinished.docs.map((snap) => Number(snap.id)));
  const round = Math.floor(now / CHUNK_LEASE_MS);
  const tasks: JobTask[] = [];
  for (const snap of unfinished.docs) {
    const chunk = snap.data() as ChunkDocument;
    const index = Number(snap.id);
    if (chunk.leaseUntil === undefined) {
      // Never dispatched. Due if it is a first one or its predecessor has finished: then it was lost
      // (or waits behind other jobs' chunks, and runs twice, the second time doing nothing).
      const previous = index - PRINT_JOB_LIMITS.chunksInFlight;
      if (previous < 0 || !open.has(previous)) tasks.push({ target, jobId, chunk: index, round });
    } else if (chunk.leaseUntil.toMillis() < now) {
      const result = { files: [], failures: [] };
      failUnhandled(chunk.ids, result, "Not printed: the worker printing it stopped on the queue's last attempt.");
      // Only if it is still unfinished with its lease run out as the transaction reads it (a retry may have just renewed it).
      // Its packs, if any were written, are never read: they go with the job's folder (deleted when it finishes).
      if (!(await finishChunk(snap.ref, result, (current) => (current.leaseUntil?.toMillis() ?? Infinity) < now))) continue;
      // The chunk that would have enqueued it never got there.
      const next = index + PRINT_JOB_LIMITS.chunksInFlight;
      if (next < job.chunks) tasks.push({ target, jobId, chunk: next, round });
      logs.printJobChunkReaped(jobId, index);
    }
  }
  await enqueueJobTasks(tasks);
  await finishIfLast(target, jobId, now);
}

/** Every overdue job of every target (production's schedule): a collection-group query on the active ones. */
export async function reapStuckJobs(now = Date.now()): Promise<number> {
  const { Timestamp } = firestoreSdk();
  const stuck = await firestoreCall(() =>
    db()
      .collectionGroup("printJobs")
      .where("active", "==", true)
      .where("createdAt", "<", Timestamp.fromMillis(now - CHUNK_LEASE_MS))
      .limit(100)
      .get(),
  );
  for (const job of stuck.docs) await reapJob(job.ref.parent.parent!.path, job.id, now).catch(logs.printJobNotReaped);
  logs.printJobsReaped(stuck.size);
  return stuck.size;
}
