/**
 * Hostile input, property-based (fast-check), sent to the running functions (their own URLs).
 *
 * Each generated request starts from a request that would succeed (a valid route, target, body and
 * credentials of this file's own fixture) and applies at least one change that must make it fail:
 * a hostile target or user id, a broken path, a wrong method, hostile query parameters, a hostile
 * body, broken credentials; harmless noise (spoofed request ids, forwarded headers, duplicate
 * headers, odd origins) rides along. Every answer must be a 4xx: the service's JSON error
 * `{ statusCode, error, message }`, or, where the platform in front of the function rejects the
 * request before our code runs, exactly that platform's answer (classified below, README
 * "Decisions"). Never a 5xx, never a hang, never a stack trace, never the credentials sent back;
 * and afterwards Firestore, the bucket's generated-pdfs/ and the mail sink are as they were.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { URLS } from "../../stack/config";
import { seedStack } from "../../stack/seedStack";
import { basic, diffSnapshots, errorBodyProblem, mailSink, rawRequest, runId, snapshotBucket, snapshotFirestore, STACK_TRACE, type RawResponse } from "./support";

// --- This file's fixture ----------------------------------------------------------------------------

const r = runId();
const H = { org: `hx-org-${r}`, tenant: `hx-tenant-${r}`, division: `hx-division-${r}`, site: `hx-site-${r}` };
const PASSWORD = `hx-password-${r}`;
const ADMIN = { uid: `hx-admin-${r}`, email: `hx-admin-${r}@hx.test` };
const NOBODY = { uid: `hx-nobody-${r}`, email: `hx-nobody-${r}@hx.test` };
/** The account whose password the generated requests guess: the sign-in limit locks it, never ADMIN. */
const GUESSED = { uid: `hx-guessed-${r}`, email: `hx-guessed-${r}@hx.test` };
const USER = `hx-user-${r}`;
const INSTANCE = "hx-doc";
/** A print job of each target, cancelled: reading it changes nothing, and cancelling it again answers 200 and changes nothing. */
const JOB = "hx-job";
/**
 * Print templates: one on the organization (read through the targets below it, which inherit it and
 * cannot delete it), the id a PUT would create, and an id held nowhere (what DELETE names: it passes
 * every check but the state, so no change of method or id can make it delete anything).
 */
const TEMPLATE = { inherited: "hx-tpl", put: "hx-put", absent: "hx-absent" };
const TEMPLATE_BODY = { name: "Hostile", objectTypeNames: ["T"] };
/** Ids a hostile id must never be: with them a request could be valid. */
const FIXTURE_IDS = new Set<string>([...Object.values(H), USER, INSTANCE, JOB, ...Object.values(TEMPLATE), ADMIN.uid, NOBODY.uid, GUESSED.uid]);
const ALL = ["READ", "MANAGE_FORM", "MANAGE_OBJECTS", "MANAGE_PEOPLE", "ADMIN"];

const FIXTURE = {
  users: [
    { uid: ADMIN.uid, email: ADMIN.email, password: PASSWORD },
    { uid: NOBODY.uid, email: NOBODY.email, password: PASSWORD },
    { uid: GUESSED.uid, email: GUESSED.email, password: PASSWORD },
  ],
  documents: {
    [`organizations/${H.org}`]: { name: "Hostile org", features: { PEOPLE_MANAGEMENT: true } },
    [`organizations/${H.org}/members/${ADMIN.uid}`]: { permissions: ALL },
    [`organizations/${H.org}/members/${GUESSED.uid}`]: { permissions: ALL },
    [`organizations/${H.org}/users/${USER}`]: { email: `${USER}@hx.test`, deletedAt: null },
    [`organizations/${H.org}/printTemplates/${TEMPLATE.inherited}`]: { ...TEMPLATE_BODY, version: 1, updatedAt: { $timestamp: "2026-01-01T00:00:00Z" }, updatedBy: ADMIN.uid },
    [`tenants/${H.tenant}`]: { name: "Hostile tenant", organizationId: H.org, features: {} },
    [`tenants/${H.tenant}/users/${USER}`]: { email: `${USER}@hx.test`, deletedAt: null },
    [`tenants/${H.tenant}/roles/hx-role`]: { name: "Role", description: "", permissions: ["READ"], createdAt: { $timestamp: "2026-01-01T00:00:00Z" } },
    [`tenants/${H.tenant}/objectInstances/${INSTANCE}`]: { title: "Hostile", objectTypeName: "T", sections: [{ title: "S", fields: [{ label: "A", type: "text", value: "x" }] }] },
    [`tenants/${H.tenant}/divisions/${H.division}`]: { name: "Hostile division", features: {} },
    [`tenants/${H.tenant}/divisions/${H.division}/objectInstances/${INSTANCE}`]: { title: "Hostile", objectTypeName: "T", sections: [] },
    [`sites/${H.site}`]: { name: "Hostile site", features: { PEOPLE_MANAGEMENT: true } },
    [`sites/${H.site}/members/${ADMIN.uid}`]: { permissions: ALL },
    [`sites/${H.site}/objectInstances/${INSTANCE}`]: { title: "Hostile", objectTypeName: "T", sections: [] },
    ...Object.fromEntries(
      [`organizations/${H.org}`, `tenants/${H.tenant}`, `tenants/${H.tenant}/divisions/${H.division}`, `sites/${H.site}`].map((target) => [
        `${target}/printJobs/${JOB}`,
        { status: "cancelled", active: false, total: 1, chunks: 1, output: "zip", done: 0, failed: 0, failures: [], createdAt: { $timestamp: "2026-01-01T00:00:00Z" }, finishedAt: { $timestamp: "2026-01-01T00:01:00Z" } },
      ]),
    ),
  },
};
const ADMIN_BASIC = basic(ADMIN.email, PASSWORD);

// --- Requests ---------------------------------------------------------------------------------------

