// Stuck jobs: a job whose chunk the queue gave up on without a result (its worker died on the last
// attempt, so the chunk neither recorded its documents nor enqueued the next), or whose tasks were
// never enqueued (the creating instance died first), would stay `running` forever. The reaper ends
// such a chunk with its documents as failures, enqueues what never ran, and so lets the job finish.
// It runs on every status read of a job older than a chunk's lease, and on a schedule in production
// (printJobReaper in index.ts) for the jobs nobody polls.

import { db, firestoreSdk } from "../../firebase";
import { firestoreCall } from "../../http/deadline";
import * as logs from "../../logs";
import { CHUNK_LEASE_MS, failUnhandled, finishChunk, finishIfLast } from "./chunk";
import { jobPath, PRINT_JOB_LIMITS, type ChunkDocument, type JobDocument, type JobTask } from "./model";
import { enqueueJobTasks } from "./queue";

/** Whether a job may be stuck: still active longer than a chunk's lease after it was created. */
export const overdue = (job: Pick<JobDocument, "active" | "createdAt">, now: number) => job.active === true && now - job.createdAt.toMillis() > CHUNK_LEASE_MS;

/** Ends what the queue gave up on in one job, and enqueues its chunks that never ran. */
export async function reapJob(target: string, jobId: string, now = Date.now()): Promise<void> {
  const jobRef = db().doc(jobPath(target, jobId));
  const [job, unfinished] = await Promise.all([firestoreCall(() => jobRef.get()), firestoreCall(() => jobRef.collection("chunks").where("finished", "==", false).get())]);
  if (!job.exists || job.get("active") !== true) return;
  const chunks = job.get("chunks") as number;
  const round = Math.floor(now / CHUNK_LEASE_MS);
  const tasks: JobTask[] = [];
  for (const snap of unfinished.docs) {
    const chunk = snap.data() as ChunkDocument;
    const index = Number(snap.id);
    if (chunk.leaseUntil === undefined) {
      // Never dispatched: lost, or waiting behind other jobs' chunks (then run twice, the second time
      // doing nothing; at most once per lease, the round's length).
      tasks.push({ target, jobId, chunk: index, round });
    } else if (chunk.leaseUntil.toMillis() < now) {
      const result = { files: [], failures: [] };
      // Its packs, if any were written, are never read: they go with the job's folder (deleted when it finishes).
      failUnhandled(chunk.ids, result, "Not printed: the worker printing it stopped on the queue's last attempt.");
      await finishChunk(snap.ref, result);
      // The chunk that would have enqueued it never got there.
      const next = index + PRINT_JOB_LIMITS.chunksInFlight;
      if (next < chunks) tasks.push({ target, jobId, chunk: next, round });
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
