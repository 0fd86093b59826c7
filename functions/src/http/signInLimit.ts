import { createHash } from "node:crypto";
import type { Request } from "express";
import { SIGN_IN_FAILURE_LIMITS } from "../config";
import { db, firestoreSdk } from "../firebase";
import { firestoreCall } from "./deadline";
import { HttpError } from "./errors";

// Failed Basic sign-ins, counted in Firestore so that the limit holds across instances, before
// Identity Toolkit's own lockout (which would lock the account everywhere). Failures are counted in
// fixed windows of SIGN_IN_FAILURE_LIMITS.windowMs; a sign-in is refused (429) while the current and
// the previous window together hold the limit, so no span of one window ever sees more failures than
// the limit, and a lock lasts at most two windows. An attempt counts as a failure from the start
// (an atomic increment, then a read): a burst of guesses in flight on many instances at once cannot
// get past the limit, as it could if each read the count before any had failed. Over the limit, the
// attempt gives its count back and is refused; a success gives it back too. A fresh sign-in costs one
// write and one read before Identity Toolkit is asked (a cached success none), and a write after a
// success, made while its token is verified. Documents are named by a hash: no email, no address.

/** The address the platform saw the request come from: the last X-Forwarded-For hop, which Google's front end appends (a caller can only add hops before it). */
export function clientAddress(req: Request): string | undefined {
  const header = req.headers["x-forwarded-for"];
  const hops = [header ?? []].flat().join(",").split(",").map((hop) => hop.trim()).filter(Boolean);
  return hops.at(-1);
}

interface Counter {
  /** Hash of what is counted; a window's document is `signInFailures/{key}_{window}`. */
  key: string;
  max: number;
  refusal: string;
}

function counters(email: string, address: string | undefined): Counter[] {
  const key = (kind: string, value: string) => createHash("sha256").update(`${kind}\u0000${value}`).digest("hex");
  const { perEmail, perAddress } = SIGN_IN_FAILURE_LIMITS;
  const list = [{ key: key("email", email.trim().toLowerCase()), max: perEmail, refusal: "Too many failed sign-ins for this email" }];
  // Unknown address (the functions emulator sends none): the per-email limit alone applies.
  if (address) list.push({ key: key("address", address), max: perAddress, refusal: "Too many failed sign-ins from this address" });
  return list;
}

const counterDoc = (key: string, window: number) => db().doc(`signInFailures/${key}_${window}`);

/** The counters of one sign-in attempt, counted as a failure until it succeeds (releaseAttempt). */
export interface AttemptCounters {
  keys: string[];
  window: number;
}

/** Adds `amount` to the current window's counter of each key (atomic increments, one batch). */
async function count({ keys, window }: AttemptCounters, amount: 1 | -1): Promise<void> {
  const { FieldValue, Timestamp } = firestoreSdk();
  const batch = db().batch();
  // expireAt: a Firestore TTL policy on it deletes counters once they no longer count (README, Deploying).
  const expireAt = Timestamp.fromMillis((window + 2) * SIGN_IN_FAILURE_LIMITS.windowMs);
  for (const key of keys) batch.set(counterDoc(key, window), { count: FieldValue.increment(amount), expireAt }, { merge: true });
  await firestoreCall(() => batch.commit());
}

/**
 * Counts a sign-in attempt for the email and the address as a failure, then refuses it (429,
 * Retry-After; its count given back) if that puts either over its limit.
 */
export async function reserveAttempt(email: string, address: string | undefined, now = Date.now()): Promise<AttemptCounters> {
  const { windowMs } = SIGN_IN_FAILURE_LIMITS;
  const list = counters(email, address);
  const attempt = { keys: list.map((c) => c.key), window: Math.floor(now / windowMs) };
  const { window } = attempt;
  await count(attempt, 1);
  const snapshots = await firestoreCall(() => db().getAll(...list.flatMap((c) => [counterDoc(c.key, window - 1), counterDoc(c.key, window)])));
  for (const [i, counter] of list.entries()) {
    // The counts with this attempt's taken out: the failures (and attempts in flight) before it.
    const [previous, current] = [Number(snapshots[2 * i].get("count") ?? 0), Number(snapshots[2 * i + 1].get("count") ?? 1) - 1];
    if (previous + current < counter.max) continue;
    await count(attempt, -1);
    // Free again once the failures still counted fall below the limit: after this window, or the next.
    const freeAt = (window + (current < counter.max ? 1 : 2)) * windowMs;
    const seconds = Math.ceil((freeAt - now) / 1000);
    throw new HttpError(429, `${counter.refusal}; try again in ${seconds} s, or sign in with the Firebase Auth SDK and send a Bearer ID token.`, { "Retry-After": String(seconds) });
  }
  return attempt;
}

/** Gives back the count of an attempt that did not fail (it succeeded, or Identity Toolkit could not tell). */
export const releaseAttempt = (attempt: AttemptCounters): Promise<void> => count(attempt, -1);
