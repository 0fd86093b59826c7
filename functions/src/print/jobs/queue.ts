// Enqueueing a job's tasks on the print-job queue (Cloud Tasks; its emulator in the local stack).

import { REGION } from "../../config";
import { taskQueue } from "../../firebase";
import { HttpError } from "../../http/errors";
import * as logs from "../../logs";
import type { JobTask } from "./model";

/** The task-queue function (src/index.ts) and so its queue's name. */
export const PRINT_JOB_FUNCTION = "printJobTask";

/** A task's id: the same work (and round) always has the same id, so a second enqueue of it is refused by the queue ("already exists") and runs once. */
export const taskId = (task: JobTask): string =>
  `${task.target.replaceAll("/", "-")}-${task.jobId}-${task.finish ? "finish" : task.webhook ? "webhook" : `chunk-${task.chunk}`}${task.round === undefined ? "" : `-r${task.round}`}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 500);

/** Enqueues each task once; one that exists already is success (a retried request or task enqueues it again). */
export async function enqueueJobTasks(tasks: readonly JobTask[]): Promise<void> {
  const queue = taskQueue<JobTask>(`locations/${REGION}/functions/${PRINT_JOB_FUNCTION}`);
  await Promise.all(
    tasks.map(async (task) => {
      try {
        await queue.enqueue(task, { id: taskId(task) });
      } catch (error) {
        if ((error as { code?: string }).code === "functions/task-already-exists") return;
        logs.taskNotEnqueued(error);
        throw new HttpError(503, "The print-job queue is unavailable; try again shortly.");
      }
    }),
  );
}
