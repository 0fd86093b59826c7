import type { DocumentSnapshot, Timestamp } from "firebase-admin/firestore";
import { z } from "zod";
import { db, firestoreSdk } from "../../firebase";
import { firestoreCall } from "../../http/deadline";
import { defineRoute } from "../../http/routes";
import { intParam } from "../../http/validation";

/** Paging of the role list: whole numbers only; unknown parameters are refused. */
const listRolesQuery = z.strictObject({
  limit: intParam(1, 200, 50),
  offset: intParam(0, 10_000, 0),
});

/** A role as the API shows it: `createdAt` as an ISO 8601 string. */
const roleSchema = z.strictObject({
  id: z.string().meta({ examples: ["role-003"] }),
  name: z.string().meta({ examples: ["Auditor"] }),
  description: z.string(),
  permissions: z.array(z.string()).meta({ examples: [["READ"]] }),
  createdAt: z.iso.datetime().nullable(),
});
export type Role = z.infer<typeof roleSchema>;

function toRole(doc: DocumentSnapshot): Role {
  const createdAt = doc.get("createdAt") as Timestamp | undefined;
  return {
    id: doc.id,
    name: String(doc.get("name") ?? ""),
    description: String(doc.get("description") ?? ""),
    permissions: Array.isArray(doc.get("permissions")) ? (doc.get("permissions") as string[]) : [],
    createdAt: typeof createdAt?.toDate === "function" ? createdAt.toDate().toISOString() : null,
  };
}

/** SPEC.md 4.5: the roles of an organization or tenant, by name then id, paged. */
export const listRoles = defineRoute({
  method: "get",
  path: "/roles",
  summary: "List the roles of an organization or tenant, by name then id, paged",
  anyOf: ["ADMIN"],
  targets: ["organization", "tenant"],
  query: listRolesQuery,
  load: ({ path, query: { limit, offset } }) =>
    firestoreCall(() => db().collection(`${path}/roles`).orderBy("name").orderBy(firestoreSdk().FieldPath.documentId()).offset(offset).limit(limit).get()),
  response: {
    status: 200,
    description: "One page of roles.",
    schema: z.strictObject({ statusCode: z.literal(200), message: z.string(), data: z.array(roleSchema) }),
  },
  async handle({ loaded: page }) {
    return { statusCode: 200 as const, message: `${page.size} role(s).`, data: page.docs.map(toRole) };
  },
});
