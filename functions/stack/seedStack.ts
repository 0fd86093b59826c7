import { getApps, initializeApp, type App } from "firebase-admin/app";
import { getAuth } from "firebase-admin/auth";
import { Timestamp, getFirestore } from "firebase-admin/firestore";
import { getStorage } from "firebase-admin/storage";
import { BUCKET, EMULATOR_ENV, PROJECT_ID, URLS } from "./config";
import { decodeValue, drawPicture, type Fixture } from "./seed";

/** The Admin SDK of this process, pointed at the local stack. */
export function stackAdminApp(): App {
  Object.assign(process.env, EMULATOR_ENV);
  return getApps().find((a) => a.name === "stack") ?? initializeApp({ projectId: PROJECT_ID }, "stack");
}

/** Signs a user in through the stack's auth emulator (any API key does) and returns a fresh ID token. */
export async function signInToStack(email: string, password: string): Promise<string> {
  const res = await fetch(`${URLS.auth}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=local-stack`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password, returnSecureToken: true }),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  let idToken: unknown;
  try {
    idToken = (JSON.parse(text) as { idToken?: unknown }).idToken;
  } catch {
    // not JSON: reported below with the text
  }
  if (typeof idToken !== "string") throw new Error(`sign-in of ${email} failed: ${text}`);
  return idToken;
}

const BATCH_SIZE = 400;

/**
 * Loads a fixture into the running stack: creates or updates each auth user (same uid, email,
 * password) and overwrites each document. Documents and users not in the fixture are left alone.
 */
export async function seedStack(fixture: Omit<Fixture, "pictures"> & Partial<Pick<Fixture, "pictures">>): Promise<{ users: number; documents: number; pictures: number }> {
  const app = stackAdminApp();
  const auth = getAuth(app);
  for (const { uid, ...user } of fixture.users) {
    try {
      await auth.updateUser(uid, user);
    } catch (error) {
      if ((error as { code?: string }).code !== "auth/user-not-found") throw error;
      await auth.createUser({ uid, ...user });
    }
  }

  const db = getFirestore(app);
  const entries = Object.entries(fixture.documents);
  for (let i = 0; i < entries.length; i += BATCH_SIZE) {
    const batch = db.batch();
    for (const [path, fields] of entries.slice(i, i + BATCH_SIZE)) {
      batch.set(db.doc(path), decodeValue(fields, (d) => Timestamp.fromDate(d)) as Record<string, unknown>);
    }
    await batch.commit();
  }
  const pictures = Object.entries(fixture.pictures ?? {});
  if (pictures.length > 0) {
    const bucket = getStorage(app).bucket(BUCKET);
    for (const [path, picture] of pictures) {
      const { bytes, contentType } = await drawPicture(picture);
      await bucket.file(path).save(bytes, { contentType, resumable: false });
    }
  }
  return { users: fixture.users.length, documents: entries.length, pictures: pictures.length };
}
