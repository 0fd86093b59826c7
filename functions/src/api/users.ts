import { FieldValue, type DocumentReference, type DocumentSnapshot } from "firebase-admin/firestore";
import type { Access } from "../http/access";
import { HttpError, notFound } from "../http/errors";
import { countBackendCall } from "../http/requestContext";
import { db } from "../firebase";

// User records and auth ownership (DESIGN.md, Firestore layout). Users belong to organizations
// and tenants; the routes declare `targets: USER_TARGETS`.

export const USER_TARGETS = ["organization", "tenant"] as const;

/** `{target}/users/{uid}`: the user's record in the target of the request. */
export const userRecordRef = (access: Access, uid: string): DocumentReference => db().doc(`${access.path}/users/${uid}`);

/** `authOwnership/{uid}`: which organization or tenant owns the user's authentication, if any. */
export const ownershipRef = (uid: string): DocumentReference => db().doc(`authOwnership/${uid}`);

/** The flags of SPEC.md section 2: never the owner itself (a caller must not learn which other target holds it). */
export interface OwnershipStatus {
  userId: string;
  isLinkedToCurrentTenant: boolean;
  isUnclaimed: boolean;
}

export function ownershipStatus(access: Access, uid: string, ownership: DocumentSnapshot): OwnershipStatus {
  const owner = ownership.exists ? ownership.get("ownerPath") : undefined;
  return { userId: uid, isLinkedToCurrentTenant: owner === access.path, isUnclaimed: typeof owner !== "string" };
}

export const isSoftDeleted = (record: DocumentSnapshot): boolean => record.get("deletedAt") != null;

export const noRecord = (uid: string) => notFound(`User '${uid}' has no record in this target.`);

/** Runs `fn` in a Firestore transaction (counted as one backend call per attempt). */
export function transaction<T>(fn: (tx: FirebaseFirestore.Transaction) => Promise<T>): Promise<T> {
  return db().runTransaction((tx) => {
    countBackendCall("firestore");
    return fn(tx);
  });
}

/** The audit fields of a change made by `uid` now. */
export const changedBy = (uid: string, prefix: "deleted" | "restored") => ({ [`${prefix}At`]: FieldValue.serverTimestamp(), [`${prefix}By`]: uid });

export const conflict = (message: string) => new HttpError(409, message);
