import { createHash } from "node:crypto";
import type { Timestamp } from "firebase-admin/firestore";
import { db, firestoreSdk } from "../firebase";
import { HttpError } from "../http/errors";
import { firestoreTransaction } from "../http/deadline";

/** One quota: at most `max` units of `action` per `subject` in a window that starts at its first use. */
export interface Quota {
  action: string;
  /** What is counted against (a user, a user on a target, a tenant); only its hash is stored. */
  subject: string;
  max: number;
  windowMs: number;
  /** Units this request spends (one send, or its number of recipients). */
  amount: number;
  /** The 429's message, before "try again in N s". */
  refusal: string;
}

/** The counter document of an action's quota for a subject: named by a hash of both. */
export const quotaDocumentPath = (action: string, subject: string): string => `rateLimits/${createHash("sha256").update(`${action}|${subject}`).digest("hex")}`;

/**
 * Spends every quota of a request in one transaction, in Firestore so that they hold across
 * function instances: either all are charged or, when one would go past its limit, none is and
 * the request is refused with 429 and `Retry-After` (when that quota's window ends). Counter
 * documents are named by a hash: they name neither the user nor the target.
 */
export async function consumeQuotas(quotas: readonly Quota[], now = Date.now()): Promise<void> {
  await firestoreTransaction((tx) => spendQuotas(tx, quotas, now));
}

/**
 * consumeQuotas inside a caller's transaction (after its other reads: this reads, then writes),
 * so that what the quotas pay for is written in the same commit. Its 429 ends the transaction
 * with nothing written (Firestore rolls back on the callback's error and does not retry it).
 */
export async function spendQuotas(tx: FirebaseFirestore.Transaction, quotas: readonly Quota[], now = Date.now()): Promise<void> {
  const refs = quotas.map((q) => db().doc(quotaDocumentPath(q.action, q.subject)));
  const { Timestamp: Time } = firestoreSdk();
  const snapshots = await tx.getAll(...refs);
  const windows = snapshots.map((snapshot, i) => {
    const windowStart = (snapshot.get("windowStart") as Timestamp | undefined)?.toMillis() ?? 0;
    const open = now - windowStart < quotas[i].windowMs;
    return { windowStart, used: open ? Number(snapshot.get("count") ?? 0) : 0, open };
  });
  const over = quotas.findIndex((q, i) => windows[i].used + q.amount > q.max);
  if (over >= 0) {
    const quota = quotas[over];
    const retryAfterMs = windows[over].open ? windows[over].windowStart + quota.windowMs - now : 0;
    // A request larger than a whole window's quota can never pass: say so rather than "wait".
    if (retryAfterMs <= 0) throw new HttpError(429, `${quota.refusal}; this request alone is more than that.`);
    const seconds = Math.ceil(retryAfterMs / 1000);
    throw new HttpError(429, `${quota.refusal}; try again in ${seconds} s.`, { "Retry-After": String(seconds) });
  }
  quotas.forEach((q, i) => {
    if (windows[i].open) tx.update(refs[i], { count: windows[i].used + q.amount });
    else tx.set(refs[i], { action: q.action, windowStart: Time.fromMillis(now), count: q.amount, expiresAt: Time.fromMillis(now + q.windowMs) });
  });
}
