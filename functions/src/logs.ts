import { logger } from "firebase-functions/logger";
import { currentRequestId } from "./http/requestContext";

// Every log line of the project, as a named function. Each line carries the request id; none
// carries a token, a password, an email address or a request body.

const withRequest = (fields: Record<string, unknown> = {}) => ({ requestId: currentRequestId(), ...fields });
const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

export function requestServed(method: string, route: string, statusCode: number, durationMs: number): void {
  logger.info(`${method} ${route} -> ${statusCode}`, withRequest({ method, route, statusCode, durationMs }));
}

/** A deliberate refusal (an HttpError or a body-parser error): no stack trace needed. */
export function requestRefused(statusCode: number, message: string): void {
  logger.warn(`Refused with ${statusCode}: ${message}`, withRequest({ statusCode }));
}

export function unexpectedError(error: unknown): void {
  const err = asError(error);
  logger.error(`Unexpected error: ${err.message}`, withRequest({ errorName: err.name, stack: err.stack }));
}

/** firebase-admin gave up on Firestore (unreachable, overloaded, contended): answered 503. */
export function backendUnavailable(error: unknown): void {
  const err = asError(error);
  logger.error(`Firestore call failed: ${err.message}`, withRequest({ errorName: err.name, code: (err as { code?: unknown }).code }));
}

/** One PDF or more rendered (a print job's chunk logs its documents in one line). */
export interface RenderedPdfs {
  documents: number;
  pageCount: number;
  sizeBytes: number;
  durationMs: number;
  missingCharacters: number;
  bidiControlsRemoved: number;
}

export function pdfRendered(pdf: RenderedPdfs, job?: { jobId: string; chunk: number }): void {
  const { documents, pageCount, sizeBytes, missingCharacters, bidiControlsRemoved } = pdf;
  if (documents === 0) return;
  logger.info(documents === 1 ? `Rendered a PDF of ${pageCount} page(s), ${sizeBytes} bytes` : `Rendered ${documents} PDFs of ${pageCount} page(s), ${sizeBytes} bytes`, withRequest({ ...pdf, ...job }));
  // Counts only: the characters themselves are the tenant's text.
  if (missingCharacters > 0) logger.warn(`${missingCharacters} character(s) have no font and print as U+FFFD`, withRequest({ missingCharacters }));
  if (bidiControlsRemoved > 0) {
    logger.warn(`${bidiControlsRemoved} bidirectional embedding, override or isolate control(s) removed from the printed text (they could make a value read as another)`, withRequest({ bidiControlsRemoved }));
  }
}

/**
 * A PDF of a target whose print setting `sign` is on could not be signed: the signing key or its
 * chain is missing or unusable, or the key failed (answered 503; no PDF made).
 */
export function signingUnavailable(cause: unknown): void {
  const err = asError(cause);
  logger.error(`PDF signing is unavailable: ${err.message}`, withRequest({ errorName: err.name }));
}

/** A replaced logo could not be removed from Storage (it stays; the next change does not retry it). */
export function logoNotRemoved(path: string, error: unknown): void {
  logger.warn(`A replaced logo could not be removed: ${asError(error).message}`, withRequest({ path }));
}

/** A target's stored print setting cannot be used (an unknown locale, say): its parent's or the default serves instead. */
export function unusablePrintSetting(targetPath: string, setting: string): void {
  logger.warn(`Print setting '${setting}' of ${targetPath} cannot be used; the inherited or default value is printed`, withRequest({ targetPath, setting }));
}

/**
 * A stored print template that fails the schema (written by another system, or before a bound
 * applied): skipped, as if absent (the next template on the chain, or the default layout, serves).
 * `problems` names the places and kinds of the first issues, never the stored text.
 */
export function unusablePrintTemplate(path: string, problems: string): void {
  logger.warn(`Print template ${path} cannot be used and is skipped: ${problems}`, withRequest({ path, problems }));
}

/** A picture of an image or signature field is not printed ("image unavailable"): why, never the path (it may name another target). */
export function pictureRefused(reason: string): void {
  logger.warn(`A picture is not printed: ${reason}`, withRequest({ reason }));
}

/** The target's logo is not printed (the document is, without it): why. */
export function logoNotPrinted(reason: string): void {
  logger.warn(`The logo is not printed: ${reason}`, withRequest({ reason }));
}

/** An email went out but its audit event could not be written. */
export function auditEventLost(error: unknown): void {
  const err = asError(error);
  logger.error(`Audit event of a sent email not written: ${err.message}`, withRequest({ errorName: err.name }));
}

export function storageFailed(error: unknown): void {
  const err = asError(error);
  logger.error(`Cloud Storage call failed: ${err.message}`, withRequest({ errorName: err.name, code: (err as { code?: unknown }).code }));
}

/** A print-job task that has nothing to do (its job is gone or final, or the payload is not a task): acknowledged, not retried. */
export function jobTaskIgnored(jobId: string, why: string): void {
  logger.warn(`Print-job task ignored: ${why}`, { jobId });
}

/** Enqueueing a print job's task failed (answered 503, or the task is retried). */
export function taskNotEnqueued(error: unknown): void {
  const err = asError(error);
  logger.error(`Could not enqueue a print-job task: ${err.message}`, withRequest({ code: (err as { code?: unknown }).code }));
}

export function printJobChunkReaped(jobId: string, chunk: number): void {
  logger.warn("Print job chunk ended by the reaper: the queue gave up on it without a result", { jobId, chunk });
}

export function printJobsReaped(jobs: number): void {
  logger.info("Print jobs looked at by the reaper", { jobs });
}

export function printJobNotReaped(error: unknown): void {
  const err = asError(error);
  logger.error(`Print job reaper failed: ${err.message}`, withRequest({ errorName: err.name }));
}

export function printJobFinished(jobId: string, status: string, done: number, failed: number): void {
  logger.info(`Print job finished: ${status}`, { jobId, status, done, failed });
}

/** A print job's webhook was answered with a 2xx. */
export function webhookDelivered(jobId: string, attempts: number): void {
  logger.info("Print job webhook delivered", { jobId, attempts });
}

/** A delivery failed: the queue retries it, or it was the last attempt. The reason never holds the URL (its query may hold a token). */
export function webhookNotDelivered(jobId: string, reason: string, lastAttempt: boolean): void {
  logger.warn(`Print job webhook not delivered${lastAttempt ? " (last attempt: given up)" : ""}: ${reason}`, { jobId, lastAttempt });
}

/** A target's webhook URL is set but its signing secret is not there: its new jobs post nothing. */
export function webhookSecretMissing(targetPath: string): void {
  logger.warn("A job webhook URL is set without a signing secret: the job posts no webhook", withRequest({ targetPath }));
}
