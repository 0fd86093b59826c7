/**
 * The tenant isolation matrix, generated: every route x every target form x every kind of caller x
 * the PEOPLE_MANAGEMENT flag off and on. The expected status of each case is computed from the
 * rules (SPEC.md section 5, DESIGN.md "Target paths, permissions and flags"), never written by hand:
 * 401 without credentials, without a permission the route accepts on the target's chain, or with
 * the route's flag off (nearest explicit value up the chain, default off); then 400 for a target
 * kind the route does not serve; otherwise the route's success. Every answer, success or not, must
 * hold no id of a target outside the requested target's chain; every success must have acted on
 * the requested target only (checked, then undone, so that each case starts from the same state).
 *
 * Two more classes, generated the same way: callers whose own user record is soft-deleted on the
 * organization or tenant of the chain (every grant void: 401), and target paths that do not resolve
 * (unknown ids, a tenant under another organization, a division of another tenant) for every caller:
 * 404 only for a caller with a grant somewhere on the path's chain, otherwise the 401 of an existing
 * target (no existence oracle).
 *
 * The fixture is this file's own (ids carry a per-run suffix), independent of the demo data.
 */
import { createHash } from "node:crypto";
import { STATUS_CODES } from "node:http";
import { FieldValue, Timestamp } from "firebase-admin/firestore";
import { getStorage } from "firebase-admin/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUCKET, URLS } from "../../stack/config";
import { stackAdminApp, seedStack } from "../../stack/seedStack";
import { firestore } from "../api/fixtures";
import { idTokenFor } from "../helpers";
import { layoutLines } from "../print/popplerText";
import { basic, diffSnapshots, errorBodyProblem, rawRequest, runId, snapshotFirestore, type RawResponse } from "./support";

type Permission = "READ" | "MANAGE_FORM" | "MANAGE_OBJECTS" | "MANAGE_PEOPLE" | "ADMIN";
const PERMISSIONS: readonly Permission[] = ["READ", "MANAGE_FORM", "MANAGE_OBJECTS", "MANAGE_PEOPLE", "ADMIN"];
type Kind = "organization" | "tenant" | "division" | "site";

// --- The fixture: two organizations, three tenants, two divisions, two sites ------------------------

const r = runId();
const PASSWORD = `iso-password-${r}`;

interface TargetNode {
  key: NodeKey;
  id: string;
  kind: Kind;
  /** Firestore document path. */
  path: string;
  parent?: NodeKey;
}
type NodeKey = "O1" | "T1" | "D1" | "T2" | "D2" | "O2" | "T3" | "S1" | "S2";

const id = (label: string) => `iso-${label}-${r}`;
const NODES: Record<NodeKey, TargetNode> = {
  O1: { key: "O1", id: id("org"), kind: "organization", path: `organizations/${id("org")}` },
  T1: { key: "T1", id: id("tenant"), kind: "tenant", path: `tenants/${id("tenant")}`, parent: "O1" },
  D1: { key: "D1", id: id("division"), kind: "division", path: `tenants/${id("tenant")}/divisions/${id("division")}`, parent: "T1" },
  T2: { key: "T2", id: id("sibling"), kind: "tenant", path: `tenants/${id("sibling")}`, parent: "O1" },
  D2: { key: "D2", id: id("sibdiv"), kind: "division", path: `tenants/${id("tenant")}/divisions/${id("sibdiv")}`, parent: "T1" },
  O2: { key: "O2", id: id("otherorg"), kind: "organization", path: `organizations/${id("otherorg")}` },
  T3: { key: "T3", id: id("othertenant"), kind: "tenant", path: `tenants/${id("othertenant")}`, parent: "O2" },
  S1: { key: "S1", id: id("site"), kind: "site", path: `sites/${id("site")}` },
  S2: { key: "S2", id: id("othersite"), kind: "site", path: `sites/${id("othersite")}` },
};
const ALL_NODES = Object.values(NODES);

/** The node and its ancestors, root first. */
function chain(key: NodeKey): TargetNode[] {
  const node = NODES[key];
  return node.parent ? [...chain(node.parent), node] : [node];
}

/** The six target forms of SPEC.md, all addressing the same organization, tenant, division or site. */
const FORMS: { path: string; node: NodeKey }[] = [
  { path: `/organization/${NODES.O1.id}`, node: "O1" },
  { path: `/organization/${NODES.O1.id}/tenant/${NODES.T1.id}`, node: "T1" },
  { path: `/organization/${NODES.O1.id}/tenant/${NODES.T1.id}/division/${NODES.D1.id}`, node: "D1" },
  { path: `/tenant/${NODES.T1.id}`, node: "T1" },
  { path: `/tenant/${NODES.T1.id}/division/${NODES.D1.id}`, node: "D1" },
  { path: `/site/${NODES.S1.id}`, node: "S1" },
];

/** Target paths that do not resolve, with the existing organizations and tenants their resolution reads. */
const UNKNOWN_FORMS: { path: string; chain: NodeKey[]; why: string }[] = [
  { path: `/organization/${NODES.O1.id}/tenant/${NODES.T3.id}`, chain: ["O1", "T3"], why: "a tenant of another organization" },
  { path: `/organization/${id("nowhere")}/tenant/${NODES.T1.id}`, chain: ["T1"], why: "an unknown organization above an existing tenant" },
  { path: `/tenant/${NODES.T2.id}/division/${NODES.D1.id}`, chain: ["O1", "T2"], why: "a division of another tenant" },
  { path: `/tenant/${NODES.T1.id}/division/${id("nowhere")}`, chain: ["O1", "T1"], why: "an unknown division" },
  { path: `/organization/${id("nowhere")}`, chain: [], why: "an unknown organization" },
  { path: `/tenant/${id("nowhere")}`, chain: [], why: "an unknown tenant" },
  { path: `/site/${id("nowhere")}`, chain: [], why: "an unknown site" },
];

