import { FieldPath, type DocumentSnapshot, type Timestamp } from "firebase-admin/firestore";
import { z } from "zod";
import { db } from "../../firebase";
import { countBackendCall } from "../../http/requestContext";
import { defineRoute } from "../../http/routes";
import { intParam } from "../../http/validation";

/** Paging of the role list: whole numbers only; unknown parameters are refused. */
const listRolesQuery = z.strictObject({
  limit: intParam(1, 200, 50),
  offset: intParam(0, 10_000, 0),
});

/** A role as the API shows it (issue 5): `createdAt` as an ISO 8601 string. */
export interface Role {
  id: string;
  name: string;
  description: string;
  permissions: string[];
  createdAt: string | null;
}

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
  anyOf: ["ADMIN"],
  targets: ["organization", "tenant"],
  query: listRolesQuery,
  async handle({ access, query: { limit, offset }, res }) {
    countBackendCall("firestore");
    const page = await db().collection(`${access.path}/roles`).orderBy("name").orderBy(FieldPath.documentId()).offset(offset).limit(limit).get();
    res.status(200).json({ statusCode: 200, message: `${page.size} role(s).`, data: page.docs.map(toRole) });
  },
});
