import { z } from "zod";

/**
 * Fault injection for the local stack's own Firestore and Storage emulators (the JavaScript
 * fallbacks, which run in the launcher process). The fault tests (test/security/faults.stack.test.ts)
 * switch faults on and off through the mail sink's control endpoint:
 *
 *   GET /faults                        the faults in force, e.g. {"storage":null,"firestore":null,"workersExited":0}
 *   PUT /faults {"storage": {...}}     sets one part's fault ({"storage": null} clears it);
 *                                      parts not named keep their fault
 *   PUT /faults {}                     clears every fault
 *
 * Storage faults (firebase-tools' storage emulator, in front of its Express app):
 *   {"mode": "unavailable"}  every request answers 503, as Cloud Storage does in an outage
 *   {"mode": "reset"}        every request has its connection destroyed (a crashed server)
 *   {"mode": "hang"}         requests are held without an answer until the fault is cleared
 *   {"mode": "exit-worker"}  the function worker that sent the request is killed (SIGKILL) and the
 *                            request dropped: a Cloud Functions instance that dies mid-task. A
 *                            request from anything but a function worker only loses its connection.
 *   "only": "uploads" | "reads" | "downloads" limits the fault to object writes (POST/PUT/PATCH/DELETE),
 *   reads (GET/HEAD), or reads of an object's bytes (`alt=media`: a picture or logo, not its metadata),
 *   so a request can fail midway: after its reads succeeded, when it stores the PDF, or while it renders.
 *   "match": "text" limits it to requests whose URL, decoded, contains the text (an object's name:
 *   "/jobs/" for print jobs' packs and outputs).
 *   "times": n  the fault acts on the next n requests it applies to, then clears itself: "a chunk fails
 *   once" is {"mode": "unavailable", "only": "uploads", "match": "/parts/", "times": 1}.
 *
 * Firestore faults (the gRPC fallback's listening socket):
 *   {"mode": "down"}   every open connection is destroyed and every new one is closed at once:
 *                      Firestore is unreachable
 *   {"mode": "hang"}   every open connection is destroyed; new ones are accepted and never served
 *
 * Google's emulators (Java 21) cannot be faulted this way: there the endpoint answers 501 and the
 * fault tests are skipped, saying so.
 */

export const storageFaultSchema = z.strictObject({
  mode: z.enum(["unavailable", "reset", "hang", "exit-worker"]),
  only: z.enum(["uploads", "reads", "downloads"]).optional(),
  match: z.string().min(1).max(200).optional(),
  times: z.int().min(1).max(1000).optional(),
});
export type StorageFault = z.infer<typeof storageFaultSchema>;

export const firestoreFaultSchema = z.strictObject({
  mode: z.enum(["down", "hang"]),
});
export type FirestoreFault = z.infer<typeof firestoreFaultSchema>;

const faultsRequestSchema = z.strictObject({
  storage: storageFaultSchema.nullable().optional(),
  firestore: firestoreFaultSchema.nullable().optional(),
});

export interface FaultState {
  storage: StorageFault | null;
  firestore: FirestoreFault | null;
  /** Function workers the "exit-worker" fault has killed since the stack started (a test's proof that one died). */
  workersExited: number;
}

/** A part of the stack that can be made to fail. */
export interface Faultable<F> {
  setFault(fault: F | null): void;
  /** The fault in force now, where it can change by itself (one with `times` clears itself). */
  currentFault?(): F | null;
  /** Function workers killed by its faults so far. */
  workersExited?(): number;
}

/** The faults in force, and the parts they act on (absent when the stack runs Google's emulators). */
export class FaultControl {
  private state: Omit<FaultState, "workersExited"> = { storage: null, firestore: null };
  storage: Faultable<StorageFault> | undefined;
  firestore: Faultable<FirestoreFault> | undefined;

  get available(): boolean {
    return this.storage !== undefined && this.firestore !== undefined;
  }

  get current(): FaultState {
    if (this.storage?.currentFault) this.state.storage = this.storage.currentFault();
    return { ...this.state, workersExited: this.storage?.workersExited?.() ?? 0 };
  }

  /** Applies a `PUT /faults` body; throws an Error whose message says what is wrong with it. */
  apply(body: unknown): FaultState {
    const parsed = faultsRequestSchema.safeParse(body);
    if (!parsed.success) throw new Error(z.prettifyError(parsed.error));
    const request = parsed.data;
    const clearAll = Object.keys(request).length === 0;
    if (clearAll || request.storage !== undefined) {
      this.state.storage = clearAll ? null : (request.storage ?? null);
      this.storage?.setFault(this.state.storage);
    }
    if (clearAll || request.firestore !== undefined) {
      this.state.firestore = clearAll ? null : (request.firestore ?? null);
      this.firestore?.setFault(this.state.firestore);
    }
    return this.current;
  }
}

/** Whether a storage request is one the fault applies to. */
export function storageFaultApplies(fault: StorageFault, method: string, url: string): boolean {
  if (fault.match !== undefined && !safeDecode(url).includes(fault.match)) return false;
  if (!fault.only) return true;
  const read = method === "GET" || method === "HEAD";
  if (fault.only === "downloads") return read && new URL(url, "http://storage").searchParams.get("alt") === "media";
  return fault.only === "reads" ? read : !read;
}

function safeDecode(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}