// --- Callers ----------------------------------------------------------------------------------------

interface Caller {
  label: string;
  /** Absent: no credentials at all. */
  uid?: string;
  email?: string;
  grants: Partial<Record<NodeKey, readonly Permission[]>>;
  /** Organizations and tenants where the caller's own user record is soft-deleted. */
  deletedOn?: NodeKey[];
}

const user = (label: string, grants: Caller["grants"]): Caller => {
  const uid = `iso-${r}-${label.toLowerCase().replace(/_/g, "-")}`;
  return { label, uid, email: `${uid}@iso.test`, grants };
};
const ANONYMOUS: Caller = { label: "no credentials", grants: {} };
const NOBODY = user("nobody", {});
/** One user per single permission per node that a form targets. */
const SINGLE = Object.fromEntries(
  (["O1", "T1", "D1", "S1"] as const).flatMap((node) => PERMISSIONS.map((p) => [`${p}@${node}`, user(`${p}-${node}`, { [node]: [p] })])),
) as Record<string, Caller>;
/** Outsiders hold every permission, which is strictly more than ADMIN alone. */
const OUTSIDERS = Object.fromEntries((["T2", "O2", "D2", "S2"] as const).map((node) => [node, user(`all-${node}`, { [node]: PERMISSIONS })])) as Record<
  "T2" | "O2" | "D2" | "S2",
  Caller
>;
/** Callers with every permission whose own user record is soft-deleted where they hold it: nothing is left. */
const DELETED = {
  org: { ...user("deleted-in-O1", { O1: PERMISSIONS }), deletedOn: ["O1"] as NodeKey[] },
  tenant: { ...user("deleted-in-T1", { T1: PERMISSIONS }), deletedOn: ["T1"] as NodeKey[] },
  // Granted on the tenant, deleted in its organization: a deletion above a grant voids it too.
  above: { ...user("granted-T1-deleted-in-O1", { T1: PERMISSIONS }), deletedOn: ["O1"] as NodeKey[] },
};
const USERS = [NOBODY, ...Object.values(SINGLE), ...Object.values(OUTSIDERS), ...Object.values(DELETED)];

const CHILD: Partial<Record<NodeKey, NodeKey>> = { O1: "T1", T1: "D1" };

/** The callers of one form, each with what they are to the target. */
function callersOf(node: NodeKey): { relation: string; caller: Caller }[] {
  const target = NODES[node];
  const ancestors = chain(node).slice(0, -1).reverse();
  const callers = [
    { relation: "no credentials", caller: ANONYMOUS },
    { relation: "no grant", caller: NOBODY },
    ...PERMISSIONS.map((p) => ({ relation: `${p} on the target`, caller: SINGLE[`${p}@${node}`] })),
    ...ancestors.map((a, i) => ({ relation: `ADMIN on the ${i === 0 ? "parent" : "grandparent"} ${a.kind}`, caller: SINGLE[`ADMIN@${a.key}`] })),
    ...(CHILD[node] ? [{ relation: `ADMIN on a child ${NODES[CHILD[node]!].kind}`, caller: SINGLE[`ADMIN@${CHILD[node]}`] }] : []),
    { relation: "every permission on a sibling tenant", caller: OUTSIDERS.T2 },
    { relation: "every permission on another organization", caller: OUTSIDERS.O2 },
  ];
  if (target.kind === "division") callers.push({ relation: "every permission on a sibling division", caller: OUTSIDERS.D2 });
  if (target.kind === "site") callers.push({ relation: "every permission on another site", caller: OUTSIDERS.S2 });
  if (["O1", "T1", "D1"].includes(node)) callers.push({ relation: "every permission on the organization, own record deleted there", caller: DELETED.org });
  if (["T1", "D1"].includes(node)) {
    callers.push({ relation: "every permission on the tenant, own record deleted there", caller: DELETED.tenant });
    callers.push({ relation: "every permission on the tenant, own record deleted in its organization", caller: DELETED.above });
  }
  return callers;
}

// --- The flag: off (explicitly at the organization, by default on the site) and on (inherited) -----

interface FlagState {
  name: "off" | "on";
  /** `features` of the nodes the matrix changes; others keep their seeded value. */
  features: Partial<Record<NodeKey, Record<string, boolean>>>;
}
const FLAG_STATES: FlagState[] = [
  { name: "off", features: { O1: { PEOPLE_MANAGEMENT: false }, S1: {} } },
  { name: "on", features: { O1: { PEOPLE_MANAGEMENT: true }, S1: { PEOPLE_MANAGEMENT: true } } },
];
/** Seeded features: outsiders have the flag on, so that it never is what refuses them. */
const SEEDED_FEATURES: Record<NodeKey, Record<string, boolean>> = {
  O1: {}, T1: {}, D1: {}, S1: {}, T2: { PEOPLE_MANAGEMENT: true }, D2: {}, O2: { PEOPLE_MANAGEMENT: true }, T3: {}, S2: { PEOPLE_MANAGEMENT: true },
};

// --- Routes -----------------------------------------------------------------------------------------

const SUBJECT = { status: `iso-status-${r}`, restore: `iso-restore-${r}`, delete: `iso-delete-${r}`, claim: `iso-claim-${r}`, release: `iso-release-${r}` };
const INSTANCE = "iso-doc";
const RECIPIENT = `iso-${r}@example.test`;

