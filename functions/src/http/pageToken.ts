// Paging of a query ordered by a time and the document id, newest first (the audit trail, print
// jobs): a page ends at its last document, and the token that continues it is opaque to clients.

import type { QuerySnapshot, Timestamp } from "firebase-admin/firestore";

/** Where a page ends: the last document's time and id, and which query (target and filters, hashed) it belongs to. */
export interface PagePosition {
  s: number;
  n: number;
  id: string;
  f: string;
}

/** Seconds a Firestore Timestamp can hold: years 1 to 9999. */
export const TIMESTAMP_SECONDS = { min: -62_135_596_800, max: 253_402_300_799 };

/** Opaque to clients: base64url of the position. */
export const encodePageToken = (position: PagePosition) => Buffer.from(JSON.stringify(position)).toString("base64url");

/** The position a token holds, or undefined for anything this service did not write (or could not have). */
export function decodePageToken(token: string): PagePosition | undefined {
  try {
    const p = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as PagePosition;
    const valid =
      Number.isSafeInteger(p.s) && p.s >= TIMESTAMP_SECONDS.min && p.s <= TIMESTAMP_SECONDS.max && Number.isInteger(p.n) && p.n >= 0 && p.n < 1e9 && /^[A-Za-z0-9]{1,40}$/.test(p.id) && typeof p.f === "string";
    return valid && encodePageToken({ s: p.s, n: p.n, id: p.id, f: p.f }) === token ? p : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One page of a query that asked for `limit` + 1 documents: the first `limit`, and the token that
 * continues after the last of them by its `timeField` and id (null on the last page). `queryKey`
 * names the query (its target and filters), which a token may only continue.
 */
export function pageOf(snapshot: QuerySnapshot, limit: number, timeField: string, queryKey: string) {
  const docs = snapshot.docs.slice(0, limit);
  const last = docs.at(-1);
  const at = last?.get(timeField) as Timestamp | undefined;
  const nextPageToken = snapshot.docs.length > limit && last && at ? encodePageToken({ s: at.seconds, n: at.nanoseconds, id: last.id, f: queryKey }) : null;
  return { docs, nextPageToken };
}
