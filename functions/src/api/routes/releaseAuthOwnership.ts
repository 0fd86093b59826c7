import { pending } from "../../http/pending";
import { defineRoute } from "../../http/routes";

/** SPEC.md 4.6: the target gives up ownership of an auth record it owns. */
export const releaseAuthOwnership = defineRoute({
  method: "post",
  path: "/user/:userId/release-auth-ownership",
  anyOf: ["ADMIN", "MANAGE_PEOPLE"],
  feature: "PEOPLE_MANAGEMENT",
  handle: pending("Releasing auth ownership"),
});
