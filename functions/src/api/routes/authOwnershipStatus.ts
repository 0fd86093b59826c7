import { defineRoute } from "../../http/routes";
import { z } from "zod";
import { USER_TARGETS, authOwnership, noRecord, ownershipStatus, ownershipStatusSchema, userRecord } from "../users";

/**
 * SPEC.md 4.3: whether the user's authentication is owned by this target, another one, or nobody.
 * Every answer costs the same read of the same two documents (in the pipeline's one round trip),
 * so neither the body nor the timing tells one other owner from another.
 */
export const authOwnershipStatus = defineRoute({
  method: "get",
  path: "/user/:userId/auth-ownership-status",
  summary: "Whether the user's authentication is owned by this target, by another one, or unclaimed",
  anyOf: ["ADMIN", "MANAGE_PEOPLE"],
  feature: "PEOPLE_MANAGEMENT",
  targets: USER_TARGETS,
  reads: (scope) => [userRecord(scope), authOwnership(scope)],
  response: {
    status: 200,
    description: "The ownership flags; never which other target owns the authentication.",
    schema: z.strictObject({ message: z.string(), data: ownershipStatusSchema }),
  },
  errors: { 404: "The user has no record in this target." },
  async handle({ access, params: { userId }, docs: [record, ownership] }) {
    if (!record.exists) throw noRecord(userId);
    return { message: "Auth ownership status retrieved.", data: ownershipStatus(access, userId, ownership) };
  },
});
