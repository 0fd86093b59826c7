import { defineRoute } from "../../http/routes";
import { countBackendCall } from "../../http/requestContext";
import { db } from "../../firebase";
import { USER_TARGETS, noRecord, ownershipRef, ownershipStatus, userRecordRef } from "../users";

/**
 * SPEC.md 4.3: whether the user's authentication is owned by this target, another one, or nobody.
 * Every answer costs the same single read of the same two documents, so neither the body nor the
 * timing tells one other owner from another.
 */
export const authOwnershipStatus = defineRoute({
  method: "get",
  path: "/user/:userId/auth-ownership-status",
  anyOf: ["ADMIN", "MANAGE_PEOPLE"],
  feature: "PEOPLE_MANAGEMENT",
  targets: USER_TARGETS,
  async handle({ access, params: { userId }, res }) {
    countBackendCall("firestore");
    const [record, ownership] = await db().getAll(userRecordRef(access, userId), ownershipRef(userId));
    if (!record.exists) throw noRecord(userId);
    res.status(200).json({ message: "Auth ownership status retrieved.", data: ownershipStatus(access, userId, ownership) });
  },
});
