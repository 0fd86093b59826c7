import { createHash } from "node:crypto";
import type { Request, Response } from "express";
import type { Timestamp } from "firebase-admin/firestore";
import { IDEMPOTENCY_KEY_TTL_MS } from "../config";
import { db, firestoreSdk } from "../firebase";
import { firestoreCall, firestoreTransaction } from "../http/deadline";
import { HttpError, badRequest } from "../http/errors";

/** Visible ASCII, as the IETF Idempotency-Key draft's examples; long enough for a UUID or a hash. */
const VALID_KEY = /^[\x21-\x7e]{1,255}$/;
/** A request still marked in progress after this (the function's timeout, and some) was cut off: its key may be used again. */
const ABANDONED_AFTER_MS = 90_000;

interface Stored {
  state: "pending" | "done";
  fingerprint: string;
  startedAt: Timestamp;
  statusCode?: number;
  body?: unknown;
  message?: string;
}

/**
 * Runs `send` at most once per user and `Idempotency-Key` header within IDEMPOTENCY_KEY_TTL_MS: a
 * repeat answers the first answer again (with `Idempotent-Replayed: true`) and sends nothing. The
 * first answer is kept when mail went out (200) or may have (504); after any other failure nothing
 * was sent, and the key is free again. Without the header, `send` simply runs.
 *
 * - the same key with another request (other target or body): 422;
 * - while the first request with the key is still running: 409.
 * Records are named by a hash of the user and the key and keep a hash of the request, no addresses.
 * The request is its validated `body` (keys in the schema's order, values as parsed): a retry that
 * serializes the same body with its keys in another order, or one address as a list, is the same request.
 */
export async function idempotent<T>(req: Request, res: Response, uid: string, target: string, body: unknown, send: () => Promise<T>): Promise<T> {
  const key = req.get("idempotency-key");
  if (key === undefined) return send();
  if (!VALID_KEY.test(key)) throw badRequest("The Idempotency-Key header must be 1 to 255 visible ASCII characters.");
  const ref = db().doc(`idempotencyKeys/${createHash("sha256").update(`${uid}\u0000${key}`).digest("hex")}`);
  const fingerprint = createHash("sha256").update(`${target}\u0000${JSON.stringify(body)}`).digest("hex");
  const { Timestamp: Time } = firestoreSdk();

  const now = Date.now();
  const earlier = await firestoreTransaction(async (tx) => {
    const stored = (await tx.get(ref)).data() as (Stored & { expireAt: Timestamp }) | undefined;
    const live = stored && stored.expireAt.toMillis() > now && !(stored.state === "pending" && now - stored.startedAt.toMillis() > ABANDONED_AFTER_MS);
    if (live) return stored;
    tx.set(ref, { state: "pending", fingerprint, startedAt: Time.fromMillis(now), expireAt: Time.fromMillis(now + IDEMPOTENCY_KEY_TTL_MS) });
    return undefined;
  });
  if (earlier) {
    if (earlier.fingerprint !== fingerprint) throw new HttpError(422, "This Idempotency-Key was used for another request; use a new key for a new request.");
    if (earlier.state === "pending") throw new HttpError(409, "A request with this Idempotency-Key is still being processed; retry it in a few seconds.");
    res.set("Idempotent-Replayed", "true");
    if (earlier.statusCode === 200) return earlier.body as T;
    throw new HttpError(earlier.statusCode ?? 500, earlier.message ?? "");
  }

  // Failing to record the answer must not turn a sent email into an error: the key then stays "in
  // progress" until it counts as abandoned.
  const keep = (answer: Partial<Stored>) => firestoreCall(() => ref.update({ state: "done", ...answer })).catch(() => undefined);
  try {
    const body = await send();
    await keep({ statusCode: 200, body });
    return body;
  } catch (error) {
    if (error instanceof HttpError && error.statusCode === 504) await keep({ statusCode: 504, message: error.message });
    else await firestoreCall(() => ref.delete()).catch(() => undefined);
    throw error;
  }
}
