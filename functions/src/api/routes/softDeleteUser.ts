import { badRequest } from "../../http/errors";
import { defineRoute } from "../../http/routes";
import { USER_TARGETS, changedBy, isSoftDeleted, transaction, userRecordRef } from "../users";

/**
 * The soft delete that restore undoes (SPEC.md leaves it outside; the product needs it). The
 * record stays, marked with who deleted it and when, and no other target's record is touched.
 */
export const softDeleteUser = defineRoute({
  method: "delete",
  path: "/user/:userId",
  anyOf: ["ADMIN"],
  feature: "PEOPLE_MANAGEMENT",
  targets: USER_TARGETS,
  async handle({ access, caller, params: { userId }, res }) {
    const ref = userRecordRef(access, userId);
    await transaction(async (tx) => {
      const record = await tx.get(ref);
      if (!record.exists) throw badRequest(`User '${userId}' cannot be deleted: there is no record of them in this target.`);
      if (isSoftDeleted(record)) throw badRequest(`User '${userId}' cannot be deleted: they are already deleted.`);
      tx.update(ref, changedBy(caller.uid, "deleted"));
    });
    res.status(200).json({ statusCode: 200, data: true, message: `User '${userId}' deleted.` });
  },
});
