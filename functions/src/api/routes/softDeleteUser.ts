import { pending } from "../../http/pending";
import { defineRoute } from "../../http/routes";

/** The soft delete that restore undoes (SPEC.md leaves it outside; issue 5 specifies it). */
export const softDeleteUser = defineRoute({
  method: "delete",
  path: "/user/:userId",
  anyOf: ["ADMIN"],
  feature: "PEOPLE_MANAGEMENT",
  handle: pending("Soft-deleting a user"),
});
