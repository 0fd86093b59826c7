import { pending } from "../../http/pending";
import { defineRoute } from "../../http/routes";

/** SPEC.md 4.3: whether the user's auth record is owned by this target, another one, or nobody. */
export const authOwnershipStatus = defineRoute({
  method: "get",
  path: "/user/:userId/auth-ownership-status",
  anyOf: ["ADMIN", "MANAGE_PEOPLE"],
  feature: "PEOPLE_MANAGEMENT",
  handle: pending("Auth ownership status"),
});
