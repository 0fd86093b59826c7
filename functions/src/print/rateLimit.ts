import { createHash } from "node:crypto";
import type { Timestamp } from "firebase-admin/firestore";
import { db, firestoreSdk } from "../firebase";
import type { Access } from "../http/access";
import { HttpError } from "../http/errors";
import { firestoreTransaction } from "../http/deadline";

/**
 * Counts one use of an action by `uid` on the target in a fixed window, in Firestore so that it
 * holds across function instances, and refuses with 429 and `Retry-After` once the window's quota
 * is spent. The counter document's id is a hash: it names neither the user nor the target.
 */
export async function consumeQuota(action: string, uid: string, access: Access, limit: { maxSends: number; windowMs: number }): Promise<void> {
  const key = createHash("sha256").update(`${action}|${uid}|${access.path}`).digest("hex");
  const ref = db().doc(`rateLimits/${key}`);
  const { Timestamp: Time } = firestoreSdk();
  const now = Date.now();
  const retryAfterMs = await firestoreTransaction(async (tx) => {
    const snapshot = await tx.get(ref);
    const windowStart = (snapshot.get("windowStart") as Timestamp | undefined)?.toMillis() ?? 0;
    const count = Number(snapshot.get("count") ?? 0);
    if (now - windowStart >= limit.windowMs) {
      tx.set(ref, { action, windowStart: Time.fromMillis(now), count: 1, expiresAt: Time.fromMillis(now + limit.windowMs) });
      return 0;
    }
    if (count >= limit.maxSends) return windowStart + limit.windowMs - now;
    tx.update(ref, { count: count + 1 });
    return 0;
  });
  if (retryAfterMs > 0) {
    const seconds = Math.ceil(retryAfterMs / 1000);
    throw new HttpError(429, `At most ${limit.maxSends} emails per ${limit.windowMs / 60_000} minutes per user and target; try again in ${seconds} s.`, { "Retry-After": String(seconds) });
  }
}
