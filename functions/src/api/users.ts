import type { DocumentSnapshot } from "firebase-admin/firestore";
import { z } from "zod";
import type { Access, Permission } from "../http/access";
import { notFound } from "../http/errors";
import type { ReadScope } from "../http/routes";
import { firestoreSdk } from "../firebase";

// User records and auth ownership (DESIGN.md, Firestore layout). Users belong to organizations
// and tenants; the routes declare `targets: USER_TARGETS`.

export const USER_TARGETS = ["organization", "tenant"] as const;

/** `{target}/users/{userId}`: the user's record in the target of the request. */
export const userRecord = ({ path, params }: ReadScope) => `${path}/users/${params.userId}`;

/** `authOwnership/{userId}`: which organization or tenant owns the user's authentication, if any. */
export const authOwnership = ({ params }: ReadScope) => `authOwnership/${params.userId}`;

/** The flags of SPEC.md section 2: never the owner itself (a caller must not learn which other target holds it). */
export const ownershipStatusSchema = z.strictObject({
  /** The identity-provider user id. */
  userId: z.string().meta({ examples: ["north-reader"] }),
  /** True when the target of the request owns the user's authentication. */
  isLinkedToCurrentTenant: z.boolean(),
  /** True when no organization or tenant owns it. */
  isUnclaimed: z.boolean(),
});
export type OwnershipStatus = z.infer<typeof ownershipStatusSchema>;

/** `{ statusCode, data: true, message }`: the answer of restore and soft delete (SPEC.md 4.4). */
export const doneSchema = (statusCode: 200 | 201) => z.strictObject({ statusCode: z.literal(statusCode), data: z.literal(true), message: z.string() });

/** The answer of claim and release: the new ownership status. */
export const ownershipChangeSchema = z.strictObject({ statusCode: z.literal(200), message: z.string(), data: ownershipStatusSchema });

export function ownershipStatus(access: Access, uid: string, ownership: DocumentSnapshot): OwnershipStatus {
  const owner = ownership.exists ? ownership.get("ownerPath") : undefined;
  return { userId: uid, isLinkedToCurrentTenant: owner === access.path, isUnclaimed: typeof owner !== "string" };
}

export const isSoftDeleted = (record: DocumentSnapshot): boolean => record.get("deletedAt") != null;

export const noRecord = (uid: string) => notFound(`User '${uid}' has no record in this target.`);

/** The audit fields of a change made by `uid` now. */
export const changedBy = (uid: string, prefix: "deleted" | "restored") => ({ [`${prefix}At`]: firestoreSdk().FieldValue.serverTimestamp(), [`${prefix}By`]: uid });

/** Where on the chain (root first) a user's ADMIN starts: the first target whose grants hold it; -1 for none. */
export const adminFrom = (grantsByNode: readonly ReadonlySet<Permission>[]): number => grantsByNode.findIndex((grants) => grants.has("ADMIN"));
