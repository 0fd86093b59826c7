import type { App } from "firebase-admin/app";
import type { Auth } from "firebase-admin/auth";
import type { Firestore } from "firebase-admin/firestore";
import type { getStorage } from "firebase-admin/storage";

// The Admin SDK, initialised on first use: each firebase-admin module is loaded only by the
// function that needs it (cold start). Credentials, project and bucket come from the runtime.

let app: App | undefined;

export function adminApp(): App {
  if (!app) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { getApps, initializeApp } = require("firebase-admin/app") as typeof import("firebase-admin/app");
    app = getApps()[0] ?? initializeApp();
  }
  return app;
}

export function auth(): Auth {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require("firebase-admin/auth") as typeof import("firebase-admin/auth")).getAuth(adminApp());
}

/** The firebase-admin/firestore module (FieldValue, FieldPath, Timestamp), loaded on first use. */
export function firestoreSdk(): typeof import("firebase-admin/firestore") {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("firebase-admin/firestore") as typeof import("firebase-admin/firestore");
}

/**
 * gRPC channel settings of the Firestore client. After Firestore was unreachable, gRPC waits
 * longer and longer between reconnection attempts (up to 120 s by default), so an instance could
 * go on answering 503 long after Firestore is back; capped at 2 s, the first request after an
 * outage finds the connection back (test/security/faults.stack.test.ts, docs/RELIABILITY.md).
 */
export const FIRESTORE_CHANNEL_SETTINGS = { "grpc.max_reconnect_backoff_ms": 2_000 };

let firestore: Firestore | undefined;

export function db(): Firestore {
  if (!firestore) {
    firestore = firestoreSdk().getFirestore(adminApp());
    firestore.settings(FIRESTORE_CHANNEL_SETTINGS); // before its first use; firebase-admin passes no gRPC settings
  }
  return firestore;
}

/** The project's default Cloud Storage bucket (FIREBASE_CONFIG names it, in production and emulator). */
export function defaultBucket(): ReturnType<ReturnType<typeof getStorage>["bucket"]> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require("firebase-admin/storage") as typeof import("firebase-admin/storage")).getStorage(adminApp()).bucket();
}

/** A task queue of a task-queue function of this project (firebase-admin/functions, loaded on first use). */
export function taskQueue<Args extends Record<string, unknown>>(functionName: string) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require("firebase-admin/functions") as typeof import("firebase-admin/functions")).getFunctions(adminApp()).taskQueue<Args>(functionName);
}
