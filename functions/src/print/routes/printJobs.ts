import { createHash, randomBytes, randomUUID } from "node:crypto";
import { z } from "zod";
import { audit, auditInTransaction } from "../../audit";
import { HOUR_MS, isEmulator, params } from "../../config";
import { db, defaultBucket, firestoreSdk } from "../../firebase";
import { firestoreCall, firestoreTransaction } from "../../http/deadline";
import { HttpError, badRequest, notFound } from "../../http/errors";
import { defineRoute, type ReadScope } from "../../http/routes";
import { decodePageToken, pageOf } from "../../http/pageToken";
import { idField, intParam } from "../../http/validation";
import { emulatorDownloadUrl, reusable, signedReadUrl } from "../documents";
import { storageCall } from "../storageCall";
import { chunkPath, FINAL_STATUSES, JOB_OUTPUTS, JOB_RETENTION_MS, JOB_STATUSES, jobPath, jobWebhookPath, PRINT_JOB_LIMITS, type ChunkDocument, type JobDocument } from "../jobs/model";
import { countsOf, readChunks, tally, withCounts } from "../jobs/progress";
import { enqueueJobTasks } from "../jobs/queue";
import { overdue, reapJob } from "../jobs/reaper";
import * as logs from "../../logs";
import { instanceFilter, instancesMatching } from "../jobs/selection";
import { jobWebhookEndpoint } from "../jobs/webhook";
import { spendQuotas } from "../rateLimit";
import { effectiveSettings, recordedSettings, settingsOverrides } from "../settings";
import { templateFor } from "../templates/store";
import { PRINT_PERMISSIONS } from "./permissions";

/** 10,000 ids of up to 128 characters are about 1.3 MB of JSON at worst, 230 KB as ids usually are: the pipeline's 100 KiB is too little. */
const MAX_JOB_BODY_BYTES = 1536 * 1024;

/** The instances to print (by id, or by a filter: exactly one of them), and how. */
const createBody = z
  .strictObject({
    // Distinct ids of the target's instances, each valid as print's objectInstanceId.
    objectInstanceIds: z
      .array(idField)
      .min(1)
      .max(PRINT_JOB_LIMITS.documents)
      .refine((ids) => new Set(ids).size === ids.length, "must not name an instance twice")
      .optional()
      .meta({ description: `Ids of object instances of the target, 1 to ${PRINT_JOB_LIMITS.documents.toLocaleString("en-GB")}, each once`, examples: [["inspection-short", "audit-long"]] }),
    // The target's instances that match, ordered by updatedAt then id (422 when none, or more than a job prints).
    filter: instanceFilter.optional().meta({
      description: `The target's instances that match every key given ({} is all of them), ordered by updatedAt, then id; at most ${PRINT_JOB_LIMITS.documents.toLocaleString("en-GB")}. Instances without an updatedAt never match.`,
      examples: [{ objectTypeName: "Safety Inspection", updatedFrom: "2026-04-01T00:00:00Z", updatedTo: "2026-07-01T00:00:00+02:00" }],
    }),
    // One ZIP of the PDFs with manifest.json, or one PDF of them all.
    output: z
      .enum(JOB_OUTPUTS)
      .default("zip")
      .meta({
        description:
          "zip: one archive of the PDFs, with manifest.json naming every requested instance once; merged: one tagged PDF (PDF/A-2u when the settings ask) of every printed instance, each from a new page with a bookmark of its own (the failures are in the job's status)",
      }),
    templateId: idField.optional().meta({ description: "A print template on the target's chain to print every instance with; default: each instance's type's nearest template, else the default layout" }),
    ...settingsOverrides,
  })
  .refine((body) => (body.objectInstanceIds === undefined) !== (body.filter === undefined), "must have exactly one of 'objectInstanceIds' and 'filter'");

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** A status as a message says it ("completed with failures"); `status` itself stays the value a client compares. */
const statusInWords = (status: string) => status.replaceAll("_", " ");

/**
 * A job's status URL relative to the request's (…/print-jobs, or …/print-jobs/, which the router takes
 * too): right through Hosting and on the function's own URL alike.
 */
const statusUrl = (jobId: string, requestPath: string) => (requestPath.endsWith("/") ? jobId : `print-jobs/${jobId}`);

