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
  /** The caller's own grants node by node, as `chain` (none while their record is soft-deleted): where their authority starts. */
  grantsByNode: readonly ReadonlySet<Permission>[];
  /** The caller holds grants here, but their own user record on a node of the chain is soft-deleted: every grant is void. */
  callerSoftDeleted?: boolean;
}

// --- Pure rules (DESIGN.md, "Target paths, permissions and flags") -----------------------------

/** The union of the grants on every node of the chain. Unknown permission names are ignored. */
export function effectivePermissions(grants: readonly unknown[]): Set<Permission> {
  const known = new Set<string>(PERMISSIONS);
  return new Set(grants.flatMap((g) => (Array.isArray(g) ? g : [])).filter((p): p is Permission => known.has(p)));
}

/** A user's grants node by node (as `Access.grantsByNode`), from their members documents on the chain. */
export const grantsOf = (members: readonly DocumentSnapshot[]): Set<Permission>[] => members.map((member) => effectivePermissions([member.get("permissions") as unknown]));

/** The nearest explicit boolean for `feature`, walking up from the target; off by default. */
export function featureEnabled(chain: readonly TargetNode[], feature: Feature): boolean {
  for (let i = chain.length - 1; i >= 0; i--) {
    const value = (chain[i].data.features as Record<string, unknown> | undefined)?.[feature];
    if (typeof value === "boolean") return value;
  }
  return false;
}

/** Throws the 401 of SPEC.md when the caller lacks every permission of `anyOf`, or the flag is off. */
export function authorize(access: Pick<Access, "chain" | "permissions" | "callerSoftDeleted">, anyOf: readonly Permission[], feature?: Feature): void {
  if (access.callerSoftDeleted) throw new HttpError(401, "Your user record here is deleted, which voids your permissions on this target.");
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

/** The organization of a tenant (null: a standalone tenant; undefined: no such tenant, never remembered). */
async function organizationOfTenant(tenantId: string): Promise<string | null | undefined> {
  const cached = tenantOrganization.get(tenantId);
  if (cached !== undefined) return cached;
  const tenant = await firestoreCall(() => db().doc(`tenants/${tenantId}`).get());
  if (!tenant.exists) return undefined;
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

/** Users have records in organizations and tenants only (DESIGN.md, Firestore layout). */
const holdsUserRecords = (path: string) => /^(organizations|tenants)\/[^/]+$/.test(path);

/**
 * Reads the target chain, the caller's grants and own user records on every node of it and the
 * documents of `reads` in one `getAll` (inside `tx` when given, so that a route that writes sees the
 * same state it was authorized on), and returns what authorization and the handler need.
 *
 * - A soft-deleted record of the caller on any node of the chain voids every grant of the request.
 * - A target that does not exist, or is not where its path says (a parent that does not hold its
 *   child), is a 404 only for a caller holding a grant somewhere on the chain. Anybody else gets the
 *   same answer as on an existing target they have no grant on (no permissions: authorization's 401),
 *   so that the service is no oracle of which targets exist or belong together.
 */
export async function resolveAccess(target: Target, uid: string, reads: (chainPaths: readonly string[]) => readonly string[] = () => [], tx?: Transaction, retried = false): Promise<Resolution> {
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
  const recordPaths = chainPaths.filter(holdsUserRecords).map((p) => `${p}/users/${uid}`);
  const paths = [...chainPaths, ...chainPaths.map((p) => `${p}/members/${uid}`), ...recordPaths, ...reads(chainPaths)];
  const refs = paths.map((p) => firestore.doc(p));
  const snapshots = await firestoreCall(() => (tx ? tx.getAll(...refs) : firestore.getAll(...refs)));
  const n = chainPaths.length;
  const nodes = snapshots.slice(0, n);
  const softDeleted = snapshots.slice(2 * n, 2 * n + recordPaths.length).some((record) => record.get("deletedAt") != null);
  const ownGrants = grantsOf(snapshots.slice(n, 2 * n));
  const grantsByNode = softDeleted ? ownGrants.map(() => new Set<Permission>()) : ownGrants;
  const granted = new Set(ownGrants.flatMap((grants) => [...grants]));
  const permissions = softDeleted ? new Set<Permission>() : granted;
  const chain = nodes.map((s, i) => ({ path: chainPaths[i], data: s.data() ?? {} }));
  const access: Access = { target, path: targetDocPath(target), chain, permissions, grantsByNode, callerSoftDeleted: softDeleted && granted.size > 0 };
  const docs = snapshots.slice(2 * n + recordPaths.length);
  const unknownTarget = (): Resolution => {
    if (permissions.size === 0) return { access, docs: [] }; // authorization refuses it as it would an existing target
    throw notFound(notFoundMessage(target));
  };

  if (target.kind === "tenant" || target.kind === "division") {
    const tenant = nodes[organizationId ? 1 : 0];
    const actualOrganization = tenant.exists ? ((tenant.get("organizationId") as string | null | undefined) ?? null) : undefined;
    if (tenant.exists && actualOrganization !== (organizationId ?? null)) {
      // The path named another organization (404), or the remembered one is stale: look again once.
      if (target.organizationId || retried) return unknownTarget();
      tenantOrganization.set(target.tenantId, actualOrganization ?? null);
      return resolveAccess(target, uid, reads, tx, true);
    }
  }
  if (nodes.some((s) => !s.exists)) return unknownTarget();
  return { access, docs };
}
