import { readFileSync } from "node:fs";
import { z } from "zod";

/**
 * The seed fixture format (README, "Seed data"): auth users plus a flat map from Firestore
 * document path to fields, mirroring DESIGN.md's layout one to one. A value written as
 * `{ "$timestamp": "<ISO 8601>" }` becomes a Firestore Timestamp; everything else is plain JSON.
 */

/** An auth emulator account; `uid` is what the Firestore documents refer to. */
const fixtureUser = z.strictObject({
  uid: z.string().min(1).max(128),
  email: z.email(),
  password: z.string().min(6),
  displayName: z.string().optional(),
  disabled: z.boolean().optional(),
});

/** A document path has an even number of non-empty segments. */
const documentPath = z.string().refine((p) => {
  const segments = p.split("/");
  return segments.length % 2 === 0 && segments.every((s) => s.length > 0);
}, "not a document path (collection/doc[/collection/doc...])");

export const fixtureSchema = z.strictObject({
  users: z.array(fixtureUser).default([]),
  documents: z.record(documentPath, z.record(z.string(), z.unknown())).default({}),
});
export type Fixture = z.infer<typeof fixtureSchema>;

export function readFixture(file: string): Fixture {
  const parsed = fixtureSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) throw new Error(`${file} is not a valid fixture:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** Replaces `{ $timestamp }` markers with what `toTimestamp` makes of the date. */
export function decodeValue<T>(value: unknown, toTimestamp: (date: Date) => T): unknown {
  if (Array.isArray(value)) return value.map((v) => decodeValue(v, toTimestamp));
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    if (entries.length === 1 && entries[0][0] === "$timestamp") {
      const date = new Date(String(entries[0][1]));
      if (Number.isNaN(date.getTime())) throw new Error(`invalid $timestamp: ${String(entries[0][1])}`);
      return toTimestamp(date);
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, decodeValue(v, toTimestamp)]));
  }
  return value;
}
