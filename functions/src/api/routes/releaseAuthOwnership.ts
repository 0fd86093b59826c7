import { auditInTransaction } from "../../audit";
import { conflict } from "../../http/errors";
import { defineRoute } from "../../http/routes";
import { USER_TARGETS, authOwnership, noRecord, ownershipChangeSchema, ownershipStatus, userRecord } from "../users";

/** SPEC.md 4.6: the target gives up the authentication it owns, which becomes unclaimed. */
export const releaseAuthOwnership = defineRoute({
  method: "post",
  path: "/user/:userId/release-auth-ownership",
  summary: "Release an authentication the target owns; it becomes unclaimed",
  anyOf: ["ADMIN", "MANAGE_PEOPLE"],
  feature: "PEOPLE_MANAGEMENT",
  targets: USER_TARGETS,
  reads: (scope) => [userRecord(scope), authOwnership(scope)],
  transactional: true,
  response: { status: 200, description: "The authentication is now unclaimed.", schema: ownershipChangeSchema },
  errors: { 404: "The user has no record in this target (and the target does not own the authentication).", 409: "This target does not own the authentication (the owner is never named)." },
  async handle({ access, caller, params: { userId }, docs: [record, ownership], tx }) {
    // Not owned here, whether unclaimed or owned elsewhere: one answer that names no owner (404 for a
    // user unknown here, as the status and claim routes answer; what this target owns it can release).
    if (!ownershipStatus(access, userId, ownership).isLinkedToCurrentTenant) {
      if (!record.exists) throw noRecord(userId);
      throw conflict(`This target does not own the authentication of user '${userId}'.`);
    }
    tx.delete(ownership.ref);
    auditInTransaction(tx, access, caller, { action: "authOwnership.released", subject: userId });
    const status = { userId, isLinkedToCurrentTenant: false, isUnclaimed: true };
    return { statusCode: 200 as const, data: status, message: `Auth ownership of user '${userId}' released.` };
  },
});
