import { defineRoute } from "../../http/routes";
import { USER_TARGETS, conflict, ownershipRef, ownershipStatus, transaction } from "../users";

/** SPEC.md 4.6: the target gives up the authentication it owns, which becomes unclaimed. */
export const releaseAuthOwnership = defineRoute({
  method: "post",
  path: "/user/:userId/release-auth-ownership",
  anyOf: ["ADMIN", "MANAGE_PEOPLE"],
  feature: "PEOPLE_MANAGEMENT",
  targets: USER_TARGETS,
  async handle({ access, params: { userId }, res }) {
    const status = await transaction(async (tx) => {
      const ownership = await tx.get(ownershipRef(userId));
      // Not owned here, whether unclaimed or owned elsewhere: one answer that names no owner.
      if (!ownershipStatus(access, userId, ownership).isLinkedToCurrentTenant) {
        throw conflict(`This target does not own the authentication of user '${userId}'.`);
      }
      tx.delete(ownershipRef(userId));
      return { userId, isLinkedToCurrentTenant: false, isUnclaimed: true };
    });
    res.status(200).json({ statusCode: 200, data: status, message: `Auth ownership of user '${userId}' released.` });
  },
});
