// A print job's webhook (issue 34): a job takes its target's webhook URL and the secret of the
// target that set it when it is created; once it has ended, one task of the print-job queue POSTs
// print_job.finished, signed, and the queue retries it with its backoff until a receiver answers 2xx.

import { db, firestoreSdk } from "../../firebase";
import type { TargetNode } from "../../http/access";
import { firestoreCall } from "../../http/deadline";
import * as logs from "../../logs";
import { deliveryError, postWebhook, resolveJobWebhookUrl, webhookSecretPath } from "../webhook";
import { FINAL_STATUSES, jobPath, jobWebhookPath, type JobDocument } from "./model";
import { countsOf } from "./progress";

/** What a new job of the target posts to: its webhook URL and the secret of the target that set it; undefined when it has none. */
export async function jobWebhookEndpoint(chain: readonly TargetNode[]): Promise<{ url: string; secret: string } | undefined> {
  const { url, source } = resolveJobWebhookUrl(chain);
  if (url === null) return undefined;
  const secret = (await firestoreCall(() => db().doc(webhookSecretPath(source)).get())).get("secret") as unknown;
  if (typeof secret === "string") return { url, secret };
  logs.webhookSecretMissing(source);
  return undefined;
}

/** The message's id: one per job, the same on every attempt, so that a receiver can drop a repeat. */
export const webhookMessageId = (jobId: string) => `msg_${jobId}`;

/**
 * Delivers print_job.finished of an ended job (no download URL: the receiver fetches the job). A
 * 2xx answer is delivered; anything else, or no answer, throws so that the queue retries, except on
 * its last attempt, where the failure is recorded instead. Every attempt and its outcome is on the
 * job (`webhook`). `now` is the clock the message is signed with.
 */
export async function deliverJobWebhook(target: string, jobId: string, lastAttempt: boolean, now = () => new Date()): Promise<void> {
  const jobRef = db().doc(jobPath(target, jobId));
  const [jobSnap, endpointSnap] = await firestoreCall(() => db().getAll(jobRef, db().doc(jobWebhookPath(target, jobId))));
  if (!jobSnap.exists || !endpointSnap.exists) return logs.jobTaskIgnored(jobId, "no such job or webhook");
  const job = jobSnap.data() as JobDocument;
  if (job.webhook?.deliveredAt || job.webhook?.failedAt) return logs.jobTaskIgnored(jobId, "its webhook was delivered or given up already");
  // Enqueued once the job ended; should it be found running all the same, retried rather than dropped (its task id is spent).
  if (!FINAL_STATUSES.includes(job.status)) {
    if (lastAttempt) return logs.jobTaskIgnored(jobId, "the job has not ended");
    throw new Error("The job has not ended: its webhook waits.");
  }
  const { url, secret } = endpointSnap.data() as { url: string; secret: string };
  const { done, failed } = await countsOf(target, jobId, job);
  const body = JSON.stringify({ type: "print_job.finished", data: { jobId, target, status: job.status, total: job.total, done, failed } });
  let status: number | null = null;
  let error: string | null = null;
  try {
    status = await postWebhook(url, secret, webhookMessageId(jobId), body, now());
    if (status < 200 || status > 299) error = `The receiver answered ${status}.`;
  } catch (failure) {
    error = deliveryError(failure);
  }
  const { FieldValue } = firestoreSdk();
  await firestoreCall(() =>
    jobRef.update({
      "webhook.attempts": FieldValue.increment(1),
      "webhook.lastStatus": status,
      "webhook.lastError": error,
      ...(error === null ? { "webhook.deliveredAt": FieldValue.serverTimestamp() } : lastAttempt && { "webhook.failedAt": FieldValue.serverTimestamp() }),
    }),
  );
  const attempts = (job.webhook?.attempts ?? 0) + 1;
  if (error === null) return logs.webhookDelivered(jobId, attempts);
  logs.webhookNotDelivered(jobId, error, lastAttempt);
  if (!lastAttempt) throw new Error(`Print job webhook not delivered: ${error}`);
}
