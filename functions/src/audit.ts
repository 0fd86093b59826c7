import { createHash } from "node:crypto";
import type { Transaction } from "firebase-admin/firestore";
import { HOUR_MS } from "./config";
import { db, firestoreSdk } from "./firebase";
import type { Access } from "./http/access";
import type { Caller } from "./http/authenticate";
import { firestoreCall } from "./http/deadline";
import { currentRequestId } from "./http/requestContext";

// The audit trail: one event per change a route makes and per PDF that leaves the service, stored
// under the target (`{target}/auditEvents/{id}`) and, with the same id, in the trail of every target
// above it (an organization's or tenant's trail holds what happened below it, read with one query of
// one collection). Only what happened is recorded: a refused or failed request writes none (those
// stay in the logs), so nobody can flood a tenant's trail; acts a user can repeat at will without a change or a quota
// (a preview, a stored PDF printed again) are recorded once an hour per user and document (hourlyEventId). Events hold no token, password, email
// address or email body.

/**
 * The id of an act recorded once an hour: the same action on the same parts (who, what) in the same
 * hour of the clock has this id, and its event replaces the one before (audit's `id`). For acts a
 * user repeats at will and that change nothing: a preview, a stored PDF printed again.
 */
export function hourlyEventId(action: AuditAction, parts: readonly string[], now = Date.now()): string {
  const hour = Math.floor(now / HOUR_MS);
  return createHash("sha256").update([action, ...parts, String(hour)].join("\u0000")).digest("hex").slice(0, 20);
}

/** How long an event is kept: a Firestore TTL policy on `expireAt` deletes it then (README, Deploying). */
export const AUDIT_RETENTION_MS = 400 * 24 * 60 * 60 * 1000;

export const AUDIT_ACTIONS = ["user.deleted", "user.restored", "authOwnership.claimed", "authOwnership.released", "pdf.printed", "pdf.mailed", "pdf.previewed", "printSettings.updated", "printSettings.logoUploaded", "print_job.created", "print_job.cancelled", "print_job.finished", "print_template.saved", "print_template.deleted"] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditInput {
  action: AuditAction;
  /** The user id or object instance id the action was about. */
  subject: string;
  details?: Record<string, unknown>;
}

/**
 * Where an event goes: the target's path and its chain, root first (an Access; or what a print job
 * kept of it, for the events its tasks write after the request).
 */
export type AuditScope = Pick<Access, "path"> & { chain: readonly { path: string }[] };
/** Who did it: the caller, or the one who created a print job. */
export type AuditActor = Pick<Caller, "uid" | "scheme">;

function event(access: AuditScope, caller: AuditActor, input: AuditInput) {
  const { FieldValue, Timestamp } = firestoreSdk();
  return {
    at: FieldValue.serverTimestamp(),
    action: input.action,
    actor: { uid: caller.uid, scheme: caller.scheme },
    target: access.path,
    subject: input.subject,
    requestId: currentRequestId() ?? null,
    details: input.details ?? {},
    expireAt: Timestamp.fromMillis(Date.now() + AUDIT_RETENTION_MS),
  };
}

/** The event's document in the trail of the target and of each target above it, under one id (a new one unless given). */
function eventRefs(access: AuditScope, id = db().collection("auditEvents").doc().id) {
  return access.chain.map((node) => db().doc(`${node.path}/auditEvents/${id}`));
}

/** Records the event in the route's own transaction: the change and its event commit together or not at all. */
export function auditInTransaction(tx: Transaction, access: AuditScope, caller: AuditActor, input: AuditInput): void {
  const data = event(access, caller, input);
  for (const ref of eventRefs(access)) tx.create(ref, data);
}

/**
 * Records the event of a PDF that left the service (one batch, after the fact). With `id`, the
 * event replaces the one of that id: repeated acts recorded once an hour (hourlyEventId).
 */
export async function audit(access: AuditScope, caller: AuditActor, input: AuditInput, id?: string): Promise<void> {
  const data = event(access, caller, input);
  const batch = db().batch();
  for (const ref of eventRefs(access, id)) {
    if (id) batch.set(ref, data);
    else batch.create(ref, data);
  }
  await firestoreCall(() => batch.commit());
}