interface MatrixRoute {
  name: string;
  function: "api" | "print";
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  suffix: string;
  anyOf: readonly Permission[];
  feature?: "PEOPLE_MANAGEMENT";
  kinds?: readonly Kind[];
  success: number;
  body?: unknown;
  /** A file sent as the body instead of JSON. */
  upload?: { contentType: string; bytes: Buffer };
  /**
   * Routes whose effects others would see (a logo changes what print draws; PUT print-settings
   * replaces the logo setting) share a lane: their cases run one after another.
   */
  lane?: string;
  /**
   * A rule of the handler beyond the route's permissions: on the prepared state (which no caller of
   * the matrix made), only these permissions succeed; the others get a 401 matching `message`.
   */
  handlerAllows?: { anyOf: readonly Permission[]; message: RegExp };
  /** The answer may name targets below the requested one (an audit trail includes them). */
  seesBelow?: boolean;
  /** Before the cases of a form: puts the state a success needs. */
  prepare?(node: TargetNode): Promise<void>;
  /** After a success: checks its body and effect, then puts the state back. */
  verify(res: RawResponse, node: TargetNode, caller: Caller): Promise<string | undefined>;
}

const USER_KINDS: readonly Kind[] = ["organization", "tenant"];
const db = () => firestore();
const userRecord = (node: TargetNode, uid: string) => db().doc(`${node.path}/users/${uid}`);
const ownership = (uid: string) => db().doc(`authOwnership/${uid}`);
const DELETED_AT = Timestamp.fromDate(new Date("2026-06-01T10:00:00Z"));
const record = (uid: string, deleted: boolean) => ({ email: `${uid}@iso.test`, displayName: uid, deletedAt: deleted ? DELETED_AT : null });
/** The content type and bytes a route's cases send, if any. */
const sent = (route: MatrixRoute) => route.upload ?? (route.body === undefined ? undefined : { contentType: "application/json", bytes: Buffer.from(JSON.stringify(route.body)) });
/** A 1 x 1 PNG. */
const TINY_PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
/**
 * The PDF the verify route's cases send (unsigned: what matters is its SHA-256), recorded as printed
 * by every target of the fixture, each record naming its own target: only the requested target's may
 * answer.
 */
const VERIFIED_PDF = Buffer.from(`%PDF-1.7\n% isolation ${r}\n%%EOF\n`);
const VERIFIED_SHA256 = createHash("sha256").update(VERIFIED_PDF).digest("hex");
const printedRecord = (node: { path: string }) => ({ storagePath: `generated-pdfs/${node.path}/${INSTANCE}/isolation.pdf`, objectInstanceId: INSTANCE, printedAt: Timestamp.now(), expireAt: Timestamp.fromMillis(Date.now() + 86_400_000) });
const same = (actual: unknown, expected: unknown, what: string) => (JSON.stringify(actual) === JSON.stringify(expected) ? undefined : `${what}: ${JSON.stringify(actual)}`);

/**
 * The print templates of the fixture: `iso-tpl` and `iso-delete` on every target, `iso-root` on the
 * roots only (organizations and sites: inherited below them). Each is named after its target, so
 * that an answer holding another target's template names that target.
 */
const TEMPLATE_AT = "2026-01-01T00:00:00Z";
const templateFields = (node: TargetNode, id: string) => ({ name: `Isolation ${id} of ${node.id}`, objectTypeNames: ["Isolation"], footer: { left: `Isolation ${id} of ${node.id}` }, version: 1 });
const storedTemplate = (node: TargetNode, id: string) => ({ ...templateFields(node, id), updatedAt: Timestamp.fromDate(new Date(TEMPLATE_AT)), updatedBy: "iso" });
const TEMPLATE_PUT = `iso-put-${r}`;