type RouteName =
  | "status"
  | "restore"
  | "delete"
  | "roles"
  | "claim"
  | "release"
  | "print"
  | "send-pdf"
  | "preview"
  | "audit-events"
  | "print-jobs"
  | "print-job"
  | "list-print-jobs"
  | "cancel-print-job"
  | "print-templates"
  | "print-template"
  | "put-print-template"
  | "delete-print-template"
  | "verify";

interface HostileRequest {
  route: RouteName;
  fn: "api" | "print";
  method: string;
  /** Path segments after /api or /print, as they go on the wire. */
  segments: string[];
  /** How many leading segments are the target form (its ids are at the odd positions). */
  formLength: number;
  query?: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
  /** What was done to it, for the failure report. */
  changes: string[];
}

const FORMS: Record<string, string[]> = {
  organization: ["organization", H.org],
  organizationTenant: ["organization", H.org, "tenant", H.tenant],
  organizationTenantDivision: ["organization", H.org, "tenant", H.tenant, "division", H.division],
  tenant: ["tenant", H.tenant],
  tenantDivision: ["tenant", H.tenant, "division", H.division],
  site: ["site", H.site],
};
const USER_FORMS = ["organization", "organizationTenant", "tenant"];
/** The forms below the organization: they inherit its template. */
const INHERITING_FORMS = ["organizationTenant", "organizationTenantDivision", "tenant", "tenantDivision"];

/** A PDF for POST verify (unsigned: it answers signed: false), the route's file body. */
const VERIFIED_PDF = Buffer.from("%PDF-1.7\n% hostile input\n%%EOF\n");

const ROUTES: Record<RouteName, { fn: "api" | "print"; method: string; suffix: string[]; query?: string; body?: unknown; upload?: { contentType: string; bytes: Buffer }; forms: string[] }> = {
  status: { fn: "api", method: "GET", suffix: ["user", USER, "auth-ownership-status"], forms: USER_FORMS },
  restore: { fn: "api", method: "POST", suffix: ["user", USER, "restore"], forms: USER_FORMS },
  delete: { fn: "api", method: "DELETE", suffix: ["user", USER], forms: USER_FORMS },
  roles: { fn: "api", method: "GET", suffix: ["roles"], query: "limit=5", forms: USER_FORMS },
  claim: { fn: "api", method: "POST", suffix: ["user", USER, "claim-auth-ownership"], forms: USER_FORMS },
  release: { fn: "api", method: "POST", suffix: ["user", USER, "release-auth-ownership"], forms: USER_FORMS },
  print: { fn: "print", method: "POST", suffix: ["print"], body: { objectInstanceId: INSTANCE }, forms: Object.keys(FORMS) },
  "send-pdf": { fn: "print", method: "POST", suffix: ["send-pdf"], body: { objectInstanceId: INSTANCE, to: "hx@example.test" }, forms: Object.keys(FORMS) },
  preview: { fn: "print", method: "POST", suffix: ["preview"], body: { objectInstanceId: INSTANCE }, forms: Object.keys(FORMS) },
  "audit-events": { fn: "api", method: "GET", suffix: ["audit-events"], query: "limit=5&action=pdf.printed", forms: Object.keys(FORMS) },
  "print-jobs": { fn: "print", method: "POST", suffix: ["print-jobs"], body: { objectInstanceIds: [INSTANCE] }, forms: Object.keys(FORMS) },
  "print-job": { fn: "print", method: "GET", suffix: ["print-jobs", JOB], forms: Object.keys(FORMS) },
  "list-print-jobs": { fn: "print", method: "GET", suffix: ["print-jobs"], query: "limit=5", forms: Object.keys(FORMS) },
  "cancel-print-job": { fn: "print", method: "POST", suffix: ["print-jobs", JOB, "cancel"], forms: Object.keys(FORMS) },
  "print-templates": { fn: "api", method: "GET", suffix: ["print-templates"], forms: Object.keys(FORMS) },
  "print-template": { fn: "api", method: "GET", suffix: ["print-templates", TEMPLATE.inherited], forms: INHERITING_FORMS },
  "put-print-template": { fn: "api", method: "PUT", suffix: ["print-templates", TEMPLATE.put], body: TEMPLATE_BODY, forms: Object.keys(FORMS) },
  "delete-print-template": { fn: "api", method: "DELETE", suffix: ["print-templates", TEMPLATE.absent], forms: Object.keys(FORMS) },
  verify: { fn: "print", method: "POST", suffix: ["verify"], upload: { contentType: "application/pdf", bytes: VERIFIED_PDF }, forms: Object.keys(FORMS) },
};
const ROUTE_NAMES = Object.keys(ROUTES) as RouteName[];
const ROUTE_WORDS = new Set(Object.values(ROUTES).flatMap((route) => route.suffix));

/** A request that would succeed (or, for restore, claim, release and delete-print-template, pass every check but the state). */
function validRequest(route: RouteName, form: string): HostileRequest {
  const spec = ROUTES[route];
  const headers: Record<string, string | string[]> = { authorization: ADMIN_BASIC };
  let body: Buffer | undefined;
  if (spec.body !== undefined) {
    headers["content-type"] = "application/json";
    body = Buffer.from(JSON.stringify(spec.body));
  }
  if (spec.upload) {
    headers["content-type"] = spec.upload.contentType;
    body = spec.upload.bytes;
  }
  return { route, fn: spec.fn, method: spec.method, segments: [...FORMS[form], ...spec.suffix], formLength: FORMS[form].length, query: spec.query, headers, body, changes: [] };
}

const templateArb = fc.constantFrom(...ROUTE_NAMES).chain((route) => fc.constantFrom(...ROUTES[route].forms).map((form) => ({ route, form })));

