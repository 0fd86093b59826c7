import { pending } from "../../http/pending";
import { defineRoute } from "../../http/routes";

/** SPEC.md 4.4: restores a soft-deleted user of the target. */
export const restoreUser = defineRoute({
  method: "post",
  path: "/user/:userId/restore",
  anyOf: ["ADMIN"],
  feature: "PEOPLE_MANAGEMENT",
  handle: pending("Restoring a user"),
});
