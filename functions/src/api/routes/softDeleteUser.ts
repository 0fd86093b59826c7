import { auditInTransaction } from "../../audit";
import { badRequest, HttpError } from "../../http/errors";
import { defineRoute } from "../../http/routes";
import { grantsOf } from "../../http/access";
import { USER_TARGETS, adminFrom, changedBy, doneSchema, isSoftDeleted, userRecord } from "../users";

/**
 * The soft delete that restore undoes (SPEC.md leaves it outside; the product needs it). The
 * record stays, marked with who deleted it and when, and no other target's record is touched.
 */
export const softDeleteUser = defineRoute({
  method: "delete",
  path: "/user/:userId",
  summary: "Soft-delete a user of the target (restore undoes it)",
  anyOf: ["ADMIN"],
  feature: "PEOPLE_MANAGEMENT",
  targets: USER_TARGETS,
  // The record, and the user's grants on every node of the chain (where their authority starts).
  reads: (scope, chain) => [userRecord(scope), ...chain.map((node) => `${node}/members/${scope.params.userId}`)],
  transactional: true,
  response: { status: 200, description: "The user is soft-deleted.", schema: doneSchema(200) },
  errors: {
    400: "The user has no record in this target, is already deleted, or is the caller (also: invalid ids).",
    401: "Missing or invalid credentials, a missing permission or feature flag, or the user is an ADMIN of a target above every target the caller is ADMIN of (the message names it).",
  },
  async handle({ access, caller, params: { userId }, docs: [record, ...userGrants], tx }) {
    if (userId === caller.uid) throw badRequest(`User '${userId}' cannot be deleted by themselves: ask another administrator.`);
    if (!record.exists) throw badRequest(`User '${userId}' cannot be deleted: there is no record of them in this target.`);
    if (isSoftDeleted(record)) throw badRequest(`User '${userId}' cannot be deleted: they are already deleted.`);
    // A deleted record voids every grant of its user below it: a tenant's ADMIN must not void the grants
    // of an organization's ADMIN there, whom they could then not be restored by (privilege inversion).
    // (After the checks above: it tells nothing about a uid with no record here.)
    const callerFrom = adminFrom(access.grantsByNode);
    const userFrom = adminFrom(grantsOf(userGrants));
    if (callerFrom < 0) throw new HttpError(401, "Deleting a user needs the ADMIN permission on the target."); // authorize's rule, kept here too
    if (userFrom >= 0 && userFrom < callerFrom) {
      throw new HttpError(401, `User '${userId}' is an ADMIN of ${access.chain[userFrom].path}, above the targets you are ADMIN of: only an ADMIN there can delete them.`);
    }
    // Where the deleter's ADMIN starts: restore lets only an ADMIN from there or above undo it.
    tx.update(record.ref, { ...changedBy(caller.uid, "deleted"), deletedFrom: access.chain[callerFrom].path });
    auditInTransaction(tx, access, caller, { action: "user.deleted", subject: userId });
    return { statusCode: 200 as const, data: true as const, message: `User '${userId}' deleted.` };
  },
});