/** Percent-encodes every byte of the UTF-8 form except unreserved characters (lone surrogates become U+FFFD). */
const encode = (text: string) => [...Buffer.from(text, "utf8")].map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, "0")}`)).join("");

// --- Hostile ids (as path segments, on the wire) ------------------------------------------------------

const hostileId: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "..%2F..", "a%2Fb", "...", ".%2F.", "%2E%2E%2F", "%2F", "%5C", "a%5Cb", "__x__", "__", "____", "%5F%5Fx%5F%5F",
    "%00", "a%00b", "%0A", "%0D%0A", "%7F", "%1B%5B31m", "%20", "+", "%2B", "%25", "%3F", "%23", "%3B", "%3Cscript%3E", "%27%3B--", "%24%7B7*7%7D",
    "%EF%BB%BF", "%E2%80%AE", "%EF%BF%BE", "%F0%9F%92%A9", "%C3%A9", "acme-north", "solo", "harbor", "ops", "org-admin",
    "a".repeat(129), "a".repeat(1_500), encode("é".repeat(750)), encode("😀".repeat(375)), encode("\u0000".repeat(10)),
  ),
  fc.string({ unit: "binary", minLength: 1, maxLength: 40 }).map(encode),
  fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 60 }).map(encode),
  fc.integer({ min: 100, max: 3_000 }).map((n) => "x".repeat(n)),
  fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 10 }).map((s) => `__${encode(s)}__`),
).filter((id) => !FIXTURE_IDS.has(safeDecode(id) ?? "") && !isDotSegment(id));

/**
 * `.` and `..` segments (also written `%2e`): the platform resolves them before routing, as any URL
 * (README, Decisions), so they are not ids: the dot-segment property below covers them.
 */
function isDotSegment(segment: string): boolean {
  return [".", ".."].includes(segment.toLowerCase().replace(/%2e/g, "."));
}

/** Segments whose percent-encoding does not decode: the platform answers them (see classify). */
const undecodableSegment = fc.constantFrom("%", "%z", "%2", "%zz", "%E0%A4%A", "%FF", "%C0%AF", "%ED%A0%80", "a%", "%%", "%G1", "%C3");

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

// --- Changes that make a valid request fail ----------------------------------------------------------

type Change = (req: HostileRequest) => HostileRequest;
const change = (label: string, apply: (req: HostileRequest) => void): Change => (req) => {
  const next = { ...req, segments: [...req.segments], headers: { ...req.headers }, changes: [...req.changes, label] };
  apply(next);
  return next;
};

const targetIdChange = fc.tuple(hostileId, fc.nat()).map(([id, k]) =>
  change(`target id ${id.slice(0, 60)}`, (req) => {
    const positions = Array.from({ length: req.formLength / 2 }, (_, i) => 2 * i + 1);
    req.segments[positions[k % positions.length]] = id;
  }),
);

/** Path words followed by an id of the route's own. */
const ID_WORDS = ["user", "print-jobs", "print-templates"];
const userIdChange = hostileId.map((id) =>
  change(`user, job or template id ${id.slice(0, 60)}`, (req) => {
    // A PUT of a template creates whatever valid id it names: its id is no breaker, its target id is.
    const at = req.route === "put-print-template" ? -1 : req.segments.findIndex((segment, i) => i >= req.formLength && ID_WORDS.includes(segment) && i + 1 < req.segments.length);
    if (at >= 0) req.segments[at + 1] = id;
    else req.segments[1] = id; // routes without a user, job or template id: the target id instead
  }),
);

const undecodablePathChange = fc.tuple(undecodableSegment, fc.nat()).map(([segment, k]) =>
  change(`undecodable segment ${segment}`, (req) => {
    req.segments[k % req.segments.length] = segment;
  }),
);

const structureChange = fc.oneof(
  fc.constant(change("first segment after the target dropped", (req) => void req.segments.splice(req.formLength, 1))),
  // Never a word of a route's own path, which could undo a dropped segment.
  fc
    .oneof(hostileId, fc.constantFrom("x", "api", "print%2F", "roles%00"))
    .filter((extra) => !ROUTE_WORDS.has(safeDecode(extra) ?? extra))
    .map((extra) => change(`segment appended ${extra.slice(0, 40)}`, (req) => void req.segments.push(extra))),
  fc.constantFrom("tenants", "org", "divisions", "sites", "organisation", "user", "", "%74enant").map((kind) =>
    change(`target kind '${kind}'`, (req) => {
      req.segments[0] = kind;
    }),
  ),
  fc.constant(change("empty id segment", (req) => void (req.segments[1] = ""))),
  fc.constant(
    change("sent to the other function", (req) => {
      req.fn = ROUTES[req.route].fn === "api" ? "print" : "api";
    }),
  ),
);

const methodChange = fc.constantFrom("GET", "POST", "DELETE", "PUT", "PATCH").map((method) =>
  change(`method ${method}`, (req) => {
    const valid = ROUTES[req.route].method;
    req.method = method === valid ? (method === "GET" ? "PUT" : "PATCH") : method;
  }),
);

// Credentials that are not the fixture admin's. Duplicate headers put a broken one first: Node
// keeps the first Authorization header (a valid first one is noise, below).
const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
const brokenAuthorization: fc.Arbitrary<string | string[] | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom("", " ", "Bearer", "Bearer ", "Basic", "Basic ", "Negotiate abc", "Digest username=x", "bearer x.y.z", "Bearer a b", "Basic !!!", "Basic ===", "Basic Og==",
    `Basic ${b64("no-colon")}`, `Basic ${b64(":password")}`, `Basic ${b64(`${ADMIN.email}:`)}`, `Basic ${b64(`${GUESSED.email}:wrong-${r}`)}`, `Basic ${b64(`${GUESSED.email.toUpperCase()}:${PASSWORD}x`)}`,
    `Basic ${b64(`${NOBODY.email}:${PASSWORD}`)}`, // authenticated, no grant
    `Basic ${b64(`${ADMIN.email}\u0000:${PASSWORD}`)}`, `Basic ${b64(`${GUESSED.email}:${PASSWORD}\u0000`)}`,
    `Bearer ${b64('{"alg":"none"}')}.${b64(`{"sub":"${ADMIN.uid}","user_id":"${ADMIN.uid}"}`)}.`, "Bearer eyJhbGciOiJIUzI1NiJ9.e30.ZRrHA1JJJW8opsbCGfG_HACGpVUMN_a9IV7pAx_Zmeo"),
  fc.string({ unit: "grapheme-ascii", maxLength: 200 }).map((s) => s.replace(/[\r\n]/g, "")),
  fc.string({ unit: "grapheme-ascii", maxLength: 300 }).map((s) => `Bearer ${s.replace(/[\r\n]/g, "")}`),
  fc.tuple(fc.string({ unit: "binary", maxLength: 80 }), fc.string({ unit: "binary", maxLength: 80 })).map(([email, password]) => `Basic ${b64(`${email}:${password}`)}`),
  fc.tuple(fc.emailAddress(), fc.string({ minLength: 1, maxLength: 40 })).map(([email, password]) => `Basic ${b64(`${email}:${password}`)}`),
  fc.integer({ min: 1_000, max: 6_000 }).map((n) => `Bearer ${"A".repeat(n)}`),
  fc.integer({ min: 1_000, max: 4_000 }).map((n) => `Basic ${b64(`${"a".repeat(n)}@hx.test:${"p".repeat(n)}`)}`),
  fc.constant<string[]>([`Bearer broken-${r}`, ADMIN_BASIC]),
  fc.constant<string[]>(["Basic !!!", "Basic ???"]),
);
const credentialsChange = brokenAuthorization.map((value) =>
  change(`authorization ${JSON.stringify(value)?.slice(0, 80)}`, (req) => {
    if (value === undefined) delete req.headers.authorization;
    else req.headers.authorization = value;
  }),
);

/** A query value the roles route refuses (limit and offset are whole numbers in range). */
const badPagingValue = (max: number) =>
  fc.oneof(fc.string({ unit: "binary", maxLength: 30 }), fc.constantFrom("0", "-1", "1.5", "1e2", "0x10", " 5", "5 ", "", "NaN", "Infinity", "٣", "9".repeat(400)), fc.integer({ min: max + 1 }).map(String)).filter(
    (v) => !(/^\d+$/.test(v) && Number(v) >= (max === 10_000 ? 0 : 1) && Number(v) <= max),
  );
/**
 * The platform parses the query string (qs, as Express's "extended" parser) before our code and
 * drops keys named after Object.prototype members, so those are noise, not breakers (below).
 */
const PROTOTYPE_KEYS = new Set(Object.getOwnPropertyNames(Object.prototype));
/** Parameters some route accepts: a random key must not be one of them, or its request could be valid. */
const ACCEPTED_KEYS = new Set(["limit", "offset", "pageToken", "action", "subject", "since", "until"]);
const queryKey = fc.string({ unit: "binary", minLength: 1, maxLength: 30 }).filter((k) => !ACCEPTED_KEYS.has(k) && !PROTOTYPE_KEYS.has(k.split("[")[0]));
/** Query strings with at least one parameter that no route accepts. */
const queryChange = fc
  .tuple(
    fc.oneof(
      badPagingValue(200).map((v) => `limit=${encode(v)}`),
      badPagingValue(10_000).map((v) => `offset=${encode(v)}`),
      fc.tuple(queryKey, fc.string({ unit: "binary", maxLength: 30 })).map(([k, v]) => `${encode(k)}=${encode(v)}`),
      fc.constantFrom("limit=1&limit=2", "limit[]=5", "limit[a]=5", "offset[$gt]=0", "limit=%zz", "limit", "%00=%00", "%3D=1", "a[b][c][d][e][f][g]=1", "x[]=1&x[]=2", "limit=99999999999999999999"),
      // Times ISO 8601 takes and a Firestore timestamp cannot hold (the audit trail's filters; unknown elsewhere).
      fc.constantFrom("since=0000-01-01T00:00:00Z", "until=9999-12-31T23:59:59-01:00", "since=0000-12-31T23:59:59%2B01:00&until=0001-01-01T00:00:00Z"),
      fc.integer({ min: 1_001, max: 1_500 }).map((n) => Array.from({ length: n }, (_, i) => `k${i}=v`).join("&")),
    ),
    fc.array(fc.tuple(fc.constantFrom("limit", "offset", "x", "sort"), fc.string({ unit: "grapheme-ascii", maxLength: 8 })), { maxLength: 3 }),
  )
  .filter(([breaker]) => breaker.length <= 8_000)
  .map(([breaker, extra]) =>
    change(`query ${breaker.slice(0, 80)}`, (req) => {
      req.query = [breaker, ...extra.map(([k, v]) => `${k}=${encode(v)}`)].join("&");
    }),
  );

// Bodies. Every JSON value here is invalid for every route: no route takes a body but print,
// send-pdf, preview, print-jobs and PUT print-templates, and for those each value breaks the schema or names
// an instance that does not exist (print-jobs takes objectInstanceIds or filter, never
// objectInstanceId; a template has a name and objectTypeNames, and no other key these have). POST
// verify takes application/pdf alone: no plan below sends that type.
const deep = (depth: number, leaf: string, open: string, close: string) => `${open.repeat(depth)}${leaf}${close.repeat(depth)}`;
const invalidPayload: fc.Arbitrary<string> = fc.oneof(
  fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.jsonValue(), { maxLength: 3 }), fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }), fc.double())
    .map((v) => JSON.stringify({ objectInstanceId: v, to: "hx@example.test" }) ?? "{}"),
  hostileId.map((id) => JSON.stringify({ objectInstanceId: safeDecode(id) ?? id, to: "hx@example.test" })),
  fc.dictionary(fc.string({ minLength: 1 }).filter((k) => !["objectInstanceId", "to", "cc", "subject", "message", "fileName", "__proto__"].includes(k)), fc.jsonValue(), { minKeys: 1, maxKeys: 4 }).map((extra) =>
    JSON.stringify({ objectInstanceId: INSTANCE, to: "hx@example.test", ...extra }),
  ),
  fc.constantFrom(
    JSON.stringify({ to: "hx@example.test" }),
    JSON.stringify({ objectInstanceId: INSTANCE, to: "not-an-address" }),
    JSON.stringify({ objectInstanceId: INSTANCE, to: "a@example.com\r\nBcc: victim@example.com" }),
    JSON.stringify({ objectInstanceId: INSTANCE, to: "a@example.com", subject: "x\r\nBcc: victim@example.com" }),
    JSON.stringify({ objectInstanceId: INSTANCE, to: Array.from({ length: 11 }, (_, i) => `r${i}@example.com`) }),
    JSON.stringify({ objectInstanceId: INSTANCE, to: "a@example.com", fileName: "../../etc/passwd" }),
    JSON.stringify({ objectInstanceId: INSTANCE, __proto__: { admin: true }, constructor: { prototype: { x: 1 } } }),
    '{"objectInstanceId":"hx-doc","objectInstanceId":{"$ne":null}}',
    '{"objectInstanceId":"hx-doc","__proto__":{"admin":true}}',
    JSON.stringify([{ objectInstanceId: INSTANCE }]),
    "[]",
  ),
  fc.integer({ min: 100, max: 20_000 }).map((depth) => `{"objectInstanceId":${deep(depth, "1", "[", "]")}}`),
  fc.integer({ min: 100, max: 8_000 }).map((depth) => `{"objectInstanceId":"x","to":${deep(depth, "null", '{"a":', "}")}}`),
  fc.integer({ min: 1_000, max: 40_000 }).map((n) => JSON.stringify({ objectInstanceId: INSTANCE, to: Array(n).fill(0) })),
  fc.integer({ min: 1_000, max: 10_000 }).map((n) => JSON.stringify({ objectInstanceId: "x".repeat(n) })),
  fc.string({ unit: "binary", maxLength: 200 }).map((s) => JSON.stringify({ objectInstanceId: INSTANCE, to: "hx@example.test", subject: s, message: s, fileName: `${s}/` })),
  // Lone UTF-16 surrogates (JSON carries them as \ud800 escapes, UTF-8 cannot) in an otherwise valid send-pdf body, and deep down.
  fc
    .tuple(fc.constantFrom("\ud800", "\udfff", "a\ud83d", "\udc00b"), fc.constantFrom("objectInstanceId", "subject", "message", "cc"))
    .map(([lone, field]) => JSON.stringify({ objectInstanceId: INSTANCE, to: "hx@example.test", [field]: field === "objectInstanceId" ? `${INSTANCE}${lone}` : field === "cc" ? [`hx${lone}@example.test`] : `x${lone}` })),
  fc.integer({ min: 100, max: 8_000 }).map((depth) => `{"objectInstanceId":"x","to":${deep(depth, '"\\ud800"', '{"a":', "}")}}`),
);

interface BodyPlan {
  label: string;
  contentType?: string | string[];
  contentEncoding?: string;
  bytes: Buffer;
}
const TEN_MB = 10 * 1024 * 1024;
const bodyPlan: fc.Arbitrary<BodyPlan> = fc.oneof(
  { weight: 6, arbitrary: invalidPayload.map((json) => ({ label: `JSON ${json.slice(0, 80)}`, contentType: "application/json", bytes: Buffer.from(json) })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml", "application/octet-stream", "application/jsonx", "text/json", "application/vnd.api+json", undefined), fc.oneof(invalidPayload, fc.constant(JSON.stringify({ objectInstanceId: INSTANCE }))))
      .map(([contentType, json]) => ({ label: `${contentType ?? "no content type"} ${json.slice(0, 60)}`, contentType, bytes: Buffer.from(json) })),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(fc.string({ unit: "binary", minLength: 1, maxLength: 300 }), fc.constantFrom("{", "{'a':1}", '{"objectInstanceId":"hx-doc",}', "undefined", "NaN", "42", '"str"', "null", "true", " ", "\u0000", "{\"a\":1}garbage", "<xml/>"))
      .filter((text) => !isStrictJson(text))
      .map((text) => ({ label: `not JSON as application/json ${JSON.stringify(text.slice(0, 60))}`, contentType: "application/json", bytes: Buffer.from(text) })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<BodyPlan>(
      { label: "latin1 JSON", contentType: "application/json; charset=latin1", bytes: Buffer.from(JSON.stringify({ objectInstanceId: INSTANCE })) },
      { label: "gzip that is not gzip", contentType: "application/json", contentEncoding: "gzip", bytes: Buffer.from(JSON.stringify({ objectInstanceId: INSTANCE })) },
      { label: "unknown content encoding", contentType: "application/json", contentEncoding: "x-hostile", bytes: Buffer.from(JSON.stringify({ objectInstanceId: INSTANCE })) },
      { label: "duplicate content types", contentType: ["text/plain", "application/json"], bytes: Buffer.from(JSON.stringify({ objectInstanceId: INSTANCE })) },
      { label: "over 1,000 form fields", contentType: "application/x-www-form-urlencoded", bytes: Buffer.from(Array.from({ length: 1_200 }, (_, i) => `f${i}=1`).join("&")) },
    ),
  },
);
const bodyChange = bodyPlan.map((plan) =>
  change(`body ${plan.label}`, (req) => {
    delete req.headers["content-type"];
    if (plan.contentType !== undefined) req.headers["content-type"] = plan.contentType;
    if (plan.contentEncoding) req.headers["content-encoding"] = plan.contentEncoding;
    req.body = plan.bytes;
  }),
);

/** Bodies of 10 MB, a hundred times the limit. */
const hugeBodyChange = fc
  .constantFrom(
    { label: "10 MB of valid JSON", contentType: "application/json", make: () => Buffer.from(JSON.stringify({ objectInstanceId: INSTANCE, pad: "x".repeat(TEN_MB) })) },
    { label: "10 MB that is not JSON, as JSON", contentType: "application/json", make: () => Buffer.alloc(TEN_MB, "a") },
    { label: "10 MB of text", contentType: "text/plain", make: () => Buffer.alloc(TEN_MB, "a") },
    { label: "10 MB of bytes", contentType: "application/octet-stream", make: () => Buffer.alloc(TEN_MB, 0) },
  )
  .map((plan) =>
    change(`body ${plan.label}`, (req) => {
      req.headers["content-type"] = plan.contentType;
      req.body = plan.make();
    }),
  );

// Noise: never enough on its own to make a request fail, never enough to make a failing one pass.
const noise = fc.oneof(
  fc.constant(change("spoofed X-Request-Id", (req) => void (req.headers["x-request-id"] = `spoofed-${r}`))),
  fc.constant(change("forwarded headers", (req) => void Object.assign(req.headers, { "x-forwarded-for": "1.2.3.4, evil", "x-forwarded-host": "evil.example", "x-forwarded-proto": "gopher" }))),
  fc.constant(change("evil origin", (req) => void (req.headers.origin = "https://evil.example"))),
  fc.constant(change("override headers", (req) => void Object.assign(req.headers, { "x-http-method-override": "DELETE", "x-original-url": "/api/tenant/acme-north/roles" }))),
  fc.string({ unit: "grapheme-ascii", maxLength: 2_000 }).map((v) => change("long custom header", (req) => void (req.headers["x-hostile"] = v.replace(/[\r\n]/g, "")))),
  fc.constant(
    change("duplicate Authorization, the valid one first", (req) => {
      const current = req.headers.authorization;
      if (current === ADMIN_BASIC) req.headers.authorization = [ADMIN_BASIC, "Bearer second"];
    }),
  ),
  fc.constantFrom("application/json", "*/*", "text/html", "application/xml;q=0.9, */*;q=0.1", "").map((accept) => change(`accept ${accept}`, (req) => void (req.headers.accept = accept))),
  fc.constantFrom("__proto__[admin]=1", "constructor[prototype][admin]=1", "__proto__.admin=1", "hasOwnProperty=x").map((pollution) =>
    change(`prototype pollution attempt ${pollution}`, (req) => {
      req.query = req.query ? `${req.query}&${pollution}` : pollution;
    }),
  ),
);

const breaking = fc.oneof(targetIdChange, userIdChange, undecodablePathChange, structureChange, methodChange, credentialsChange, queryChange, bodyChange);

/** A valid request with the given breaking changes (at least one) and some noise, applied in order. */
const hostileRequest = (breakers: fc.Arbitrary<Change>, maxBreakers = 2) =>
  fc.tuple(templateArb, fc.array(breakers, { minLength: 1, maxLength: maxBreakers }), fc.array(noise, { maxLength: 2 })).map(([{ route, form }, changes, extra]) =>
    [...changes, ...extra].reduce((req, apply) => apply(req), validRequest(route, form)),
  );

// --- What the answer must be ----------------------------------------------------------------------

function isStrictJson(text: string): boolean {
  const first = text.trimStart()[0];
  if (first !== "{" && first !== "[") return false; // body-parser's strict mode: objects and arrays only
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const firstHeader = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The request line and headers' bytes, less Host and Content-Length (so a little under what Node counts). */
const headerBytes = (req: HostileRequest) =>
  `/${req.fn}/${req.segments.join("/")}`.length + (req.query?.length ?? 0) + Object.entries(req.headers).reduce((n, [k, v]) => n + k.length + [v].flat().join("").length + 4, 0);

/**
 * The answers of the platform in front of the function (the functions emulator here; Cloud
 * Functions' functions-framework in production), which parses the path and the body with its own
 * Express and body-parser before our code runs, and answers their errors with an HTML page (no
 * stack trace under NODE_ENV=production). Empty when the request reaches our code.
 */
function platformAnswers(req: HostileRequest): { status: number; text: string; why: string }[] {
  const answers: { status: number; text: string; why: string }[] = [];
  const path = `/${req.fn}/${req.segments.join("/")}`;
  // Node refuses a request line and headers over 16 KB with an empty 431 (several big changes at once).
  if (headerBytes(req) > 15_000) answers.push({ status: 431, text: "", why: "a request line and headers over 16 KB" });
  if (safeDecode(path) === undefined) answers.push({ status: 400, text: "Bad Request", why: "undecodable percent-encoding in the path" });
  const contentType = firstHeader(req.headers["content-type"])?.toLowerCase() ?? "";
  const encoding = req.headers["content-encoding"];
  if (req.body && req.body.length > 0) {
    if (encoding === "gzip") answers.push({ status: 400, text: "Bad Request", why: "a gzip body that does not inflate" });
    else if (encoding) answers.push({ status: 415, text: "Unsupported Media Type", why: "an unknown Content-Encoding" });
    else if (/^application\/json\b/.test(contentType)) {
      const charset = /charset=([^;]+)/.exec(contentType)?.[1]?.trim();
      if (charset && !charset.startsWith("utf-")) answers.push({ status: 415, text: "Unsupported Media Type", why: `a JSON body in charset ${charset}` });
      else if (!isStrictJson(req.body.toString("utf8"))) answers.push({ status: 400, text: "Bad Request", why: "a body sent as application/json that is not JSON" });
    } else if (contentType.startsWith("application/x-www-form-urlencoded") && req.body.toString("latin1").split("&").length > 1_000) {
      answers.push({ status: 413, text: "Payload Too Large", why: "a form body of over 1,000 fields" });
    }
  }
  return answers;
}

interface Tally {
  requests: number;
  dotPairs: number;
  ours: number;
  platform: Map<string, number>;
  statuses: Map<number, number>;
}
const tally: Tally = { requests: 0, dotPairs: 0, ours: 0, platform: new Map(), statuses: new Map() };

/** Sends one hostile request and throws (with the request described) if its answer breaks a rule. */
async function sendAndCheck(req: HostileRequest, timeoutMs = 20_000): Promise<RawResponse | undefined> {
  const path = `/${req.fn}/${req.segments.join("/")}${req.query !== undefined ? `?${req.query}` : ""}`;
  const origin = req.fn === "api" ? URLS.api : URLS.print;
  const describeRequest = () => `${req.method} ${path.slice(0, 300)} [${req.changes.join(" | ")}]`;
  let res: RawResponse;
  try {
    res = await rawRequest({ method: req.method, origin, path, headers: req.headers, body: req.body, timeoutMs });
  } catch (error) {
    // Node answers headers over 16 KB with 431 and closes the connection: with much of a body still
    // unsent (64 KB and more, measured), the client sees the reset before the answer. Refused either way.
    const code = (error as { code?: string }).code;
    if ((code === "ECONNRESET" || code === "EPIPE") && headerBytes(req) > 16_384 && (req.body?.length ?? 0) >= 32_768) {
      tally.requests++;
      const why = "a request line and headers over 16 KB (the connection reset before the 431 arrived)";
      tally.platform.set(why, (tally.platform.get(why) ?? 0) + 1);
      return undefined;
    }
    throw new Error(`no answer (${(error as Error).message}) to ${describeRequest()}`, { cause: error });
  }
  tally.requests++;
  tally.statuses.set(res.status, (tally.statuses.get(res.status) ?? 0) + 1);
  const fail = (why: string) => {
    throw new Error(`${why}: HTTP ${res.status} ${res.text.slice(0, 300)}\n  for ${describeRequest()}`);
  };

  if (res.status < 400 || res.status > 499) fail("not a 4xx");
  if (STACK_TRACE.test(res.text)) fail("stack trace");
  const sent = [req.headers.authorization].flat().filter((v): v is string => typeof v === "string" && v.length > 8);
  for (const header of sent) {
    const credential = header.split(" ").slice(1).join(" ");
    if (credential.length > 8 && res.text.includes(credential)) fail("the credentials were echoed");
    if (header.startsWith("Basic ")) {
      const password = Buffer.from(credential, "base64").toString("utf8").split(":").slice(1).join(":");
      if (password.length > 8 && res.text.includes(password)) fail("the password was echoed");
    }
  }
  if (req.headers["x-request-id"] && res.headers["x-request-id"] === req.headers["x-request-id"]) fail("the client's X-Request-Id was trusted");

  const platform = platformAnswers(req);
  const ourProblem = errorBodyProblem(res);
  if (platform.length > 0 && ourProblem) {
    const match = platform.find((p) => p.status === res.status && (p.status === 431 ? res.text === "" : /^text\/html\b/.test(String(res.headers["content-type"])) && res.text.includes(`<pre>${p.text}</pre>`)));
    if (!match) fail(`expected the platform's ${platform.map((p) => `${p.status} (${p.why})`).join(" or ")}`);
    tally.platform.set(match!.why, (tally.platform.get(match!.why) ?? 0) + 1);
    return res;
  }
  if (ourProblem) fail(`not our JSON error (${ourProblem})`);
  tally.ours++;
  return res;
}

