// The instances a print job's `filter` names: the target's own instances (`{target}/objectInstances`,
// never a division's or another tenant's) that match, ordered by updatedAt, then id. Counted first with
// a count() aggregation (index entries, not documents), so a filter matching 200,000 loads none; then
// their ids only (select() with no fields). Composite index: objectTypeName, updatedAt, __name__.

import type { Query } from "firebase-admin/firestore";
import { z } from "zod";
import { db, firestoreSdk } from "../../firebase";
import { firestoreCall } from "../../http/deadline";
import { HttpError } from "../../http/errors";
import { queryTime } from "../../http/validation";
import { PRINT_JOB_LIMITS } from "./model";

/** An ISO 8601 time as a Firestore timestamp, to the nanosecond it gives (a Date keeps milliseconds). */
export function timestampOf(iso: string): FirebaseFirestore.Timestamp {
  const fraction = /T[\d:]+\.(\d+)/.exec(iso)?.[1] ?? "";
  return new (firestoreSdk().Timestamp)(Math.floor(Date.parse(iso) / 1000), Number(fraction.slice(0, 9).padEnd(9, "0")));
}

/** Each key narrows the selection; `{}` is every instance of the target (that has an updatedAt). */
export const instanceFilter = z
  .strictObject({
    // Compared exactly (case and spaces count), as stored in the instance's objectTypeName; 500 characters stay within an index entry's 1,500 bytes.
    objectTypeName: z.string().min(1).max(500).optional().meta({ description: "Only instances of this object type (their objectTypeName, exactly)", examples: ["Safety Inspection"] }),
    // Inclusive lower bound on the instance's updatedAt.
    updatedFrom: queryTime("Only instances updated at or after this time (ISO 8601 with Z or an offset; inclusive)"),
    // Exclusive upper bound: consecutive windows neither overlap nor leave a gap.
    updatedTo: queryTime("Only instances updated before this time (ISO 8601 with Z or an offset; exclusive)"),
  })
  // Zod runs this even when a time failed its format: such a one has its issue already.
  .refine(({ updatedFrom: from, updatedTo: to }) => !from || !to || Number.isNaN(Date.parse(from) + Date.parse(to)) || timestampOf(from).valueOf() < timestampOf(to).valueOf(), {
    message: "must be after 'filter.updatedFrom'",
    path: ["updatedTo"],
  });
export type InstanceFilter = z.infer<typeof instanceFilter>;

/**
 * The ids of the target's instances that match `filter`, ordered by updatedAt, then document id (the
 * job's and its manifest's order). An instance without an updatedAt is never matched. 422 when none
 * matches, or more than a job prints (the message names the count).
 */
export async function instancesMatching(targetPath: string, filter: InstanceFilter): Promise<string[]> {
  const max = PRINT_JOB_LIMITS.documents;
  let query: Query = db().collection(`${targetPath}/objectInstances`);
  if (filter.objectTypeName !== undefined) query = query.where("objectTypeName", "==", filter.objectTypeName);
  if (filter.updatedFrom) query = query.where("updatedAt", ">=", timestampOf(filter.updatedFrom));
  if (filter.updatedTo) query = query.where("updatedAt", "<", timestampOf(filter.updatedTo));
  query = query.orderBy("updatedAt").orderBy(firestoreSdk().FieldPath.documentId());
  const { count } = (await firestoreCall(() => query.count().get())).data();
  const tooMany = (n: string) => new HttpError(422, `${n} instances of the target match the filter; a print job prints at most ${max.toLocaleString("en-GB")}: narrow the filter.`);
  if (count > max) throw tooMany(count.toLocaleString("en-GB"));
  // One more than a job takes: instances added since the count are caught too.
  const { docs } = await firestoreCall(() => query.select().limit(max + 1).get());
  if (docs.length > max) throw tooMany(`More than ${max.toLocaleString("en-GB")}`);
  if (docs.length === 0) throw new HttpError(422, "No instance of the target matches the filter.");
  return docs.map((doc) => doc.id);
}
