import { FieldValue } from "firebase-admin/firestore";
import { badRequest } from "../../http/errors";
import { defineRoute } from "../../http/routes";
import { USER_TARGETS, changedBy, isSoftDeleted, transaction, userRecordRef } from "../users";

/** SPEC.md 4.4: restores a soft-deleted user of the target, recording who did it and when. */
export const restoreUser = defineRoute({
  method: "post",
  path: "/user/:userId/restore",
  anyOf: ["ADMIN"],
  feature: "PEOPLE_MANAGEMENT",
  targets: USER_TARGETS,
  async handle({ access, caller, params: { userId }, res }) {
    const ref = userRecordRef(access, userId);
    await transaction(async (tx) => {
      const record = await tx.get(ref);
      // SPEC.md: 400 when the user cannot be restored, whatever the reason.
      if (!record.exists) throw badRequest(`User '${userId}' cannot be restored: there is no record of them in this target.`);
      if (!isSoftDeleted(record)) throw badRequest(`User '${userId}' cannot be restored: they are not deleted.`);
      tx.update(ref, { deletedAt: null, deletedBy: FieldValue.delete(), ...changedBy(caller.uid, "restored") });
    });
    res.status(201).json({ statusCode: 201, data: true, message: `User '${userId}' restored.` });
  },
});
