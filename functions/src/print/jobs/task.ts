// The print-job queue's handler: one task is a chunk to print, a job to finish or a job's webhook to deliver (jobTaskSchema).

import * as logs from "../../logs";
import { runChunk } from "./chunk";
import { finishJob } from "./finish";
import { jobTaskSchema } from "./model";
import { deliverJobWebhook } from "./webhook";

/** `lastAttempt`: the queue will not retry this task if it fails (its retryCount reached maxAttempts - 1). */
export async function handleJobTask(data: unknown, lastAttempt: boolean): Promise<void> {
  const parsed = jobTaskSchema.safeParse(data);
  // Only Cloud Tasks calls this function, but a payload that is not a task is dropped, never retried.
  if (!parsed.success) return logs.jobTaskIgnored("(unknown)", "not a print-job task");
  const { target, jobId, chunk, finish, webhook } = parsed.data;
  if (finish) return finishJob(target, jobId, lastAttempt);
  if (webhook) return deliverJobWebhook(target, jobId, lastAttempt);
  if (chunk === undefined) return logs.jobTaskIgnored(jobId, "neither a chunk nor the finish");
  return runChunk(target, jobId, chunk, lastAttempt);
}