const ROUTES: MatrixRoute[] = [
  {
    name: "auth-ownership-status",
    function: "api",
    method: "GET",
    suffix: `/user/${SUBJECT.status}/auth-ownership-status`,
    anyOf: ["ADMIN", "MANAGE_PEOPLE"],
    feature: "PEOPLE_MANAGEMENT",
    kinds: USER_KINDS,
    success: 200,
    // Owned by the sibling tenant: the answer says "another tenant" and must not say which.
    verify: async (res) => same(res.json, { message: res.json?.message, data: { userId: SUBJECT.status, isLinkedToCurrentTenant: false, isUnclaimed: false } }, "body"),
  },
  {
    name: "restore",
    function: "api",
    method: "POST",
    suffix: `/user/${SUBJECT.restore}/restore`,
    anyOf: ["ADMIN"],
    feature: "PEOPLE_MANAGEMENT",
    kinds: USER_KINDS,
    success: 201,
    async verify(res, node, caller) {
      const doc = (await userRecord(node, SUBJECT.restore).get()).data();
      await userRecord(node, SUBJECT.restore).set(record(SUBJECT.restore, true));
      return same(res.json, { statusCode: 201, data: true, message: res.json?.message }, "body") ?? same([doc?.deletedAt, doc?.restoredBy], [null, caller.uid], "record");
    },
  },
  {
    name: "soft delete",
    function: "api",
    method: "DELETE",
    suffix: `/user/${SUBJECT.delete}`,
    anyOf: ["ADMIN"],
    feature: "PEOPLE_MANAGEMENT",
    kinds: USER_KINDS,
    success: 200,
    async verify(res, node, caller) {
      const doc = (await userRecord(node, SUBJECT.delete).get()).data();
      await userRecord(node, SUBJECT.delete).set(record(SUBJECT.delete, false));
      return same(res.json, { statusCode: 200, data: true, message: res.json?.message }, "body") ?? same([doc?.deletedAt instanceof Timestamp, doc?.deletedBy], [true, caller.uid], "record");
    },
  },
  {
    name: "roles",
    function: "api",
    method: "GET",
    suffix: "/roles",
    anyOf: ["ADMIN"],
    kinds: USER_KINDS,
    success: 200,
    verify: async (res, node) => same(res.json?.data?.map((role: { id: string }) => role.id), [0, 1, 2].map((i) => `${node.id}-role-${i}`), "role ids"),
  },
  {
    name: "claim",
    function: "api",
    method: "POST",
    suffix: `/user/${SUBJECT.claim}/claim-auth-ownership`,
    anyOf: ["ADMIN", "MANAGE_PEOPLE"],
    feature: "PEOPLE_MANAGEMENT",
    kinds: USER_KINDS,
    success: 200,
    async verify(res, node, caller) {
      const doc = (await ownership(SUBJECT.claim).get()).data();
      await ownership(SUBJECT.claim).delete();
      return (
        same(res.json, { statusCode: 200, data: { userId: SUBJECT.claim, isLinkedToCurrentTenant: true, isUnclaimed: false }, message: res.json?.message }, "body") ??
        same([doc?.ownerPath, doc?.claimedBy], [node.path, caller.uid], "ownership")
      );
    },
  },
  {
    name: "release",
    function: "api",
    method: "POST",
    suffix: `/user/${SUBJECT.release}/release-auth-ownership`,
    anyOf: ["ADMIN", "MANAGE_PEOPLE"],
    feature: "PEOPLE_MANAGEMENT",
    kinds: USER_KINDS,
    success: 200,
    prepare: async (node) => void (await ownership(SUBJECT.release).set({ ownerPath: node.path, claimedAt: Timestamp.now() })),
    async verify(res, node) {
      const released = !(await ownership(SUBJECT.release).get()).exists;
      await ownership(SUBJECT.release).set({ ownerPath: node.path, claimedAt: Timestamp.now() });
      return (
        same(res.json, { statusCode: 200, data: { userId: SUBJECT.release, isLinkedToCurrentTenant: false, isUnclaimed: true }, message: res.json?.message }, "body") ??
        same(released, true, "released")
      );
    },
  },
  {
    name: "print",
    lane: "print settings and what uses them",
    function: "print",
    method: "POST",
    suffix: "/print",
    anyOf: ["READ", "MANAGE_FORM", "MANAGE_OBJECTS", "ADMIN"],
    success: 201,
    body: { objectInstanceId: INSTANCE },
    async verify(res, node) {
      const path = String(res.json?.data?.storagePath);
      if (!path.startsWith(`generated-pdfs/${node.path}/${INSTANCE}/`)) return `storagePath ${path}`;
      // The instance shows its own target's picture and names another target's: only its own is in the
      // PDF (one image and its soft mask).
      const [pdf] = await getStorage(stackAdminApp()).bucket(BUCKET).file(path).download();
      const images = pdf.toString("latin1").match(/\/Subtype\s*\/Image/g)?.length ?? 0;
      return images === 2 ? undefined : `${images} image objects in the PDF (want 2: its own picture and mask)`;
    },
  },
  {
    name: "print-jobs",
    lane: "print jobs",
    function: "print",
    method: "POST",
    suffix: "/print-jobs",
    anyOf: ["READ", "MANAGE_FORM", "MANAGE_OBJECTS", "ADMIN"],
    success: 202,
    body: { objectInstanceIds: [INSTANCE] },
    // The job is the target's own; it is removed at once (its queued chunk then finds no job and does nothing).
    async verify(res, node) {
      const jobId = String(res.json?.data?.jobId);
      const job = db().doc(`${node.path}/printJobs/${jobId}`);
      const stored = (await job.get()).data();
      await Promise.all([job.delete(), job.collection("chunks").doc("00000").delete()]);
      return same([res.json?.data?.status, res.json?.data?.total, stored?.total, stored?.createdBy !== undefined], ["queued", 1, 1, true], "job");
    },
  },
  {
    name: "print-job status",
    lane: "print jobs",
    function: "print",
    method: "GET",
    suffix: `/print-jobs/iso-job-${r}`,
    anyOf: ["READ", "MANAGE_FORM", "MANAGE_OBJECTS", "ADMIN"],
    success: 200,
    prepare: async (node) =>
      void (await db()
        .doc(`${node.path}/printJobs/iso-job-${r}`)
        .set({ status: "succeeded", total: 1, chunks: 1, output: "zip", settings: {}, targetName: node.id, createdBy: "iso", createdAt: Timestamp.now(), finishedAt: Timestamp.now(), done: 1, failed: 0, failures: [] })),
    verify: async (res) => same([res.json?.data?.jobId, res.json?.data?.status], [`iso-job-${r}`, "succeeded"], "job"),
  },
  {
    name: "print-jobs list",
    lane: "print jobs",
    function: "print",
    method: "GET",
    suffix: "/print-jobs?limit=100",
    anyOf: ["READ", "MANAGE_FORM", "MANAGE_OBJECTS", "ADMIN"],
    success: 200,
    // Only the target's own jobs (the status row's prepared job among them), never another's.
    async verify(res, node) {
      const own = new Set((await db().collection(`${node.path}/printJobs`).get()).docs.map((d) => d.id));
      const listed = ((res.json?.data ?? []) as { jobId: string }[]).map((j) => j.jobId);
      return listed.length > 0 && listed.every((id) => own.has(id)) ? undefined : `listed ${JSON.stringify(listed)}`;
    },
    prepare: async (node) => void (await db().doc(`${node.path}/printJobs/iso-list-${r}`).set({ status: "succeeded", total: 1, chunks: 0, output: "zip", createdAt: Timestamp.now(), done: 1, failed: 0 })),
  },
  {
    name: "print-job cancel",
    lane: "print jobs",
    function: "print",
    method: "POST",
    suffix: `/print-jobs/iso-cancel-${r}/cancel`,
    anyOf: ["READ", "MANAGE_FORM", "MANAGE_OBJECTS", "ADMIN"],
    // A job is its creator's or an ADMIN's to cancel (printJobs.stack.test.ts: its creator may).
    handlerAllows: { anyOf: ["ADMIN"], message: /^Only the user who started this print job, or an ADMIN of the target, can cancel it\.$/ },
    success: 200,
    prepare: async (node) => void (await db().doc(`${node.path}/printJobs/iso-cancel-${r}`).set({ status: "queued", active: true, total: 1, chunks: 0, output: "zip", createdAt: Timestamp.now() })),
    async verify(res, node) {
      const job = db().doc(`${node.path}/printJobs/iso-cancel-${r}`);
      const status = (await job.get()).get("status");
      await job.set({ status: "queued", active: true, total: 1, chunks: 0, output: "zip", createdAt: Timestamp.now() });
      return same([res.json?.data?.status, status], ["cancelled", "cancelled"], "cancelled");
    },
  },
  {
    name: "print-settings",
    function: "api",
    method: "GET",
    suffix: "/print-settings",
    anyOf: ["ADMIN"],
    success: 200,
    // Every value comes from the target, a target above it, or the default: never from elsewhere.
    verify: async (res, node) => {
      const onChain = new Set(chain(node.key).map((n) => n.path));
      const sources = Object.values((res.json?.data?.sources ?? {}) as Record<string, string>);
      return sources.length === 9 && sources.every((source) => source === "default" || onChain.has(source)) ? undefined : `sources ${JSON.stringify(sources)}`;
    },
  },
  ...(["PUT", "PATCH"] as const).map(
    (method): MatrixRoute => ({
      name: `${method.toLowerCase()} print-settings`,
      lane: "print settings and what uses them",
      function: "api",
      method,
      suffix: "/print-settings",
      anyOf: ["ADMIN"],
      success: 200,
      body: { footerText: "isolation" },
      async verify(res, node) {
        const saved = (await db().doc(node.path).get()).get("print.footerText");
        await db().doc(node.path).update({ print: FieldValue.delete() });
        return same([res.json?.data?.own?.footerText, saved], ["isolation", "isolation"], "own footer text");
      },
    }),
  ),
  {
    name: "put print-settings logo",
    lane: "print settings and what uses them",
    function: "api",
    method: "PUT",
    suffix: "/print-settings/logo",
    anyOf: ["ADMIN"],
    success: 200,
    upload: { contentType: "image/png", bytes: TINY_PNG },
    // Stored in the target's own uploads folder, and named by its own settings only.
    async verify(res, node) {
      const path = String(res.json?.data?.own?.logo);
      const saved = (await db().doc(node.path).get()).get("print.logo");
      const file = getStorage(stackAdminApp()).bucket(BUCKET).file(path);
      const [exists] = await file.exists();
      await Promise.all([db().doc(node.path).update({ print: FieldValue.delete() }), exists ? file.delete() : undefined]);
      return same([path.startsWith(`uploads/${node.path}/print-settings/logo-`), saved, exists], [true, path, true], "own logo");
    },
  },
  {
    name: "print-templates",
    lane: "print templates",
    function: "api",
    method: "GET",
    suffix: "/print-templates",
    anyOf: ["ADMIN"],
    success: 200,
    // Exactly the templates of the target and the targets above it, nearest first, by id within a target.
    verify: async (res, node) => {
      const want = chain(node.key)
        .reverse()
        .flatMap((n) => [...(n.parent ? [] : ["iso-root"]), "iso-delete", "iso-tpl"].sort().map((id) => [id, n.path, n.key === node.key]));
      return same(((res.json?.data ?? []) as { templateId: string; source: string; own: boolean }[]).map((t) => [t.templateId, t.source, t.own]), want, "templates");
    },
  },
  {
    name: "print-template",
    lane: "print templates",
    function: "api",
    method: "GET",
    suffix: "/print-templates/iso-root",
    anyOf: ["ADMIN"],
    success: 200,
    // Held by the root of the target's chain only: inherited from there.
    verify: async (res, node) => {
      const root = chain(node.key)[0];
      const data = res.json?.data;
      return same([data?.templateId, data?.name, data?.source, data?.own], ["iso-root", templateFields(root, "iso-root").name, root.path, root.key === node.key], "template");
    },
  },
  {
    name: "put print-template",
    lane: "print templates",
    function: "api",
    method: "PUT",
    suffix: `/print-templates/${TEMPLATE_PUT}`,
    anyOf: ["ADMIN"],
    success: 200,
    body: { name: "Isolation put", objectTypeNames: ["Isolation"] },
    // Saved as the target's own, by the caller; removed at once (the snapshot shows any other write).
    async verify(res, node, caller) {
      const ref = db().doc(`${node.path}/printTemplates/${TEMPLATE_PUT}`);
      const stored = (await ref.get()).data();
      await ref.delete();
      return (
        same([res.json?.data?.source, res.json?.data?.own, res.json?.data?.version], [node.path, true, 1], "answer") ??
        same([stored?.name, stored?.version, stored?.updatedBy], ["Isolation put", 1, caller.uid], "stored")
      );
    },
  },
  {
    name: "delete print-template",
    lane: "print templates",
    function: "api",
    method: "DELETE",
    suffix: "/print-templates/iso-delete",
    anyOf: ["ADMIN"],
    success: 200,
    // The target's own is gone (and put back as it was); the targets above it keep theirs.
    async verify(res, node) {
      const ref = db().doc(`${node.path}/printTemplates/iso-delete`);
      const gone = !(await ref.get()).exists;
      await ref.set(storedTemplate(node, "iso-delete"));
      return same(res.json?.data, { templateId: "iso-delete", version: 1 }, "answer") ?? same(gone, true, "deleted");
    },
  },
  {
    name: "preview",
    lane: "print templates",
    function: "print",
    method: "POST",
    suffix: "/preview",
    anyOf: ["READ", "MANAGE_FORM", "MANAGE_OBJECTS", "ADMIN"],
    success: 200,
    body: { objectInstanceId: INSTANCE, templateId: "iso-tpl" },
    // The target's own template (its footer names the target), as a PDF; nothing stored.
    verify: async (res, node) => {
      const text = layoutLines(res.bytes).join("\n");
      return same([res.headers["content-type"], text.includes(`Isolation iso-tpl of ${node.id}`), (text.match(/Isolation iso-tpl of /g) ?? []).length], ["application/pdf", true, 1], "preview");
    },
  },
  {
    name: "verify",
    function: "print",
    method: "POST",
    suffix: "/verify",
    anyOf: ["READ", "MANAGE_FORM", "MANAGE_OBJECTS", "ADMIN"],
    success: 200,
    upload: { contentType: "application/pdf", bytes: VERIFIED_PDF },
    prepare: async () => void (await Promise.all(ALL_NODES.map((n) => db().doc(`${n.path}/printedPdfs/${VERIFIED_SHA256}`).set(printedRecord(n))))),
    // Issued by the target itself, by its own record: the answer names its own path, never another's.
    verify: async (res, node) =>
      same(res.json?.data, { signed: false, valid: false, coversWholeDocument: false, signedAt: null, signer: null, issuedHere: true, objectInstanceId: INSTANCE, storagePath: printedRecord(node).storagePath }, "verify"),
  },
  {
    name: "audit-events",
    function: "api",
    method: "GET",
    suffix: "/audit-events?limit=100",
    anyOf: ["ADMIN"],
    success: 200,
    seesBelow: true,
    // Only events of the target and the targets below it, whatever the other lanes are changing meanwhile.
    verify: async (res, node) => {
      const subtree = new Set(ALL_NODES.filter((n) => chain(n.key).some((c) => c.key === node.key)).map((n) => n.path));
      const outside = ((res.json?.data ?? []) as { target: string }[]).filter((e) => !subtree.has(e.target));
      return Array.isArray(res.json?.data) && outside.length === 0 ? undefined : `events outside ${node.path} and the targets below it: ${JSON.stringify(outside.map((e) => e.target))}`;
    },
  },
  {
    name: "send-pdf",
    lane: "print settings and what uses them",
    function: "print",
    method: "POST",
    suffix: "/send-pdf",
    anyOf: ["READ", "MANAGE_FORM", "MANAGE_OBJECTS", "ADMIN"],
    success: 200,
    body: { objectInstanceId: INSTANCE, to: RECIPIENT },
    verify: async (res, node) =>
      res.json?.data?.recipients === 1 && String(res.json?.data?.storagePath).startsWith(`generated-pdfs/${node.path}/${INSTANCE}/`) ? undefined : `data ${JSON.stringify(res.json?.data)}`,
  },
];