/** Issue 34: prints many instances of the target through the print-job queue; the answer names the job to follow. */
export const createPrintJob = defineRoute({
  method: "post",
  path: "/print-jobs",
  summary: "Start a print job: many object instances of the target printed in the background into one ZIP or one PDF",
  anyOf: PRINT_PERMISSIONS,
  body: createBody,
  maxBodyBytes: MAX_JOB_BODY_BYTES,
  headers: [{ name: "Idempotency-Key", description: "The same key and body answer the same job again, without starting another (1 to 255 visible ASCII characters)." }],
  response: {
    status: 202,
    description: "The job is queued; `Location` and `statusUrl` (relative to the request's URL) name its status.",
    schema: z.strictObject({
      message: z.string(),
      data: z.strictObject({
        jobId: z.string(),
        status: z.enum(JOB_STATUSES),
        total: z.int().positive(),
        statusUrl: z.string().describe("The job's status, relative to this request's URL: print-jobs/{jobId} ({jobId} after a URL that ends in a slash)."),
      }),
    }),
  },
  errors: {
    404: "templateId names no template on the target's chain.",
    422: "This Idempotency-Key was used for another request; or the filter matches no instance of the target, or more than 10,000 (the message names the count).",
    429: "The target has 3 print jobs queued or running, or printed JOB_DOCUMENTS_PER_TARGET_PER_DAY documents in jobs today; Retry-After says when to try again.",
    503: "The print-job queue or Cloud Storage is unavailable.",
  },
  async handle({ access, caller, body, req, res }) {
    const { objectInstanceIds, filter, output, templateId, ...overrides } = body;
    const settings = effectiveSettings(access.chain, overrides);
    // The request as sent (not the settings or the instances it resolved to: a replay after an administrator changed them is the same request).
    const requestHash = createHash("sha256").update(JSON.stringify([objectInstanceIds ?? { filter }, output, overrides, ...(templateId === undefined ? [] : [templateId])])).digest("hex");
    const key = req.get("idempotency-key");
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) throw badRequest("The Idempotency-Key header must be 1 to 255 visible ASCII characters.");
    // With a key, the job's id is made from it: the same key is the same job, whatever instance answers.
    const jobId = key === undefined ? randomBytes(12).toString("hex") : createHash("sha256").update(`${caller.uid}\u0000${access.path}\u0000${key}`).digest("hex").slice(0, 24);
    const jobRef = db().doc(jobPath(access.path, jobId));
    // A replay answers its job as it is: neither bounded again nor its filter resolved again (the instances may have changed since).
    const replay = key !== undefined && (await firestoreCall(() => jobRef.get())).exists;
    // A template named must be on the target's chain now (404; a replay answers its job whatever became of it); the chunks find it again as they run.
    if (templateId !== undefined && !replay) await templateFor(access.chain, undefined, templateId);
    const ids = replay ? [] : (objectInstanceIds ?? (await instancesMatching(access.path, filter!)));
    const chunks = Math.ceil(ids.length / PRINT_JOB_LIMITS.chunkDocuments);
    const { Timestamp } = firestoreSdk();
    const createdAt = Timestamp.now();
    const expireAt = Timestamp.fromMillis(createdAt.toMillis() + JOB_RETENTION_MS);
    // The target's webhook as it is now: a later change of the URL or the secret leaves this job's alone.
    const webhook = replay ? undefined : await jobWebhookEndpoint(access.chain);

    const existing = await firestoreTransaction(async (tx) => {
      const earlier = await tx.get(jobRef);
      if (earlier.exists) return earlier.data() as JobDocument;
      // The bounds in the commit that creates the job: requests at once for one target serialize on
      // its quota's document, so a burst overshoots neither of its bounds; under one root, on two
      // targets at once, on Firestore's serializable transactions (the queries' results are read in
      // them). A replay (found above) spends nothing.
      await assertJobBounds(tx, access.path, access.chain[0].path, ids.length);
      const job: JobDocument = {
        status: "queued",
        active: true,
        total: ids.length,
        chunks,
        output,
        settings,
        targetName: String(access.chain.at(-1)!.data.name ?? ""),
        createdBy: caller.uid,
        createdByScheme: caller.scheme,
        auditChain: access.chain.map((node) => node.path),
        root: access.chain[0].path,
        createdAt,
        expireAt,
        requestHash,
        ...(filter && { filter }),
        ...(templateId !== undefined && { templateId }),
        ...(isEmulator() && { outputToken: randomUUID() }),
        ...(webhook && { webhook: { attempts: 0 } }),
      };
      tx.create(jobRef, job);
      // Its own expireAt: a TTL policy deletes one collection group's documents, not a document's subcollections.
      if (webhook) tx.create(db().doc(jobWebhookPath(access.path, jobId)), { ...webhook, expireAt });
      for (let i = 0; i < chunks; i++) {
        tx.create(db().doc(chunkPath(access.path, jobId, i)), { ids: ids.slice(i * PRINT_JOB_LIMITS.chunkDocuments, (i + 1) * PRINT_JOB_LIMITS.chunkDocuments), finished: false, expireAt } satisfies ChunkDocument);
      }
      return undefined;
    });
    if (existing && existing.requestHash !== requestHash) throw new HttpError(422, "This Idempotency-Key was used for another request; use a new key for a new job.");
    if (existing) res.set("Idempotent-Replayed", "true");
    // Enqueued again on a replay of an unfinished job: a task that exists already is not added twice,
    // one whose enqueue failed the first time is (a chunk that ran already does nothing more).
    if (!existing || !FINAL_STATUSES.includes(existing.status)) {
      try {
        // The first chunks only: each chunk enqueues its successor when it has run (PRINT_JOB_LIMITS.chunksInFlight).
        await enqueueJobTasks(Array.from({ length: Math.min(chunks, PRINT_JOB_LIMITS.chunksInFlight) }, (_, chunk) => ({ target: access.path, jobId, chunk })));
      } catch (error) {
        // A job whose tasks could not all be enqueued never runs: its key is retried as is, else it is marked failed.
        if (key === undefined) await firestoreCall(() => jobRef.update({ status: "failed", active: false, done: 0, failed: 0, finishedAt: Timestamp.now() })).catch(() => undefined);
        throw error;
      }
    }
    if (!existing) await audit(access, caller, { action: "print_job.created", subject: jobId, details: { total: ids.length, output, ...(filter && { filter }), ...(templateId !== undefined && { templateId }), ...recordedSettings(settings) } });
    const location = statusUrl(jobId, req.path);
    res.set("Location", location);
    const status = existing?.status ?? "queued";
    return { message: existing ? "Print job already started with this Idempotency-Key." : "Print job queued.", data: { jobId, status, total: existing?.total ?? ids.length, statusUrl: location } };
  },
});

