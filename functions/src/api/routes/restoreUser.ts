import { auditInTransaction } from "../../audit";
import { firestoreSdk } from "../../firebase";
import { badRequest, HttpError } from "../../http/errors";
import { defineRoute } from "../../http/routes";
import { USER_TARGETS, adminFrom, changedBy, doneSchema, isSoftDeleted, userRecord } from "../users";

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
  errors: {
    400: "The user has no record in this target, is not deleted, or is the caller (also: invalid ids).",
    401: "Missing or invalid credentials, a missing permission or feature flag, or the user was deleted by an ADMIN of a target above every target the caller is ADMIN of (the message names it).",
  },
  async handle({ access, caller, params: { userId }, docs: [record], tx }) {
    if (userId === caller.uid) throw badRequest(`User '${userId}' cannot be restored by themselves: ask another administrator.`);
    // SPEC.md: 400 when the user cannot be restored, whatever the reason.
    if (!record.exists) throw badRequest(`User '${userId}' cannot be restored: there is no record of them in this target.`);
    if (!isSoftDeleted(record)) throw badRequest(`User '${userId}' cannot be restored: they are not deleted.`);
    // What an ADMIN above the caller's own ADMIN decided is theirs to undo (as softDeleteUser refuses
    // to void such an ADMIN's grants): the delete recorded where its deleter's ADMIN started. A record
    // deleted otherwise (another system's delete, SPEC.md) says nothing of it and any ADMIN may restore.
    const callerFrom = adminFrom(access.grantsByNode);
    if (callerFrom < 0) throw new HttpError(401, "Restoring a user needs the ADMIN permission on the target."); // authorize's rule, kept here too
    const deletedFrom = access.chain.findIndex((node) => node.path === record.get("deletedFrom"));
    if (deletedFrom >= 0 && deletedFrom < callerFrom) {
      throw new HttpError(401, `User '${userId}' was deleted by an ADMIN of ${access.chain[deletedFrom].path}, above the targets you are ADMIN of: only an ADMIN there can restore them.`);
    }
    const { FieldValue } = firestoreSdk();
    tx.update(record.ref, { deletedAt: null, deletedBy: FieldValue.delete(), deletedFrom: FieldValue.delete(), ...changedBy(caller.uid, "restored") });
    auditInTransaction(tx, access, caller, { action: "user.restored", subject: userId });
    return { statusCode: 201 as const, data: true as const, message: `User '${userId}' restored.` };
  },
});