// --- Dot segments ---------------------------------------------------------------------------------

/** A valid read-only request whose path takes a detour through `.` and `..` segments, or into a foreign target. */
const dotDetour = fc
  .tuple(
    fc.constantFrom<RouteName>("status", "roles").chain((route) => fc.constantFrom(...ROUTES[route].forms).map((form) => ({ route, form }))),
    fc.nat(),
    fc.oneof(
      fc.tuple(hostileId, fc.constantFrom("..", "%2e%2e", "%2E%2E", ".%2e", "%2e.")).map(([id, up]) => ({ detour: [id, up], into: undefined as string | undefined })),
      fc.constantFrom(".", "%2e", "%2E").map((here) => ({ detour: [here], into: undefined as string | undefined })),
      fc.tuple(fc.constantFrom("..", "%2e%2e"), fc.constantFrom("acme-north", "acme", "solo", "harbor", H.tenant, H.org)).map(([up, foreign]) => ({ detour: [up], into: foreign })),
    ),
  )
  .map(([{ route, form }, k, { detour, into }]) => {
    const req = validRequest(route, form);
    if (into !== undefined) {
      // `/kind/id/../foreign/...`: the path resolves to another target of the same kind.
      const at = 2 * (k % (req.formLength / 2)) + 1;
      req.segments.splice(at + 1, 0, ...detour, into);
      req.changes.push(`detour from ${req.segments[at]} into ${into}`);
    } else {
      req.segments.splice(k % (req.segments.length + 1), 0, ...detour);
      req.changes.push(`detour ${detour.join("/")}`);
    }
    return req;
  });

