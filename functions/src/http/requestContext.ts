import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";
import { isEmulator } from "../config";

/** Calls to a backend that a request made, by kind. */
export type BackendCall = "firestore" | "auth" | "storage" | "mail";

interface RequestContext {
  requestId: string;
  backendCalls: Record<BackendCall, number>;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** The id of the request being served, for log lines; undefined outside a request. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** Counts one round trip to a backend for the request being served. */
export function countBackendCall(kind: BackendCall): void {
  const context = storage.getStore();
  if (context) context.backendCalls[kind]++;
}

/**
 * Gives every request an id, echoed in the `X-Request-Id` response header and attached to every
 * log line written while it is served. The id is always generated here: a client-sent id is not
 * trusted, since it would let a caller forge or collide log correlation.
 *
 * Under the emulator only, responses also carry `X-Backend-Calls: firestore=N, auth=M[, storage=K][, mail=L]`, the round
 * trips the request cost (tests and benchmarks read it; production does not expose internals).
 */
export const requestContext: RequestHandler = (_req, res, next) => {
  const context: RequestContext = { requestId: randomUUID(), backendCalls: { firestore: 0, auth: 0, storage: 0, mail: 0 } };
  res.setHeader("X-Request-Id", context.requestId);
  if (isEmulator()) {
    const writeHead = res.writeHead;
    res.writeHead = function (this: typeof res, ...args: Parameters<typeof writeHead>) {
      const { firestore, auth, storage, mail } = context.backendCalls;
      const calls = `firestore=${firestore}, auth=${auth}${storage ? `, storage=${storage}` : ""}${mail ? `, mail=${mail}` : ""}`;
      if (!this.headersSent) this.setHeader("X-Backend-Calls", calls);
      return writeHead.apply(this, args);
    } as typeof writeHead;
  }
  storage.run(context, next);
};
