import { z } from "zod";
import { pending } from "../../http/pending";
import { defineRoute } from "../../http/routes";
import { intParam } from "../../http/validation";

/** Paging of the role list: whole numbers only; unknown parameters are refused. */
const listRolesQuery = z.strictObject({
  limit: intParam(1, 200, 50),
  offset: intParam(0, 10_000, 0),
});

/** SPEC.md 4.5: the roles of an organization or tenant, paged. */
export const listRoles = defineRoute({
  method: "get",
  path: "/roles",
  anyOf: ["ADMIN"],
  query: listRolesQuery,
  handle: pending("Listing roles"),
});
