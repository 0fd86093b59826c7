import { auditInTransaction } from "../../audit";
import { firestoreSdk } from "../../firebase";
import { badRequest } from "../../http/errors";
import { defineRoute } from "../../http/routes";
import { USER_TARGETS, changedBy, doneSchema, isSoftDeleted, userRecord } from "../users";

/** SPEC.md 4.4: restores a soft-deleted user of the target, recording who did it and when. */
export const restoreUser = defineRoute({
  method: "post",
  path: "/user/:userId/restore",
  summary: "Restore a soft-deleted user of the target",
  anyOf: ["ADMIN"],
  feature: "PEOPLE_MANAGEMENT",
  targets: USER_TARGETS,
  reads: (scope) => [userRecord(scope)],
  transactional: true,
  response: { status: 201, description: "The user is restored.", schema: doneSchema(201) },
  errors: { 400: "The user has no record in this target, is not deleted, or is the caller (also: invalid ids)." },
  async handle({ access, caller, params: { userId }, docs: [record], tx }) {
    if (userId === caller.uid) throw badRequest(`User '${userId}' cannot be restored by themselves: ask another administrator.`);
    // SPEC.md: 400 when the user cannot be restored, whatever the reason.
    if (!record.exists) throw badRequest(`User '${userId}' cannot be restored: there is no record of them in this target.`);
    if (!isSoftDeleted(record)) throw badRequest(`User '${userId}' cannot be restored: they are not deleted.`);
    tx.update(record.ref, { deletedAt: null, deletedBy: firestoreSdk().FieldValue.delete(), ...changedBy(caller.uid, "restored") });
    auditInTransaction(tx, access, caller, { action: "user.restored", subject: userId });
    return { statusCode: 201 as const, data: true as const, message: `User '${userId}' restored.` };
  },
});
