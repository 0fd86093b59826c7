import { FieldValue } from "firebase-admin/firestore";
import { defineRoute } from "../../http/routes";
import { USER_TARGETS, conflict, isSoftDeleted, noRecord, ownershipRef, ownershipStatus, transaction, userRecordRef } from "../users";

/**
 * SPEC.md 4.6: the target takes ownership of an unclaimed authentication of one of its users.
 * In a transaction, so of two targets claiming at once exactly one wins; the loser learns only
 * that the authentication is not unclaimed, never who holds it.
 */
export const claimAuthOwnership = defineRoute({
  method: "post",
  path: "/user/:userId/claim-auth-ownership",
  anyOf: ["ADMIN", "MANAGE_PEOPLE"],
  feature: "PEOPLE_MANAGEMENT",
  targets: USER_TARGETS,
  async handle({ access, caller, params: { userId }, res }) {
    const status = await transaction(async (tx) => {
      const [record, ownership] = await tx.getAll(userRecordRef(access, userId), ownershipRef(userId));
      if (!record.exists) throw noRecord(userId);
      if (isSoftDeleted(record)) throw conflict(`User '${userId}' is deleted in this target; restore them before claiming.`);
      const before = ownershipStatus(access, userId, ownership);
      if (before.isLinkedToCurrentTenant) throw conflict(`This target already owns the authentication of user '${userId}'.`);
      if (!before.isUnclaimed) throw conflict(`The authentication of user '${userId}' is not unclaimed.`);
      tx.create(ownershipRef(userId), { ownerPath: access.path, claimedAt: FieldValue.serverTimestamp(), claimedBy: caller.uid });
      return { userId, isLinkedToCurrentTenant: true, isUnclaimed: false };
    });
    res.status(200).json({ statusCode: 200, data: status, message: `Auth ownership of user '${userId}' claimed.` });
  },
});