/** `{target}/printJobs/{jobId}`: what the routes of one job read (`reads`). */
const jobOfPath = (scope: ReadScope) => [jobPath(scope.path, scope.params.jobId)];

const failureSchema = z.strictObject({ objectInstanceId: z.string(), status: z.int(), reason: z.string() });

/** A job's webhook deliveries (the URL is not shown: its query may hold a token). */
const webhookSchema = z
  .strictObject({
    attempts: z.int().describe("POSTs of print_job.finished so far (the queue retries one that failed, with backoff)."),
    lastStatus: z.int().nullable().describe("The last answer's HTTP status; null when none came."),
    lastError: z.string().nullable().describe("Why the last attempt failed; null once delivered."),
    deliveredAt: z.iso.datetime().nullable().describe("When a receiver answered 2xx."),
    failedAt: z.iso.datetime().nullable().describe("When the queue's last attempt failed too: it is not sent again."),
  })
  .describe("The job's webhook, when its target had one (jobWebhookUrl) as it was created.");

/** Issue 34: a job of the target, its progress and, once it has one, its output. */
export const getPrintJob = defineRoute({
  method: "get",
  path: "/print-jobs/:jobId",
  summary: "A print job's status, progress and result",
  anyOf: PRINT_PERMISSIONS,
  reads: jobOfPath,
  response: {
    status: 200,
    description: "The job. Progress is (done + failed) / total; `result` once it has an output.",
    schema: z.strictObject({
      message: z.string(),
      data: z.strictObject({
        jobId: z.string(),
        status: z.enum(JOB_STATUSES),
        total: z.int(),
        done: z.int().describe("Documents printed so far (counted when their chunk has run)."),
        failed: z.int().describe("Documents that could not be printed (missing, over the renderer's limits): listed in failures once the job has ended."),
        failures: z.array(failureSchema).describe(`The first ${PRINT_JOB_LIMITS.failuresListed}, once the job has ended or was cancelled (while it runs, failed counts them); the ZIP's manifest.json lists every one.`),
        output: z.enum(JOB_OUTPUTS).describe("zip: the result is a ZIP of PDFs; merged: one PDF of the printed documents (none when nothing printed)."),
        createdAt: z.iso.datetime(),
        finishedAt: z.iso.datetime().nullable(),
        error: z.string().optional().describe("Why the job failed as a whole (its output could not be written), when it did."),
        result: z
          .strictObject({
            downloadUrl: z.url().describe("Production: a V4 signed URL valid 15 minutes; emulator: a download-token URL."),
            expiresAt: z.iso.datetime().nullable(),
            storagePath: z.string(),
            sizeBytes: z.int().positive(),
          })
          .optional(),
        webhook: webhookSchema.optional(),
      }),
    }),
  },
  errors: { 404: "No such print job in this target." },
  async handle({ access, params: { jobId }, docs: [jobSnap] }) {
    if (!jobSnap.exists) throw notFound(`Print job '${jobId}' does not exist in this target.`);
    const job = jobSnap.data() as JobDocument;
    // A job active for longer than a chunk's lease may be stuck: its reading ends what the queue gave up
    // on. The reaper changes nothing this answer shows (a job ends in its finishing task, later).
    if (overdue(job, Date.now())) await reapJob(access.path, jobId).catch(logs.printJobNotReaped);
    const { done, failed } = await countsOf(access.path, jobId, job);
    const url = job.result && (await resultUrl(job, jobSnap.ref));
    const result = job.result && url && { downloadUrl: url.url, expiresAt: url.expiresAt, storagePath: job.result.storagePath, sizeBytes: job.result.sizeBytes };
    return {
      message: `Print job ${statusInWords(job.status)}.`,
      data: {
        jobId,
        status: job.status,
        total: job.total,
        done,
        failed,
        failures: job.failures ?? [],
        output: job.output,
        createdAt: job.createdAt.toDate().toISOString(),
        finishedAt: job.finishedAt?.toDate().toISOString() ?? null,
        ...(job.error && { error: job.error }),
        ...(result && { result }),
        ...(job.webhook && { webhook: webhookOf(job.webhook) }),
      },
    };
  },
});

