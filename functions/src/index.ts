import type { Express } from "express";
import { onRequest } from "firebase-functions/v2/https";
import { onSchedule } from "firebase-functions/v2/scheduler";
import { onTaskDispatched } from "firebase-functions/v2/tasks";
import { PRINT_JOB_QUEUE, REGION, RUNTIME_OPTIONS, sendgridApiKey, signingCertificateChain } from "./config";

// Each function imports its own app on its first request, so an instance of `print` never loads
// the api routes and their dependencies, and the other way round (cold start; README).

// `cors: false` leaves CORS to each app (allow-list from the CORS_ORIGINS param). Without it the
// functions emulator wraps every function in a CORS layer that allows any origin.
const options = { region: REGION, cors: false };

let apiApp: Promise<Express> | undefined;
let printApp: Promise<Express> | undefined;

export const api = onRequest({ ...options, ...RUNTIME_OPTIONS.api }, async (req, res) => {
  apiApp ??= import("./api/app.js").then((m) => m.createApiApp());
  (await apiApp)(req, res);
});

export const print = onRequest({ ...options, ...RUNTIME_OPTIONS.print, secrets: [sendgridApiKey, signingCertificateChain] }, async (req, res) => {
  printApp ??= import("./print/app.js").then((m) => m.createPrintApp());
  (await printApp)(req, res);
});

/**
 * Print jobs' work (issue 34): each task prints one chunk of a job, or finishes the job. Only Cloud
 * Tasks invokes it (private); the queue's retries and rates are PRINT_JOB_QUEUE's.
 */
export const printJobTask = onTaskDispatched({ region: REGION, ...RUNTIME_OPTIONS.printJobTask, ...PRINT_JOB_QUEUE, secrets: [signingCertificateChain] }, async (req) => {
  const { handleJobTask } = await import("./print/jobs/task.js");
  await handleJobTask(req.data, req.retryCount >= PRINT_JOB_QUEUE.retryConfig.maxAttempts - 1);
});


/**
 * Ends print jobs the queue gave up on (print/jobs/reaper.ts) every 15 minutes, for the jobs nobody
 * polls (a status read reaps its own job). Cloud Scheduler runs it; the emulator suite cannot (its
 * Pub/Sub emulator needs Java): there the status reads do.
 */
export const printJobReaper = onSchedule({ region: REGION, schedule: "every 15 minutes", ...RUNTIME_OPTIONS.printJobReaper }, async () => {
  const { reapStuckJobs } = await import("./print/jobs/reaper.js");
  await reapStuckJobs();
});
