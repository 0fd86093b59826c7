// Calls to Cloud Storage, bounded and answered as the platform's failures. A module of its own: the
// api function's logo route needs it without loading what prints (documents.ts).

import { STORAGE_DEADLINE_MS } from "../config";
import { withDeadline } from "../http/deadline";
import { HttpError } from "../http/errors";
import { countBackendCall } from "../http/requestContext";
import * as logs from "../logs";

/**
 * Storage failures are the platform's, not the caller's: a 503 the client may retry. Each call is
 * bounded by STORAGE_DEADLINE_MS: the Storage client retries a failing server for about 18 s and
 * waits for a silent one far longer.
 */
export async function storageCall<T>(operation: () => Promise<T>, deadlineMs = STORAGE_DEADLINE_MS): Promise<T> {
  countBackendCall("storage");
  try {
    return await withDeadline(operation(), deadlineMs, () => new Error(`no answer within ${deadlineMs} ms`));
  } catch (error) {
    logs.storageFailed(error);
    throw new HttpError(503, "Cloud Storage is unavailable; try again shortly.");
  }
}
