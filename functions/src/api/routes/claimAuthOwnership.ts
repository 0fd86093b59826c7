import { pending } from "../../http/pending";
import { defineRoute } from "../../http/routes";

/** SPEC.md 4.6: the target takes ownership of an unclaimed auth record. */
export const claimAuthOwnership = defineRoute({
  method: "post",
  path: "/user/:userId/claim-auth-ownership",
  anyOf: ["ADMIN", "MANAGE_PEOPLE"],
  feature: "PEOPLE_MANAGEMENT",
  handle: pending("Claiming auth ownership"),
});
