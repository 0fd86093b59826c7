import { auditInTransaction } from "../../audit";
import { badRequest } from "../../http/errors";
import { defineRoute } from "../../http/routes";
import { USER_TARGETS, changedBy, doneSchema, isSoftDeleted, userRecord } from "../users";

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
  reads: (scope) => [userRecord(scope)],
  transactional: true,
  response: { status: 200, description: "The user is soft-deleted.", schema: doneSchema(200) },
  errors: { 400: "The user has no record in this target, is already deleted, or is the caller (also: invalid ids)." },
  async handle({ access, caller, params: { userId }, docs: [record], tx }) {
    if (userId === caller.uid) throw badRequest(`User '${userId}' cannot be deleted by themselves: ask another administrator.`);
    if (!record.exists) throw badRequest(`User '${userId}' cannot be deleted: there is no record of them in this target.`);
    if (isSoftDeleted(record)) throw badRequest(`User '${userId}' cannot be deleted: they are already deleted.`);
    tx.update(record.ref, changedBy(caller.uid, "deleted"));
    auditInTransaction(tx, access, caller, { action: "user.deleted", subject: userId });
    return { statusCode: 200 as const, data: true as const, message: `User '${userId}' deleted.` };
  },
});