/** The job's deliveries as GET shows them (never the URL or the secret, which are not on the job's document). */
const webhookOf = ({ attempts, lastStatus, lastError, deliveredAt, failedAt }: NonNullable<JobDocument["webhook"]>) => ({
  attempts,
  lastStatus: lastStatus ?? null,
  lastError: lastError ?? null,
  deliveredAt: deliveredAt?.toDate().toISOString() ?? null,
  failedAt: failedAt?.toDate().toISOString() ?? null,
});

/**
 * The output's URL: the emulator's download-token URL, or a URL signed for 15 minutes, signed once and
 * kept on the job while it is reusable (each signature is an IAM signBlob call; polls come from anywhere).
 */
async function resultUrl(job: JobDocument, jobRef: FirebaseFirestore.DocumentReference, now = Date.now()) {
  const result = job.result!;
  const file = defaultBucket().file(result.storagePath);
  if (isEmulator()) return emulatorDownloadUrl(String(process.env.FIREBASE_STORAGE_EMULATOR_HOST), file.bucket.name, result.storagePath, result.downloadToken ?? "");
  if (reusable(job.signedUrl, now)) return job.signedUrl;
  const signed = await storageCall(() => signedReadUrl(file, now));
  // Kept for the next poll; a failure to keep it costs only the next poll a signature.
  await firestoreCall(() => jobRef.update({ signedUrl: signed })).catch(() => undefined);
  return signed;
}

/** A job takes minutes (10,000 documents: under a minute of rendering on ten instances); one active for 6 hours is stuck. */
const STALE_JOB_MS = 6 * HOUR_MS;

