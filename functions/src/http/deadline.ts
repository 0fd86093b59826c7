import type { Transaction } from "firebase-admin/firestore";
import { FIRESTORE_DEADLINE_MS } from "../config";
import { db } from "../firebase";
import { HttpError } from "./errors";
import { countBackendCall } from "./requestContext";

/**
 * Settles as `work` does, or rejects with `onTimeout()` once `ms` have passed. The work itself is
 * not cancelled (neither firebase-admin nor the Storage client can be): it may still complete
 * later, which is why callers answer with a retryable status whose message says so.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  work.catch(() => undefined); // a failure after the deadline has nobody left to tell
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * The answer when Firestore does not answer in time (firebase-admin itself would go on retrying an
 * unreachable Firestore for about 45 s). A transaction cut short may still commit, whole, later.
 */
export const firestoreTimedOut = () =>
  new HttpError(503, `Firestore did not answer within ${FIRESTORE_DEADLINE_MS / 1000} s; try again shortly.`);

/**
 * One Firestore round trip of a request: counted for X-Backend-Calls and bounded by
 * FIRESTORE_DEADLINE_MS, so that an unreachable Firestore is a prompt 503 rather than a request
 * held until the platform's timeout.
 */
export function firestoreCall<T>(operation: () => Promise<T>): Promise<T> {
  countBackendCall("firestore");
  return withDeadline(operation(), FIRESTORE_DEADLINE_MS, firestoreTimedOut);
}

/**
 * Runs `fn` in a Firestore transaction, bounded as a whole by FIRESTORE_DEADLINE_MS (503 after it;
 * the transaction may still commit, whole, later). Each attempt counts one round trip, its commit;
 * reads made through firestoreCall inside it (the pipeline's) count themselves.
 */
export function firestoreTransaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
  const work = db().runTransaction((tx) => {
    countBackendCall("firestore");
    return fn(tx);
  });
  return withDeadline(work, FIRESTORE_DEADLINE_MS, firestoreTimedOut);
}