// --- The oracle -------------------------------------------------------------------------------------

function featureOn(node: NodeKey, flag: FlagState, feature: string): boolean {
  for (const n of chain(node).reverse()) {
    const value = (flag.features[n.key] ?? SEEDED_FEATURES[n.key])[feature];
    if (typeof value === "boolean") return value;
  }
  return false;
}

/** What the rules say the answer is, and why (for 401 and 400, a pattern its message must match). */
function expected(route: MatrixRoute, node: NodeKey, caller: Caller, flag: FlagState): { status: number; message?: RegExp } {
  if (!caller.uid) return { status: 401, message: /Authentication required/ };
  if (chain(node).some((n) => caller.deletedOn?.includes(n.key))) return { status: 401, message: /user record here is deleted/ };
  const held = new Set(chain(node).flatMap((n) => caller.grants[n.key] ?? []));
  if (!route.anyOf.some((p) => held.has(p))) return { status: 401, message: /needs (the [A-Z_]+ permission|one of the permissions [A-Z_, ]+) on the target/ };
  if (route.feature && !featureOn(node, flag, route.feature)) return { status: 401, message: new RegExp(`needs the ${route.feature} feature`) };
  if (route.kinds && !route.kinds.includes(NODES[node].kind)) return { status: 400, message: /serves organization and tenant targets only/ };
  if (route.handlerAllows && !route.handlerAllows.anyOf.some((p) => held.has(p))) return { status: 401, message: route.handlerAllows.message };
  return { status: route.success };
}

