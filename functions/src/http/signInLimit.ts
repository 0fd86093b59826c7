import { createHash } from "node:crypto";
import { isIPv4, isIPv6 } from "node:net";
import type { Request } from "express";
import { MAX_TRUSTED_PROXY_HOPS, SIGN_IN_FAILURE_LIMITS } from "../config";
import { db, firestoreSdk } from "../firebase";
import { firestoreCall } from "./deadline";
import { HttpError } from "./errors";

// Failed Basic sign-ins, counted in Firestore so that the limit holds across instances, before
// Identity Toolkit's own lockout (which would lock the account everywhere). Failures are counted in
// fixed windows of SIGN_IN_FAILURE_LIMITS.windowMs; a sign-in is refused (429) while the current and
// the previous window together hold the limit, so no span of one window ever sees more failures than
// the limit, and a lock lasts at most two windows. A fresh sign-in costs one read (a cached success
// none); a failure one batched increment (atomic: a burst of failures never contends on a counter).
// Documents are named by a hash: they hold no email and no address.

/**
 * The client's address. Google's front end appends the address it received the request from as the
 * last X-Forwarded-For hop (a caller can only add hops before it); each of `trustedHops` proxies of our
 * own in front (an external Application Load Balancer appends `<client>, <forwarding rule>`: one) puts
 * the client one hop further back. With fewer hops the request did not come through those proxies: the
 * last hop, which no caller writes, is all that can be trusted.
 */
export function clientAddress(req: Pick<Request, "headers">, trustedHops: number): string | undefined {
  const header = req.headers["x-forwarded-for"];
  const hops = [header ?? []].flat().join(",").split(",").map((hop) => hop.trim()).filter(Boolean);
  return hops.at(-1 - trustedHops) ?? hops.at(-1);
}

/** The TRUSTED_PROXY_HOPS param, checked: a value out of range is a mistake, and guessing could trust a hop the caller wrote. */
export function trustedProxyHops(value: number): number {
  if (Number.isInteger(value) && value >= 0 && value <= MAX_TRUSTED_PROXY_HOPS) return value;
  // Basic only: Bearer never counts addresses, so it keeps working while the param is fixed.
  throw new HttpError(503, `Password authentication is misconfigured: TRUSTED_PROXY_HOPS must be a whole number from 0 to ${MAX_TRUSTED_PROXY_HOPS} (README, Configuration); use a Bearer ID token.`);
}

/**
 * What one client's failures are counted under: an IPv4 address as it is; an IPv6 address by its /64,
 * the block a single subscriber or host is given (one client can take any of its 2^64 addresses, so
 * counted one by one the limit would never hold); an IPv4-mapped IPv6 address as its IPv4 address.
 * Anything that is not an IP address (a hop someone else wrote) is counted as it is.
 */
export function countedAddress(address: string): string {
  if (isIPv4(address) || !isIPv6(address)) return address;
  let normal: string;
  try {
    normal = new URL(`http://[${address}]`).hostname.slice(1, -1); // lower case, zeros compressed, an IPv4 tail in hex
  } catch {
    return address; // a zone id (fe80::1%eth0): not an address the internet sends
  }
  const [head, tail] = normal.split("::");
  const [before, after] = [head ? head.split(":") : [], tail ? tail.split(":") : []];
  const groups = tail === undefined ? before : [...before, ...Array<string>(8 - before.length - after.length).fill("0"), ...after];
  const words = groups.map((g) => parseInt(g, 16));
  if (words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff) return `${words[6] >> 8}.${words[6] & 0xff}.${words[7] >> 8}.${words[7] & 0xff}`;
  return `${words.slice(0, 4).map((w) => w.toString(16)).join(":")}::/64`;
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
  if (address) list.push({ key: key("address", countedAddress(address)), max: perAddress, refusal: "Too many failed sign-ins from this address" });
  return list;
}

const counterDoc = (key: string, window: number) => db().doc(`signInFailures/${key}_${window}`);

/** The counters of one sign-in attempt, read before it (refuseIfLimited), written after a failure (recordFailure). */
export interface AttemptCounters {
  keys: string[];
  window: number;
}

/** Refuses (429, Retry-After) a sign-in for an email or address whose failures reached the limit. */
export async function refuseIfLimited(email: string, address: string | undefined, now = Date.now()): Promise<AttemptCounters> {
  const { windowMs } = SIGN_IN_FAILURE_LIMITS;
  const list = counters(email, address);
  const window = Math.floor(now / windowMs);
  const snapshots = await firestoreCall(() => db().getAll(...list.flatMap((c) => [counterDoc(c.key, window - 1), counterDoc(c.key, window)])));
  list.forEach((counter, i) => {
    const [previous, current] = [snapshots[2 * i], snapshots[2 * i + 1]].map((snapshot) => Number(snapshot.get("count") ?? 0));
    if (previous + current < counter.max) return;
    // Free again once the failures still counted fall below the limit: after this window, or the next.
    const freeAt = (window + (current < counter.max ? 1 : 2)) * windowMs;
    const seconds = Math.ceil((freeAt - now) / 1000);
    throw new HttpError(429, `${counter.refusal}; try again in ${seconds} s, or sign in with the Firebase Auth SDK and send a Bearer ID token.`, { "Retry-After": String(seconds) });
  });
  return { keys: list.map((c) => c.key), window };
}

/** Counts one failed sign-in against the email and the address. */
export async function recordFailure({ keys, window }: AttemptCounters): Promise<void> {
  const { FieldValue, Timestamp } = firestoreSdk();
  const batch = db().batch();
  // expireAt: a Firestore TTL policy on it deletes counters once they no longer count (README, Deploying).
  const expireAt = Timestamp.fromMillis((window + 2) * SIGN_IN_FAILURE_LIMITS.windowMs);
  for (const key of keys) batch.set(counterDoc(key, window), { count: FieldValue.increment(1), expireAt }, { merge: true });
  await firestoreCall(() => batch.commit());
}
