// Print jobs (issue 34): many instances of one target printed through Cloud Tasks. A job is one
// document; its instance ids live in its chunks (a job document holds counts, never 10,000 ids:
// Firestore stops at 1 MiB), and each chunk is one task's work and records that task's result.
//
//   {target}/printJobs/{jobId}                 status, counts, settings, the result once finished
//   {target}/printJobs/{jobId}/chunks/{index}  ids; once run: each id's file or failure
//   generated-pdfs/{target}/jobs/{jobId}/...   the chunks' packs of PDFs, then the output (the packs are deleted)

import { z } from "zod";
import { idProblem } from "../../http/ids";
import { idField } from "../../http/validation";
import type { PrintSettings } from "../settings";
import type { InstanceFilter } from "./selection";

export const PRINT_JOB_LIMITS = {
  /** Instances one job prints. */
  documents: 10_000,
  /**
   * Instances per chunk (one task). A one-page document costs about 2 ms to render and 5-20 ms to
   * store, so a task's own cost (dispatch, one getAll, the chunk's write) is amortized over 50 of
   * them; 50 documents at the renderer's worst (about 2 s each) still end well within the task
   * function's timeout. 10,000 documents are 200 tasks.
   */
  chunkDocuments: 50,
  /** Failures a job's status lists (all of them are in the ZIP's manifest). */
  failuresListed: 100,
  /** Jobs of one target queued or running at once: one tenant cannot fill the shared queue with many. */
  activePerTarget: 3,
  /**
   * Jobs queued or running at once under one root (an organization, or a tenant without one, with
   * everything below it): an organization's reader could otherwise start 3 on each of its targets and
   * hold the whole queue (10 tasks at a time) with 2 chunks each (second security review, finding 2).
   * 4 jobs are 8 chunks: 2 of the queue's places stay free for every other root.
   */
  activePerRoot: 4,
  /**
   * Chunks of one job in the queue at once. A job enqueues its first two; each chunk, when it has run,
   * enqueues the one two places after it. So a job started later waits behind at most two chunks of
   * each job before it, not behind a 10,000-document job's 200: one queue is fair between tenants.
   */
  chunksInFlight: 2,
} as const;