/**
 * The bounds on a new job, in the transaction that creates it (after its other reads): at most
 * PRINT_JOB_LIMITS.activePerTarget jobs of the target and activePerRoot under its root queued or
 * running, and the target's documents a day (spent here). 429 beyond them, the transaction ending with
 * nothing written.
 */
async function assertJobBounds(tx: FirebaseFirestore.Transaction, targetPath: string, root: string, documents: number): Promise<void> {
  // A job still active after STALE_JOB_MS is stuck (its instance died before it enqueued its tasks): it
  // does not count. A root's query leaves those out itself (a root can have many more stuck jobs than
  // the 20 read; its index: root, active, createdAt).
  const now = Date.now();
  const [ofTarget, ofRoot] = await Promise.all([
    tx.get(db().collection(`${targetPath}/printJobs`).where("active", "==", true).limit(20)),
    tx.get(db().collectionGroup("printJobs").where("root", "==", root).where("active", "==", true).where("createdAt", ">", firestoreSdk().Timestamp.fromMillis(now - STALE_JOB_MS)).limit(20)),
  ]);
  const runningOfTarget = ofTarget.docs.filter((job) => now - (job.get("createdAt") as FirebaseFirestore.Timestamp).toMillis() < STALE_JOB_MS).length;
  if (runningOfTarget >= PRINT_JOB_LIMITS.activePerTarget) {
    throw new HttpError(429, `At most ${PRINT_JOB_LIMITS.activePerTarget} print jobs of a target may be queued or running; try again when one has finished.`, { "Retry-After": "30" });
  }
  if (ofRoot.size >= PRINT_JOB_LIMITS.activePerRoot) {
    const whose = root.startsWith("organizations/") ? "an organization and the targets below it" : root.startsWith("tenants/") ? "a tenant and its divisions" : "a site";
    throw new HttpError(429, `At most ${PRINT_JOB_LIMITS.activePerRoot} print jobs of ${whose} may be queued or running at once; try again when one has finished.`, { "Retry-After": "30" });
  }
  const max = params.jobDocumentsPerTargetPerDay.value();
  await spendQuotas(tx, [{ action: "jobDocuments", subject: targetPath, max, windowMs: 24 * HOUR_MS, amount: documents, refusal: `At most ${max} documents a day in print jobs of a target` }]);
}

/** The job of a list or cancel answer: what GET print-jobs/{jobId} says, without its URL. */
const jobSummarySchema = z.strictObject({
  jobId: z.string(),
  status: z.enum(JOB_STATUSES),
  total: z.int(),
  done: z.int().nullable().describe("In a list, set once the job has ended (GET print-jobs/{jobId} counts a running one, the list leaves it null); a cancel's answer counts what was done."),
  failed: z.int().nullable(),
  output: z.enum(JOB_OUTPUTS),
  createdAt: z.iso.datetime(),
  finishedAt: z.iso.datetime().nullable(),
});

const summary = (jobId: string, job: JobDocument) => ({
  jobId,
  status: job.status,
  total: job.total,
  done: job.done ?? null,
  failed: job.failed ?? null,
  output: job.output,
  createdAt: job.createdAt.toDate().toISOString(),
  finishedAt: job.finishedAt?.toDate().toISOString() ?? null,
});

/** A page token continues the list of the target it came from. */
const listKey = (path: string) => createHash("sha256").update(JSON.stringify(["printJobs", path])).digest("base64url").slice(0, 16);