/** The rules for a path that does not resolve: 404 only for a caller with a grant on its chain (and no deleted record there). */
function expectedUnknown(form: (typeof UNKNOWN_FORMS)[number], caller: Caller): { status: number; message: RegExp } {
  if (!caller.uid) return { status: 401, message: /Authentication required/ };
  const granted = form.chain.some((key) => (caller.grants[key] ?? []).length > 0);
  if (granted && form.chain.some((key) => caller.deletedOn?.includes(key))) return { status: 401, message: /user record here is deleted/ };
  if (granted) return { status: 404, message: /does not exist|^No (tenant|division) / };
  return { status: 401, message: /needs (the [A-Z_]+ permission|one of the permissions [A-Z_, ]+) on the target/ };
}

// --- Seeding ----------------------------------------------------------------------------------------

/** A picture in a target's own uploads folder. */
const pictureOf = (node: TargetNode) => `uploads/${node.path}/isolation-${node.id}.png`;

function fixtureDocuments(): Record<string, Record<string, unknown>> {
  const docs: Record<string, Record<string, unknown>> = {};
  for (const node of ALL_NODES) {
    const organizationId = node.kind === "tenant" ? NODES[node.parent!].id : undefined;
    docs[node.path] = { name: `Isolation ${node.key} ${node.id}`, features: SEEDED_FEATURES[node.key], ...(node.kind === "tenant" && { organizationId }) };
    // Its own picture, and one of another target that exists too (tenant isolation of picture paths).
    const other = ALL_NODES.find((n) => n.key !== node.key)!;
    docs[`${node.path}/objectInstances/${INSTANCE}`] = {
      title: `Isolation document of ${node.id}`,
      objectTypeName: "Isolation",
      sections: [
        {
          title: "Owner",
          fields: [
            { label: "Target", type: "text", value: node.id },
            { label: "Own picture", type: "signature", value: { storagePath: pictureOf(node) } },
            { label: "Another target's picture", type: "signature", value: { storagePath: pictureOf(other) } },
          ],
        },
      ],
    };
  }
  for (const caller of USERS) {
    for (const [key, permissions] of Object.entries(caller.grants)) docs[`${NODES[key as NodeKey].path}/members/${caller.uid}`] = { permissions };
    for (const key of caller.deletedOn ?? []) docs[`${NODES[key].path}/users/${caller.uid}`] = { ...record(caller.uid!, true), deletedAt: { $timestamp: DELETED_AT.toDate().toISOString() } };
  }
  // Users and roles live in organizations and tenants; the sibling holds the same subjects, so that a
  // request that reached the wrong target would show.
  for (const key of ["O1", "T1", "T2"] as const) {
    const node = NODES[key];
    for (const [route, uid] of Object.entries(SUBJECT)) {
      docs[`${node.path}/users/${uid}`] = { ...record(uid, route === "restore"), deletedAt: route === "restore" ? { $timestamp: DELETED_AT.toDate().toISOString() } : null };
    }
    for (const i of [0, 1, 2]) {
      docs[`${node.path}/roles/${node.id}-role-${i}`] = { name: `Role ${i}`, description: `of ${node.id}`, permissions: ["READ"], createdAt: { $timestamp: "2026-01-01T00:00:00Z" } };
    }
  }
  docs[`authOwnership/${SUBJECT.status}`] = { ownerPath: NODES.T2.path, claimedAt: { $timestamp: "2026-01-01T00:00:00Z" } };
  for (const node of ALL_NODES) {
    for (const id of [...(node.parent ? [] : ["iso-root"]), "iso-tpl", "iso-delete"]) {
      docs[`${node.path}/printTemplates/${id}`] = { ...templateFields(node, id), updatedAt: { $timestamp: TEMPLATE_AT }, updatedBy: "iso" };
    }
  }
  return docs;
}

