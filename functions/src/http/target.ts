import { assertValidId } from "./ids";

/**
 * The target a request is scoped to (SPEC.md section 1). Every route is registered once per form,
 * so Express does the matching and each form's ids arrive as named path parameters.
 */
export type Target =
  | { kind: "organization"; organizationId: string }
  | { kind: "tenant"; organizationId?: string; tenantId: string }
  | { kind: "division"; organizationId?: string; tenantId: string; divisionId: string }
  | { kind: "site"; siteId: string };

/** The six path forms of SPEC.md, in Express syntax, with the kind of target each addresses. */
export const TARGET_FORMS: readonly { kind: Target["kind"]; path: string }[] = [
  { kind: "site", path: "/site/:siteId" },
  { kind: "tenant", path: "/tenant/:tenantId" },
  { kind: "division", path: "/tenant/:tenantId/division/:divisionId" },
  { kind: "organization", path: "/organization/:organizationId" },
  { kind: "tenant", path: "/organization/:organizationId/tenant/:tenantId" },
  { kind: "division", path: "/organization/:organizationId/tenant/:tenantId/division/:divisionId" },
];

const LABELS = { organizationId: "organization id", tenantId: "tenant id", divisionId: "division id", siteId: "site id" } as const;

/**
 * Builds the target from the path parameters of whichever form matched, validating each id
 * (400 naming the bad one).
 */
export function targetFromParams(params: Record<string, unknown>): Target {
  const param = (name: keyof typeof LABELS) => {
    const value = params[name];
    return typeof value === "string" ? assertValidId(LABELS[name], value) : undefined;
  };
  const [organizationId, tenantId, divisionId, siteId] = (["organizationId", "tenantId", "divisionId", "siteId"] as const).map(param);
  if (siteId !== undefined) return { kind: "site", siteId };
  if (tenantId !== undefined && divisionId !== undefined) {
    return { kind: "division", tenantId, divisionId, ...(organizationId !== undefined && { organizationId }) };
  }
  if (tenantId !== undefined) return { kind: "tenant", tenantId, ...(organizationId !== undefined && { organizationId }) };
  if (organizationId !== undefined) return { kind: "organization", organizationId };
  throw new Error("targetFromParams: no target parameters; the route was not registered through TARGET_FORMS");
}

/** The Firestore document path of a target (DESIGN.md, Firestore layout). */
export function targetDocPath(target: Target): string {
  switch (target.kind) {
    case "organization":
      return `organizations/${target.organizationId}`;
    case "tenant":
      return `tenants/${target.tenantId}`;
    case "division":
      return `tenants/${target.tenantId}/divisions/${target.divisionId}`;
    case "site":
      return `sites/${target.siteId}`;
  }
}