/** Issue 34: the target's print jobs, newest first, paged as the audit trail is. */
export const listPrintJobs = defineRoute({
  method: "get",
  path: "/print-jobs",
  summary: "List the print jobs of a target, newest first",
  anyOf: PRINT_PERMISSIONS,
  query: z.strictObject({
    limit: intParam(1, 100, 20),
    pageToken: z.string().max(500).optional().meta({ description: "nextPageToken of the previous page" }),
  }),
  load: ({ path, query }) => {
    const { FieldPath, Timestamp } = firestoreSdk();
    let q = db().collection(`${path}/printJobs`).orderBy("createdAt", "desc").orderBy(FieldPath.documentId(), "desc");
    if (query.pageToken !== undefined) {
      const page = decodePageToken(query.pageToken);
      if (!page || page.f !== listKey(path)) throw badRequest("Invalid query: 'pageToken': is not a page token of this list (tokens continue the list of the same target).");
      q = q.startAfter(new Timestamp(page.s, page.n), page.id);
    }
    return firestoreCall(() => q.limit(query.limit + 1).get());
  },
  response: {
    status: 200,
    description: "One page of jobs, newest first.",
    schema: z.strictObject({
      message: z.string(),
      data: z.array(jobSummarySchema),
      nextPageToken: z.string().nullable().describe("Pass as pageToken for the next page; null on the last page."),
    }),
  },
  async handle({ access, query, loaded: page }) {
    const { docs, nextPageToken } = pageOf(page, query.limit, "createdAt", listKey(access.path));
    // A cancelled job whose counts are not yet written (the moment between a cancel's two writes) is
    // counted from its chunks, as GET counts it; if that fails, or the job runs, the list says null.
    const counted = (jobId: string, job: JobDocument) => (job.status === "cancelled" ? withCounts(access.path, jobId, job).catch(() => job) : job);
    const data = await Promise.all(docs.map(async (doc) => summary(doc.id, await counted(doc.id, doc.data() as JobDocument))));
    return { message: `${docs.length} print job(s).`, data, nextPageToken };
  },
});

/**
 * Issue 34: cancels a job that has not ended. It ends `cancelled` at once, with the documents done so
 * far counted and no result; chunks running check between documents and stop, and none starts after it.
 * Only the job's creator or an ADMIN of the target may (second security review, finding 4).
 */
export const cancelPrintJob = defineRoute({
  method: "post",
  path: "/print-jobs/:jobId/cancel",
  summary: "Cancel a print job that has not ended",
  anyOf: PRINT_PERMISSIONS,
  reads: jobOfPath,
  transactional: true,
  response: { status: 200, description: "The job, cancelled (or as it was, if it had been cancelled before).", schema: z.strictObject({ message: z.string(), data: jobSummarySchema }) },
  errors: {
    401: "Missing or invalid credentials, a missing permission, or the caller neither started the job nor is an ADMIN of the target (the message names it).",
    404: "No such print job in this target.",
    409: "The job has ended (succeeded, completed with failures or failed): there is nothing to cancel.",
  },
  async handle({ access, caller, params: { jobId }, docs: [jobSnap], tx, afterCommit }) {
    if (!jobSnap.exists) throw notFound(`Print job '${jobId}' does not exist in this target.`);
    const job = jobSnap.data() as JobDocument;
    // Every print permission may start and read jobs; stopping one is its owner's or an ADMIN's.
    if (job.createdBy !== caller.uid && !access.permissions.has("ADMIN")) {
      throw new HttpError(401, "Only the user who started this print job, or an ADMIN of the target, can cancel it.");
    }
    if (job.status === "cancelled") return { message: "Print job was already cancelled.", data: summary(jobId, await withCounts(access.path, jobId, job)) };
    if (FINAL_STATUSES.includes(job.status)) throw new HttpError(409, `The print job has ended (${statusInWords(job.status)}): there is nothing to cancel.`);
    const { Timestamp } = firestoreSdk();
    // The transaction reads the job alone: a job's chunks are written by its running tasks, and reading
    // 200 of them here made it contend with them until its deadline (503).
    const cancelled = { status: "cancelled" as const, active: false, finishedAt: Timestamp.now() };
    tx.update(jobSnap.ref, cancelled);
    auditInTransaction(tx, access, caller, { action: "print_job.cancelled", subject: jobId, details: { total: job.total } });
    const data = summary(jobId, { ...job, ...cancelled });
    afterCommit(async () => {
      // What was done, from the chunks that had run (a running chunk stops between documents and writes nothing more).
      const { files, failures } = tally(await readChunks(access.path, jobId, job.chunks));
      const done = files.length;
      await firestoreCall(() => jobSnap.ref.update({ done, failed: failures.length, failures: failures.slice(0, PRINT_JOB_LIMITS.failuresListed) }));
      Object.assign(data, { done, failed: failures.length }); // the answer, sent after this
      // The finishing task of a cancelled job only deletes the parts printed so far.
      await enqueueJobTasks([{ target: access.path, jobId, finish: true }]).catch(() => undefined);
    });
    return { message: "Print job cancelled.", data };
  },
});