/** queued: tasks enqueued, none run yet; running: a chunk ran; then one of the final states. */
export const JOB_STATUSES = ["queued", "running", "succeeded", "completed_with_failures", "failed", "cancelled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const FINAL_STATUSES: readonly JobStatus[] = ["succeeded", "completed_with_failures", "failed", "cancelled"];

/** zip: one archive of a PDF per document and manifest.json; merged: one PDF of every printed document (render/merge.ts). */
export const JOB_OUTPUTS = ["zip", "merged"] as const;
export type JobOutput = (typeof JOB_OUTPUTS)[number];

/** A document the job could not print, and why (the answer print would have given). */
export interface JobFailure {
  objectInstanceId: string;
  status: number;
  reason: string;
}

/**
 * A printed document of a chunk: where its PDF is (bytes `offset` to `offset + length` of the pack
 * named `pack`: packName), and its title (its name in the output).
 */
export interface JobFile {
  objectInstanceId: string;
  title: string;
  pack: string;
  offset: number;
  length: number;
}

/** The job document. */
export interface JobDocument {
  status: JobStatus;
  total: number;
  chunks: number;
  output: JobOutput;
  settings: PrintSettings;
  /** The print template the request named (checked on the target's chain then; each chunk finds it again). None: each instance's type's nearest, else the default layout. */
  templateId?: string;
  targetName: string;
  createdBy: string;
  /** How the creator signed in, and the target's chain (root first): the job's later events are theirs, on that trail. */
  createdByScheme: "bearer" | "basic";
  auditChain: string[];
  /** The root of the target's chain (its organization, or its tenant or site): whose jobs are bounded together. */
  root?: string;
  createdAt: FirebaseFirestore.Timestamp;
  finishedAt?: FirebaseFirestore.Timestamp;
  done?: number;
  failed?: number;
  failures?: JobFailure[];
  result?: { storagePath: string; sizeBytes: number; downloadToken?: string };
  /** Why a job failed as a whole (its output could not be written), when it did. */
  error?: string;
  /** The filter that chose the instances, as sent (a job by ids has none). */
  filter?: InstanceFilter;
  /** The request's hash, for Idempotency-Key replays. */
  requestHash?: string;
  /** Emulator only: the download token of the output, drawn once (a production URL is signed). */
  outputToken?: string;
  /** Production: the output's signed URL while it has more than 5 minutes left (a poll must not cost a signBlob each time). */
  signedUrl?: { url: string; expiresAt: string };
  /** When the reaper last looked at it (at most once a minute). */
  reapedAt?: FirebaseFirestore.Timestamp;
  /** When the finishing task was enqueued (by one chunk; again by the reaper if it was lost). */
  finishEnqueuedAt?: FirebaseFirestore.Timestamp;
  /** When Firestore's TTL policy deletes it, and its chunks (their own expireAt): JOB_RETENTION_MS after creation. */
  expireAt: FirebaseFirestore.Timestamp;
  /** True while queued or running: what the per-target bound counts. */
  active?: boolean;
  /** Its webhook, when its target had one as it was created (URL and secret: jobWebhookPath, read by no route). */
  webhook?: JobWebhook;
}

/** A job's webhook deliveries so far. */
export interface JobWebhook {
  attempts: number;
  /** The last answer's HTTP status, or null when none came. */
  lastStatus?: number | null;
  /** Why the last attempt failed (never the URL), or null once delivered. */
  lastError?: string | null;
  deliveredAt?: FirebaseFirestore.Timestamp;
  /** Set when the queue's last attempt failed too: no more attempts. */
  failedAt?: FirebaseFirestore.Timestamp;
}

/**
 * How long a job is kept: as long as its output (the bucket's lifecycle rule deletes generated-pdfs/
 * objects after 30 days), so that a job's status never outlives nor precedes its archive by much.
 */
export const JOB_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** A chunk document: its ids, and once its task ran, what became of each (and how many: the job's progress is their sum). */
export interface ChunkDocument {
  ids: string[];
  finished: boolean;
  expireAt: FirebaseFirestore.Timestamp;
  /** Attempts the queue made at it so far. */
  attempts?: number;
  /** Until when its current attempt may still be running or be retried (the reaper's clock). */
  leaseUntil?: FirebaseFirestore.Timestamp;
  files?: JobFile[];
  failures?: JobFailure[];
  done?: number;
  failed?: number;
}

export const jobPath = (targetPath: string, jobId: string) => `${targetPath}/printJobs/${jobId}`;

/** The trail a job's events go to, and their actor: the target and its chain as at creation, and who created it. */
export const jobAudit = (target: string, job: Pick<JobDocument, "auditChain" | "createdBy" | "createdByScheme">) =>
  [{ path: target, chain: job.auditChain.map((path) => ({ path })) }, { uid: job.createdBy, scheme: job.createdByScheme }] as const;
/** A job's chunks: one collection, queried for their counts and for those unfinished. */
export const chunksPath = (targetPath: string, jobId: string) => `${jobPath(targetPath, jobId)}/chunks`;
export const chunkPath = (targetPath: string, jobId: string, index: number) => `${chunksPath(targetPath, jobId)}/${String(index).padStart(5, "0")}`;
/** A job's webhook URL and the secret that signs it, taken when it was created. */
export const jobWebhookPath = (targetPath: string, jobId: string) => `${jobPath(targetPath, jobId)}/secrets/webhook`;
/** Where a job's files go: its chunks' packs, then its output. */
export const jobFolder = (targetPath: string, jobId: string) => `generated-pdfs/${targetPath}/jobs/${jobId}`;
/** The ZIP of a job's PDFs (output "zip"). */
export const archivePath = (targetPath: string, jobId: string) => `${jobFolder(targetPath, jobId)}/${jobId}.zip`;
/** The one PDF of a job's documents (output "merged"). */
export const mergedPath = (targetPath: string, jobId: string) => `${jobFolder(targetPath, jobId)}/${jobId}.pdf`;
/** A chunk's PDFs, stored end to end in one object (or a few: PACK_BYTES): one Storage write per chunk, not per document. */
export const packPath = (targetPath: string, jobId: string, pack: string) => `${jobFolder(targetPath, jobId)}/parts/${pack}.pack`;
/**
 * A pack's name: its chunk, the run that wrote it (two runs of a chunk at once, which at-least-once
 * delivery allows, never write the same object: the run whose result is kept names its own packs),
 * and its number in that run.
 */
export const packName = (index: number, run: string, pack: number) => `${String(index).padStart(5, "0")}-${run}-${pack}`;

/** A target document path as the pipeline builds them (each id valid): a task re-checks what it is given. */
const TARGET_PATH = /^(?:organizations\/[^/]+|tenants\/[^/]+(?:\/divisions\/[^/]+)?|sites\/[^/]+)$/;

/** A task's payload: a chunk to print, the job to finish, or its webhook to deliver. Cloud Tasks is the only caller, but every payload is checked all the same. */
export const jobTaskSchema = z.strictObject({
  target: z
    .string()
    .regex(TARGET_PATH)
    .refine((path) => path.split("/").every((segment, i) => i % 2 === 0 || idProblem(segment) === undefined)),
  jobId: idField,
  chunk: z.int().min(0).max(PRINT_JOB_LIMITS.documents).optional(),
  finish: z.literal(true).optional(),
  webhook: z.literal(true).optional(),
  // Part of the task's id where the same work may be enqueued again (a queue refuses an id it has
  // seen: Cloud Tasks for about an hour after the task ran, the emulator until it restarts).
  round: z.int().min(0).optional(),
});
export type JobTask = z.infer<typeof jobTaskSchema>;
