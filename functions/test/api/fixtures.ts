import { randomUUID } from "node:crypto";
import { getAuth } from "firebase-admin/auth";
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

/**
 * A fresh auth user (`{label}-{uuid}@example.test`) who is ADMIN on acme-north and whom no function
 * instance has seen yet, so a request of theirs either passes (200) or is refused (401).
 */
export async function freshTenantAdmin(label: string, options: { multiFactor?: boolean } = {}): Promise<{ uid: string; email: string; password: string }> {
  const uid = `${label}-${randomUUID()}`;
  const user = { uid, email: `${uid}@example.test`, password: "fresh-password" };
  const multiFactor = options.multiFactor ? { enrolledFactors: [{ factorId: "phone", phoneNumber: "+15555550100", displayName: "phone" }] } : undefined;
  await getAuth(stackAdminApp()).createUser({ ...user, emailVerified: true, multiFactor });
  await firestore().doc(`tenants/acme-north/members/${uid}`).set({ permissions: ["ADMIN"] });
  return user;
}

export const readDoc = async (path: string) => (await firestore().doc(path).get()).data();