/** The path the platform routes: dot segments resolved as in any URL (WHATWG, `%2e` included). */
const resolvedPath = (origin: string, path: string) => {
  const base = new URL(origin).pathname.replace(/\/$/, "");
  const resolved = new URL(`${base}${path}`, "http://resolve.invalid").pathname;
  return resolved.startsWith(`${base}/`) ? resolved.slice(base.length) : undefined;
};

// --- The properties ------------------------------------------------------------------------------

/** Requests per property; HOSTILE_SCALE=10 (for example) runs ten times as many, for a deeper search. */
const SCALE = Math.max(1, Number(process.env.HOSTILE_SCALE ?? 1));
const RUNS = Object.fromEntries(
  Object.entries({ ids: 500, structure: 250, methods: 100, credentials: 400, query: 250, bodies: 450, dots: 100, mixed: 250, csrf: 100 }).map(([k, v]) => [k, v * SCALE]),
) as Record<"ids" | "structure" | "methods" | "credentials" | "query" | "bodies" | "dots" | "mixed" | "csrf", number>;

// --- Cross-site requests ---------------------------------------------------------------------------

/** Media types other than JSON: those a page of another site may send without a CORS preflight first. */
const nonJsonType = fc.oneof(
  fc.constantFrom("text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=----x", "TEXT/PLAIN", "application/jsonp", "application/json-seq", "text/json"),
  fc.tuple(fc.stringMatching(/^[a-z]{1,12}$/), fc.stringMatching(/^[a-z0-9.+-]{1,20}$/)).map(([type, subtype]) => `${type}/${subtype}`).filter((t) => t !== "application/json" && t !== "application/pdf"),
);

