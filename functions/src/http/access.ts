import type { DocumentData, DocumentSnapshot, Transaction } from "firebase-admin/firestore";
import { db } from "../firebase";
import { HttpError, notFound } from "./errors";
import { firestoreCall } from "./deadline";
import { targetDocPath, type Target } from "./target";
import { TtlCache } from "./ttlCache";

export const PERMISSIONS = ["READ", "MANAGE_FORM", "MANAGE_OBJECTS", "MANAGE_PEOPLE", "ADMIN"] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const FEATURES = ["PEOPLE_MANAGEMENT"] as const;
export type Feature = (typeof FEATURES)[number];

/** One target document of the hierarchy, root first: organization > tenant > division, or a site. */
export interface TargetNode {
  path: string;
  data: DocumentData;
}

/** What the pipeline knows about the caller on the target once it is resolved. */
export interface Access {
  target: Target;
  /** Document path of the target itself, e.g. `tenants/acme-north/divisions/ops`. */
  path: string;
  /** The target and its ancestors, root first. */
  chain: TargetNode[];
  /** The caller's grants on the target and its ancestors (a grant applies to everything below it). */
  permissions: ReadonlySet<Permission>;
}

// --- Pure rules (DESIGN.md, "Target paths, permissions and flags") -----------------------------

/** The union of the grants on every node of the chain. Unknown permission names are ignored. */
export function effectivePermissions(grants: readonly unknown[]): Set<Permission> {
  const known = new Set<string>(PERMISSIONS);
  return new Set(grants.flatMap((g) => (Array.isArray(g) ? g : [])).filter((p): p is Permission => known.has(p)));
}

/** The nearest explicit boolean for `feature`, walking up from the target; off by default. */
export function featureEnabled(chain: readonly TargetNode[], feature: Feature): boolean {
  for (let i = chain.length - 1; i >= 0; i--) {
    const value = (chain[i].data.features as Record<string, unknown> | undefined)?.[feature];
    if (typeof value === "boolean") return value;
  }
  return false;
}

/** Throws the 401 of SPEC.md when the caller lacks every permission of `anyOf`, or the flag is off. */
export function authorize(access: Pick<Access, "chain" | "permissions">, anyOf: readonly Permission[], feature?: Feature): void {
  if (!anyOf.some((p) => access.permissions.has(p))) {
    const needed = anyOf.length === 1 ? `the ${anyOf[0]} permission` : `one of the permissions ${anyOf.join(", ")}`;
    throw new HttpError(401, `This route needs ${needed} on the target.`);
  }
  if (feature && !featureEnabled(access.chain, feature)) {
    throw new HttpError(401, `This route needs the ${feature} feature, which is not enabled for the target.`);
  }
}

// --- Resolution against Firestore -------------------------------------------------------------

/**
 * How long a tenant's organization is remembered. A `/tenant/T` path does not name T's
 * organization, whose grants and flags apply to T; remembering it keeps the common case at one
 * Firestore round trip. Moving a tenant to another organization takes effect within this time.
 */
export const TENANT_ORGANIZATION_TTL_MS = 60_000;
const tenantOrganization = new TtlCache<string | null>(TENANT_ORGANIZATION_TTL_MS);

async function organizationOfTenant(tenantId: string): Promise<string | null> {
  const cached = tenantOrganization.get(tenantId);
  if (cached !== undefined) return cached;
  const tenant = await firestoreCall(() => db().doc(`tenants/${tenantId}`).get());
  if (!tenant.exists) throw notFound(`Tenant '${tenantId}' does not exist.`);
  const organizationId = typeof tenant.get("organizationId") === "string" ? (tenant.get("organizationId") as string) : null;
  tenantOrganization.set(tenantId, organizationId);
  return organizationId;
}

/** The 404 message for a target that does not exist, or is not where its path says it is. */
function notFoundMessage(target: Target): string {
  switch (target.kind) {
    case "organization":
      return `Organization '${target.organizationId}' does not exist.`;
    case "site":
      return `Site '${target.siteId}' does not exist.`;
    case "tenant":
      return target.organizationId
        ? `No tenant '${target.tenantId}' in organization '${target.organizationId}'.`
        : `Tenant '${target.tenantId}' does not exist.`;
    case "division":
      return `No division '${target.divisionId}' in tenant '${target.tenantId}'${target.organizationId ? ` of organization '${target.organizationId}'` : ""}.`;
  }
}

/** The target resolved for the caller, and the documents the route asked to read with it. */
export interface Resolution {
  access: Access;
  /** Snapshots of the route's `reads`, in their order. */
  docs: DocumentSnapshot[];
}

/**
 * Reads the target chain, the caller's grants on every node of it and the documents of `reads` in
 * one `getAll` (inside `tx` when given, so that a route that writes sees the same state it was
 * authorized on), checks that each named parent really holds its child (404 otherwise, as for an
 * unknown target), and returns what authorization and the handler need.
 */
export async function resolveAccess(target: Target, uid: string, reads: readonly string[] = [], tx?: Transaction, retried = false): Promise<Resolution> {
  let organizationId: string | null | undefined;
  if (target.kind === "organization") organizationId = target.organizationId;
  else if (target.kind === "tenant" || target.kind === "division") {
    organizationId = target.organizationId ?? (await organizationOfTenant(target.tenantId));
  }

  const chainPaths: string[] = [];
  if (organizationId) chainPaths.push(`organizations/${organizationId}`);
  if (target.kind === "tenant" || target.kind === "division") chainPaths.push(`tenants/${target.tenantId}`);
  if (target.kind === "division" || target.kind === "site") chainPaths.push(targetDocPath(target));

  const firestore = db();
  const refs = [...chainPaths, ...chainPaths.map((p) => `${p}/members/${uid}`), ...reads].map((p) => firestore.doc(p));
  const snapshots = await firestoreCall(() => (tx ? tx.getAll(...refs) : firestore.getAll(...refs)));
  const nodes = snapshots.slice(0, chainPaths.length);
  const grants = snapshots.slice(chainPaths.length, 2 * chainPaths.length).map((s) => s.get("permissions") as unknown);

  if (target.kind === "tenant" || target.kind === "division") {
    const tenant = nodes[organizationId ? 1 : 0];
    const actualOrganization = tenant.exists ? ((tenant.get("organizationId") as string | null | undefined) ?? null) : undefined;
    if (tenant.exists && actualOrganization !== (organizationId ?? null)) {
      // The path named another organization (404), or the remembered one is stale: look again once.
      if (target.organizationId || retried) throw notFound(notFoundMessage(target));
      tenantOrganization.set(target.tenantId, actualOrganization ?? null);
      return resolveAccess(target, uid, reads, tx, true);
    }
  }
  if (nodes.some((s) => !s.exists)) throw notFound(notFoundMessage(target));

  const access: Access = {
    target,
    path: targetDocPath(target),
    chain: nodes.map((s, i) => ({ path: chainPaths[i], data: s.data() ?? {} })),
    permissions: effectivePermissions(grants),
  };
  return { access, docs: snapshots.slice(2 * chainPaths.length) };
}
