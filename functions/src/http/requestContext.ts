import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";

interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** The id of the request being served, for log lines; undefined outside a request. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/**
 * Gives every request an id, echoed in the `X-Request-Id` response header and attached to every
 * log line written while it is served. The id is always generated here: a client-sent id is not
 * trusted, since it would let a caller forge or collide log correlation.
 */
export const requestContext: RequestHandler = (_req, res, next) => {
  const requestId = randomUUID();
  res.setHeader("X-Request-Id", requestId);
  storage.run({ requestId }, next);
};
