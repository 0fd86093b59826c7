import { defineRoute } from "../../http/routes";
import { firestoreCall } from "../../http/deadline";
import { db } from "../../firebase";
import { z } from "zod";
import { USER_TARGETS, noRecord, ownershipRef, ownershipStatus, ownershipStatusSchema, userRecordRef } from "../users";

/**
 * SPEC.md 4.3: whether the user's authentication is owned by this target, another one, or nobody.
 * Every answer costs the same single read of the same two documents, so neither the body nor the
 * timing tells one other owner from another.
 */
export const authOwnershipStatus = defineRoute({
  method: "get",
  path: "/user/:userId/auth-ownership-status",
  summary: "Whether the user's authentication is owned by this target, by another one, or unclaimed",
  anyOf: ["ADMIN", "MANAGE_PEOPLE"],
  feature: "PEOPLE_MANAGEMENT",
  targets: USER_TARGETS,
  response: {
    status: 200,
    description: "The ownership flags; never which other target owns the authentication.",
    schema: z.strictObject({ message: z.string(), data: ownershipStatusSchema }),
  },
  errors: { 404: "The user has no record in this target." },
  async handle({ access, params: { userId } }) {
    const [record, ownership] = await firestoreCall(() => db().getAll(userRecordRef(access, userId), ownershipRef(userId)));
    if (!record.exists) throw noRecord(userId);
    return { message: "Auth ownership status retrieved.", data: ownershipStatus(access, userId, ownership) };
  },
});
