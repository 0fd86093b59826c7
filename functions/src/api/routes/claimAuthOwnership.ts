import { auditInTransaction } from "../../audit";
import { firestoreSdk } from "../../firebase";
import { conflict } from "../../http/errors";
import { defineRoute } from "../../http/routes";
import { USER_TARGETS, authOwnership, isSoftDeleted, noRecord, ownershipChangeSchema, ownershipStatus, userRecord } from "../users";

/**
 * SPEC.md 4.6: the target takes ownership of an unclaimed authentication of one of its users.
 * In a transaction, so of two targets claiming at once exactly one wins; the loser learns only
 * that the authentication is not unclaimed, never who holds it.
 */
export const claimAuthOwnership = defineRoute({
  method: "post",
  path: "/user/:userId/claim-auth-ownership",
  summary: "Claim an unclaimed authentication for the target",
  anyOf: ["ADMIN", "MANAGE_PEOPLE"],
  feature: "PEOPLE_MANAGEMENT",
  targets: USER_TARGETS,
  reads: (scope) => [userRecord(scope), authOwnership(scope)],
  transactional: true,
  response: { status: 200, description: "The target now owns the authentication.", schema: ownershipChangeSchema },
  errors: { 404: "The user has no record in this target.", 409: "The authentication is not unclaimed, or the user is deleted here (the owner is never named)." },
  async handle({ access, caller, params: { userId }, docs: [record, ownership], tx }) {
    if (!record.exists) throw noRecord(userId);
    if (isSoftDeleted(record)) throw conflict(`User '${userId}' is deleted in this target; restore them before claiming.`);
    const before = ownershipStatus(access, userId, ownership);
    if (before.isLinkedToCurrentTenant) throw conflict(`This target already owns the authentication of user '${userId}'.`);
    if (!before.isUnclaimed) throw conflict(`The authentication of user '${userId}' is not unclaimed.`);
    tx.create(ownership.ref, { ownerPath: access.path, claimedAt: firestoreSdk().FieldValue.serverTimestamp(), claimedBy: caller.uid });
    auditInTransaction(tx, access, caller, { action: "authOwnership.claimed", subject: userId });
    const status = { userId, isLinkedToCurrentTenant: true, isUnclaimed: false };
    return { statusCode: 200 as const, data: status, message: `Auth ownership of user '${userId}' claimed.` };
  },
});
