import { randomUUID } from "node:crypto";
import { Timestamp, getFirestore } from "firebase-admin/firestore";
import { stackAdminApp } from "../../stack/seedStack";
import { BASES } from "../helpers";

/** Firestore of the stack, through the real Admin SDK. */
export const firestore = () => getFirestore(stackAdminApp());

export const apiUrl = (path: string) => `${BASES.api.functionUrl}${path}`;

/** A fresh uid no other test uses. */
export const freshUid = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;

/** Writes `{targetDoc}/users/{uid}`; soft-deleted when `deleted`. */
export async function putUserRecord(targetDoc: string, uid: string, deleted = false): Promise<void> {
  await firestore()
    .doc(`${targetDoc}/users/${uid}`)
    .set({ email: `${uid}@example.test`, displayName: uid, createdAt: Timestamp.now(), deletedAt: deleted ? Timestamp.fromDate(new Date("2026-06-01T10:00:00Z")) : null });
}

export async function putOwner(uid: string, ownerPath: string): Promise<void> {
  await firestore().doc(`authOwnership/${uid}`).set({ ownerPath, claimedAt: Timestamp.now() });
}

export const readDoc = async (path: string) => (await firestore().doc(path).get()).data();