/** A state-changing request that would pass, sent with no body but a declared non-JSON type (a form post, say). */
const crossSiteRequest = fc
  .tuple(
    fc
      .constantFrom<RouteName>("restore", "delete", "claim", "release", "print", "send-pdf", "print-jobs", "cancel-print-job", "put-print-template", "delete-print-template", "verify")
      .chain((route) => fc.constantFrom(...ROUTES[route].forms).map((form) => ({ route, form }))),
    nonJsonType,
  )
  .map(([{ route, form }, type]) => {
    const req = validRequest(route, form);
    req.headers["content-type"] = type;
    req.body = undefined;
    req.changes.push(`no body, Content-Type: ${type}`);
    return req;
  });

describe("hostile input against the running functions (property-based)", () => {
  let firestoreBefore: Map<string, string>;
  let bucketBefore: Map<string, string>;
  let mailBefore: number;

  beforeAll(async () => {
    await seedStack(FIXTURE);
    firestoreBefore = await snapshotFirestore();
    bucketBefore = await snapshotBucket();
    mailBefore = (await mailSink("/messages")).json.length;
    // The fixture's valid requests do succeed: what the properties break is a working request.
    const ok = await rawRequest({ method: "GET", origin: URLS.api, path: `/api/tenant/${H.tenant}/roles?limit=5`, headers: { authorization: ADMIN_BASIC } });
    expect(ok.status).toBe(200);
  }, 60_000);

  const property = (breakers: fc.Arbitrary<Change>, numRuns: number, maxBreakers = 2) =>
    fc.assert(
      fc.asyncProperty(hostileRequest(breakers, maxBreakers), async (req) => void (await sendAndCheck(req))),
      { numRuns, endOnFailure: false },
    );

  it(`hostile target and user ids (encoded slashes, ..%2F.., __x__, 1,500-byte ids, Unicode, NUL, undecodable): ${RUNS.ids} requests`, async () => {
    await property(fc.oneof({ weight: 4, arbitrary: targetIdChange }, { weight: 4, arbitrary: userIdChange }, { weight: 1, arbitrary: undecodablePathChange }), RUNS.ids, 1);
  }, 300_000);

  it(`broken paths and other functions: ${RUNS.structure} requests`, async () => {
    await property(structureChange, RUNS.structure);
  }, 300_000);

  it(`wrong methods: ${RUNS.methods} requests`, async () => {
    await property(methodChange, RUNS.methods, 1);
  }, 300_000);

  it(`broken, foreign and duplicate credentials: ${RUNS.credentials} requests`, async () => {
    await property(credentialsChange, RUNS.credentials, 1);
  }, 300_000);

  it(`hostile query strings: ${RUNS.query} requests`, async () => {
    await property(queryChange, RUNS.query, 1);
  }, 300_000);

  it(`hostile bodies (wrong types, deep nesting, huge arrays, not JSON, wrong content types): ${RUNS.bodies} requests`, async () => {
    await property(bodyChange, RUNS.bodies, 1);
  }, 300_000);

  it(`state-changing requests with no body but a non-JSON Content-Type (cross-site forms) are 415: ${RUNS.csrf} requests`, async () => {
    await fc.assert(
      fc.asyncProperty(crossSiteRequest, async (req) => {
        const res = await sendAndCheck(req);
        expect(res?.status, req.changes.join(" | ")).toBe(415);
      }),
      { numRuns: RUNS.csrf, endOnFailure: false },
    );
  }, 300_000);

  it("10 MB bodies: 8 requests", async () => {
    await property(hugeBodyChange, 8, 1);
  }, 300_000);

  it(`dot segments are resolved before routing and smuggle nothing: ${RUNS.dots} pairs of requests`, async () => {
    await fc.assert(
      fc.asyncProperty(dotDetour, async (req) => {
        const origin = req.fn === "api" ? URLS.api : URLS.print;
        const raw = `/${req.fn}/${req.segments.join("/")}${req.query ? `?${req.query}` : ""}`;
        const resolved = resolvedPath(origin, raw);
        expect(resolved, raw).toBeDefined();
        const [viaDots, direct] = await Promise.all([raw, resolved!].map((path) => rawRequest({ method: req.method, origin, path, headers: req.headers })));
        tally.requests += 2;
        for (const res of [viaDots, direct]) tally.statuses.set(res.status, (tally.statuses.get(res.status) ?? 0) + 1);
        tally.dotPairs++;
        const what = `${raw} (resolves to ${resolved})`;
        expect(viaDots.status, what).toBeLessThan(500);
        expect(STACK_TRACE.test(viaDots.text), what).toBe(false);
        // The same answer as the resolved path: same status, same body (the request id aside).
        expect([viaDots.status, viaDots.text], what).toEqual([direct.status, direct.text]);
      }),
      { numRuns: RUNS.dots },
    );
  }, 300_000);

  it(`several hostile changes at once: ${RUNS.mixed} requests`, async () => {
    await property(breaking, RUNS.mixed, 4);
  }, 300_000);

  afterAll(async () => {
    const platform = [...tally.platform].map(([why, n]) => `${n} x ${why}`).join(", ");
    const statuses = [...tally.statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${n} x ${s}`).join(", ");
    console.log(
      `Hostile input: ${tally.requests} generated requests (${statuses}); ${tally.ours} answered by our JSON errors, ` +
        `${tally.requests - tally.ours - 2 * tally.dotPairs} by the platform in front of the function (${platform || "none"}), ` +
        `${tally.dotPairs} pairs compared a path with dot segments to its resolved path.`,
    );
  });

  it("left Firestore, the bucket's generated-pdfs/ and the mail sink as they were; at least 2,000 requests were sent", async () => {
    expect(diffSnapshots(firestoreBefore, await snapshotFirestore())).toEqual([]);
    expect(diffSnapshots(bucketBefore, await snapshotBucket())).toEqual([]);
    expect((await mailSink("/messages")).json.length).toBe(mailBefore);
    expect(tally.requests).toBeGreaterThanOrEqual(2_000);
  }, 60_000);
});