// --- The run ----------------------------------------------------------------------------------------

interface Outcome {
  cases: number;
  byStatus: Map<number, number>;
  failures: string[];
}

describe("tenant isolation matrix (generated from the rules)", () => {
  const bearer = new Map<string, string>();
  let baseline: Map<string, string>;

  beforeAll(async () => {
    const pictures = Object.fromEntries(ALL_NODES.map((node) => [pictureOf(node), { kind: "signature" as const, text: node.id, width: 120, height: 40, hue: 0 }]));
    await seedStack({ users: USERS.map((u) => ({ uid: u.uid!, email: u.email!, password: PASSWORD })), documents: fixtureDocuments(), pictures });
    await Promise.all(USERS.map(async (u) => bearer.set(u.uid!, await idTokenFor(u.email!, PASSWORD))));
    baseline = await snapshotFirestore();
  }, 120_000);

  afterAll(async () => {
    await mailSinkClear();
  });

  it("answers every case as the rules say, and no answer names a target outside the requested chain", async () => {
    const outcome: Outcome = { cases: 0, byStatus: new Map(), failures: [] };
    let sequence = 0;

    const runCase = async (route: MatrixRoute, form: (typeof FORMS)[number], relation: string, caller: Caller, flag: FlagState) => {
      const node = NODES[form.node];
      const want = expected(route, form.node, caller, flag);
      const n = sequence++;
      const headers: Record<string, string> = {};
      // Half the cases authenticate with an ID token, half with email:password.
      if (caller.uid) headers.authorization = n % 2 === 0 ? basic(caller.email!, PASSWORD) : `Bearer ${bearer.get(caller.uid)}`;
      const body = sent(route);
      if (body) headers["content-type"] = body.contentType;
      const base = route.function === "api" ? `${URLS.api}` : `${URLS.print}`;
      const res = await rawRequest({
        method: route.method,
        origin: base,
        path: `/${route.function}${form.path}${route.suffix}`,
        headers,
        body: body?.bytes,
      });
      outcome.cases++;
      outcome.byStatus.set(res.status, (outcome.byStatus.get(res.status) ?? 0) + 1);

      const where = `${route.name} ${form.path} by ${relation} (${caller.label}), flag ${flag.name}`;
      const problems: string[] = [];
      if (res.status !== want.status) problems.push(`status ${res.status}, expected ${want.status}: ${res.text.slice(0, 200)}`);
      else if (want.message) {
        const problem = errorBodyProblem(res);
        if (problem) problems.push(problem);
        else if (!want.message.test(res.json.message)) problems.push(`message '${res.json.message}' does not match ${want.message}`);
      } else {
        const problem = await route.verify(res, node, caller);
        if (problem) problems.push(problem);
      }
      const below = route.seesBelow ? ALL_NODES.filter((n) => chain(n.key).some((c) => c.key === form.node)) : [];
      const visible = new Set([...chain(form.node), ...below].map((n) => n.id));
      const leaked = ALL_NODES.filter((n) => !visible.has(n.id) && res.text.includes(n.id)).map((n) => n.key);
      if (leaked.length > 0) problems.push(`the answer names ${leaked.join(", ")}: ${res.text.slice(0, 300)}`);
      if (problems.length > 0) outcome.failures.push(`${where}: ${problems.join("; ")}`);
    };

    const started = Date.now();
    for (const flag of FLAG_STATES) {
      await Promise.all(Object.entries(flag.features).map(([key, features]) => db().doc(NODES[key as NodeKey].path).update({ features })));
      // One lane per route or group of routes (each route has its own subject user, and routes that
      // share state share a lane, so lanes never share state); within a lane, cases run one after another.
      const lanes = Map.groupBy(ROUTES, (route) => route.lane ?? route.name);
      await Promise.all(
        [...lanes.values()].map(async (routes) => {
          for (const route of routes) {
            for (const form of FORMS) {
              await route.prepare?.(NODES[form.node]);
              for (const { relation, caller } of callersOf(form.node)) await runCase(route, form, relation, caller, flag);
            }
          }
        }),
      );
    }
    const seconds = (Date.now() - started) / 1000;

    // Put back what the matrix itself changed (the flag, the released subject's owner); then the
    // whole layout must equal the snapshot taken before the first case.
    await Promise.all(Object.keys(FLAG_STATES[0].features).map((key) => db().doc(NODES[key as NodeKey].path).update({ features: SEEDED_FEATURES[key as NodeKey] })));
    await ownership(SUBJECT.release).delete();
    const changes = diffSnapshots(baseline, await snapshotFirestore());

    const callerForms = FORMS.reduce((sum, f) => sum + callersOf(f.node).length, 0);
    const statuses = [...outcome.byStatus].sort(([a], [b]) => a - b).map(([s, c]) => `${c} x ${s} ${STATUS_CODES[s]}`);
    console.log(
      `Tenant isolation matrix: ${outcome.cases} cases = ${ROUTES.length} routes x ${callerForms} (target form, caller) pairs ` +
        `[${FORMS.length} forms, ${Math.min(...FORMS.map((f) => callersOf(f.node).length))}-${Math.max(...FORMS.map((f) => callersOf(f.node).length))} callers each] x ${FLAG_STATES.length} flag states, ` +
        `in ${seconds.toFixed(1)} s: ${statuses.join(", ")}.`,
    );
    expect(outcome.cases).toBe(ROUTES.length * callerForms * FLAG_STATES.length);
    expect(outcome.failures).toEqual([]);
    expect(changes).toEqual([]);
    // Every kind of answer the rules allow occurred, so no branch of the oracle went untested.
    for (const status of [200, 201, 400, 401]) expect(outcome.byStatus.get(status) ?? 0).toBeGreaterThan(0);
  }, 600_000);

  it("answers paths that do not resolve as the rules say: 404 only for callers with a grant on the chain, else the 401 of an existing target", async () => {
    const callers: Caller[] = [ANONYMOUS, NOBODY, SINGLE["ADMIN@O1"], SINGLE["READ@T1"], SINGLE["ADMIN@D1"], SINGLE["ADMIN@S1"], OUTSIDERS.T2, OUTSIDERS.O2, ...Object.values(DELETED)];
    const failures: string[] = [];
    const byStatus = new Map<number, number>();
    let n = 0;
    // One lane at a time per group, as in the matrix: the functions emulator starts a worker per request in flight.
    await Promise.all(
      [...Map.groupBy(ROUTES, (route) => route.lane ?? route.name).values()].map(async (lane) => {
        for (const route of lane) {
          for (const form of UNKNOWN_FORMS) {
            for (const caller of callers) {
              const want = expectedUnknown(form, caller);
              const headers: Record<string, string> = {};
              if (caller.uid) headers.authorization = n++ % 2 === 0 ? basic(caller.email!, PASSWORD) : `Bearer ${bearer.get(caller.uid)}`;
              const body = sent(route);
              if (body) headers["content-type"] = body.contentType;
              const res = await rawRequest({
                method: route.method,
                origin: route.function === "api" ? URLS.api : URLS.print,
                path: `/${route.function}${form.path}${route.suffix}`,
                headers,
                body: body?.bytes,
              });
              byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1);
              const where = `${route.name} ${form.path} (${form.why}) by ${caller.label}`;
              const problem = res.status !== want.status ? `status ${res.status}, expected ${want.status}: ${res.text.slice(0, 200)}` : (errorBodyProblem(res) ?? (want.message.test(res.json.message) ? undefined : `message '${res.json.message}'`));
              const leaked = ALL_NODES.filter((node) => !form.path.includes(node.id) && res.text.includes(node.id)).map((node) => node.key);
              if (problem) failures.push(`${where}: ${problem}`);
              if (leaked.length > 0) failures.push(`${where}: the answer names ${leaked.join(", ")}`);
            }
          }
        }
      }),
    );
    const statuses = [...byStatus].sort(([a], [b]) => a - b).map(([status, count]) => `${count} x ${status}`);
    console.log(`Unknown and inconsistent targets: ${ROUTES.length} routes x ${UNKNOWN_FORMS.length} paths x ${callers.length} callers: ${statuses.join(", ")}.`);
    expect(failures).toEqual([]);
    expect(byStatus.get(404) ?? 0).toBeGreaterThan(0);
    expect(byStatus.get(401) ?? 0).toBeGreaterThan(0);
  }, 300_000);
});

async function mailSinkClear(): Promise<void> {
  await rawRequest({ method: "DELETE", origin: URLS.mailSink, path: "/messages" });
}
