import { randomUUID } from "node:crypto";
import { getAuth } from "firebase-admin/auth";
import { Timestamp } from "firebase-admin/firestore";
import { beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ID, URLS } from "../../stack/config";
import { stackAdminApp } from "../../stack/seedStack";
import { firestore, freshTenantAdmin } from "../api/fixtures";
import { BASES, basicHeader, call, idTokenFor } from "../helpers";

const api = BASES.api.functionUrl;
const printBase = BASES.print.functionUrl;
const adminAuth = () => getAuth(stackAdminApp());

/** An unsigned token shaped like the auth emulator's, with claims overridden. */
function emulatorToken(claims: Record<string, unknown>): string {
  const now = Math.floor(Date.now() / 1000);
  const payload = {
    iss: `https://securetoken.google.com/${PROJECT_ID}`,
    aud: PROJECT_ID,
    auth_time: now,
    user_id: "north-admin",
    sub: "north-admin",
    iat: now,
    exp: now + 3600,
    firebase: { identities: {}, sign_in_provider: "password" },
    ...claims,
  };
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${part({ alg: "none", typ: "JWT" })}.${part(payload)}.`;
}

/** A user that no function instance has seen yet (its status is not cached anywhere). */
async function freshUser(): Promise<{ uid: string; email: string; token: string }> {
  const uid = `pipeline-${randomUUID()}`;
  const email = `${uid}@example.test`;
  await adminAuth().createUser({ uid, email, password: "fresh-password" });
  return { uid, email, token: await idTokenFor(email, "fresh-password") };
}

const rolesOf = (targetPath: string) => `${api}${targetPath}/roles`;

const freshAdmin = (options: { multiFactor?: boolean } = {}) => freshTenantAdmin("pipeline", options);

/** Milliseconds from now until `request` is first answered 401 (polling every 200 ms), failing after `limitMs`. */
async function msUntilRefused(request: () => Promise<{ status: number }>, limitMs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const { status } = await request();
    const elapsed = performance.now() - started;
    if (status === 401) return elapsed;
    expect(status).toBe(200);
    if (elapsed > limitMs) throw new Error(`still let through after ${Math.round(elapsed)} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Sends `request` every 200 ms for `ms`: each answer must be 200. */
async function passesThroughout(request: () => Promise<{ status: number; text: string }>, ms: number): Promise<void> {
  const started = performance.now();
  while (performance.now() - started < ms) {
    const res = await request();
    expect(res.status, res.text).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("authentication", () => {
  let adminToken: string;
  beforeAll(async () => {
    adminToken = await idTokenFor("north-admin@acme.test");
  });

  it("marks every answer Cache-Control: no-store (successes hold signed URLs and user data, errors too)", async () => {
    const answers = await Promise.all([
      call(rolesOf("/tenant/acme-north"), { auth: { bearer: adminToken } }),
      call(`${printBase}/tenant/acme-north/print`, { method: "POST", auth: { bearer: adminToken }, body: { objectInstanceId: "inspection-short" } }),
      call(rolesOf("/tenant/acme-north")),
      call(`${api}/no-such-route`),
      call(`${api}/openapi.json`),
    ]);
    expect(answers.map((res) => res.status)).toEqual([200, 201, 401, 404, 200]);
    for (const res of answers) expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it.each([
    ["PATCH", `${api}/tenant/acme-north/roles`, "GET, HEAD"],
    ["DELETE", `${printBase}/organization/acme/tenant/acme-north/print`, "POST"],
    ["POST", `${api}/tenant/acme-north/division/ops/print-settings`, "GET, PUT, PATCH, HEAD"],
    ["DELETE", `${api}/openapi.json`, "GET, HEAD"],
  ])("answers %s on a route's path that takes other methods with 405 and Allow, before credentials", async (method, url, allow) => {
    const res = await call(url, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe(allow);
    expect(res.json).toEqual({ statusCode: 405, error: "Method Not Allowed", message: `${method} is not a method of this route; it takes ${allow}.` });
    expect((await call(`${url}/more`, { method })).status).toBe(404); // not a route's path: still no route
  });

  it("refuses a JSON body whose bytes are not UTF-8 (400) rather than store U+FFFD in their place", async () => {
    const url = `${api}/tenant/acme-north/division/ops/print-settings`;
    const before = (await call(url, { auth: { bearer: adminToken } })).json;
    // A surrogate written in UTF-8's form (CESU-8), and a lone continuation byte: both ill-formed.
    for (const bad of [Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0x80])]) {
      const body = Buffer.concat([Buffer.from('{"footerText":"a'), bad, Buffer.from('b"}')]);
      const res = await fetch(url, { method: "PUT", headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" }, body });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ statusCode: 400, error: "Bad Request", message: "The body is not valid UTF-8." });
    }
    expect((await call(url, { auth: { bearer: adminToken } })).json).toEqual(before);
  });

  it("answers a wrong method with 405 before looking at the body: a logo POSTed (the route takes PUT) is not told to send JSON", async () => {
    const res = await call(`${api}/tenant/acme-north/print-settings/logo`, { method: "POST", headers: { "content-type": "image/png" }, body: "\x89PNG not really" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("PUT");
  });

  it("matches route words case-sensitively, as Hosting's rewrites and path rules in front of it do: another case is no route (404)", async () => {
    expect((await call(rolesOf("/tenant/acme-north"), { auth: { bearer: adminToken } })).status).toBe(200);
    for (const url of [`${api}/tenant/acme-north/ROLES`, `${api}/Tenant/acme-north/roles`, `${URLS.api}/API/tenant/acme-north/roles`, `${printBase}/tenant/acme-north/Print`]) {
      const res = await call(url, { method: url.endsWith("Print") ? "POST" : "GET", auth: { bearer: adminToken } });
      expect(res.status, url).toBe(404);
      expect(res.json, url).toMatchObject({ statusCode: 404, error: "Not Found" });
    }
  });

  it("lets a valid Bearer token through the whole pipeline", async () => {
    const res = await call(rolesOf("/tenant/acme-north"), { auth: { bearer: adminToken } });
    expect(res.status).toBe(200);
  });

  it.each([
    ["no header", undefined, /Authentication required/],
    ["an unknown scheme", "Token abc", /Unsupported authorization scheme/],
    ["a scheme without credentials", "Bearer", /must be 'Bearer <ID token>' or 'Basic/],
    ["an empty Bearer token", "Bearer   ", /must be 'Bearer <ID token>' or 'Basic/],
    ["a token that is not a JWT", "Bearer not-a-jwt", /ID token/],
    ["Basic that is not base64", "Basic !!!***", /base64\(email:password\)/],
    ["Basic without a colon", `Basic ${Buffer.from("north-admin@acme.test").toString("base64")}`, /base64\(email:password\)/],
    ["Basic with an empty password", `Basic ${Buffer.from("north-admin@acme.test:").toString("base64")}`, /both non-empty/],
    ["Basic with a wrong password", basicHeader("north-admin@acme.test", "wrong-password"), /email or password is incorrect/],
    ["Basic with an unknown email", basicHeader("nobody-at-all@acme.test"), /email or password is incorrect/],
    ["an expired token", `Bearer ${emulatorToken({ exp: Math.floor(Date.now() / 1000) - 60, iat: Math.floor(Date.now() / 1000) - 3700 })}`, /expired/],
    ["a token for another project", `Bearer ${emulatorToken({ aud: "another-project" })}`, /invalid/],
    ["a token from another issuer", `Bearer ${emulatorToken({ iss: "https://evil.example/" })}`, /invalid/],
    ["a token of a user that does not exist", `Bearer ${emulatorToken({ user_id: "ghost", sub: "ghost" })}`, /no longer exists/],
  ])("refuses %s with 401, a challenge and a clear message", async (_name, header, message) => {
    const res = await call(rolesOf("/tenant/acme-north"), header ? { auth: { header } } : {});
    expect(res.status).toBe(401);
    // Bearer only: a Basic challenge would make a browser ask for a password and resend it unasked (CSRF).
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="firebase"');
    expect(res.json).toEqual({ statusCode: 401, error: "Unauthorized", message: expect.stringMatching(message) });
  });

  it("refuses a token of a user disabled after sign-in", async () => {
    const user = await freshUser();
    await adminAuth().updateUser(user.uid, { disabled: true });
    const res = await call(rolesOf("/tenant/acme-north"), { auth: { bearer: user.token } });
    expect(res.status).toBe(401);
    expect(res.json.message).toMatch(/disabled/);
  });

  it("refuses a token issued before its user's tokens were revoked", async () => {
    const user = await freshUser();
    await new Promise((r) => setTimeout(r, 1_100)); // revocation has one-second resolution
    await adminAuth().revokeRefreshTokens(user.uid);
    const res = await call(rolesOf("/tenant/acme-north"), { auth: { bearer: user.token } });
    expect(res.status).toBe(401);
    expect(res.json.message).toMatch(/revoked/);
  });

  it("refuses Basic credentials of a user enrolled in a second factor: the password alone is not enough (401 naming Bearer)", async () => {
    const user = await freshAdmin({ multiFactor: true });
    const res = await call(rolesOf("/tenant/acme-north"), { auth: { header: basicHeader(user.email, user.password) } });
    expect(res.status).toBe(401);
    expect(res.json.message).toMatch(/multi-factor authentication.*Bearer/);
    // The same account without a second factor passes: the refusal is the second factor's.
    await adminAuth().updateUser(user.uid, { multiFactor: { enrolledFactors: null } });
    expect((await call(rolesOf("/tenant/acme-north"), { auth: { header: basicHeader(user.email, user.password) } })).status).toBe(200);
  });

  it("stops trusting cached credentials within 10 s of a disable, a revocation or a password change (Basic and Bearer); a revocation alone does not stop a Basic caller, whose password is tried again", async () => {
    const [disabled, revoked, changed, revokedBasic] = await Promise.all([freshAdmin(), freshAdmin(), freshAdmin(), freshAdmin()]);
    const revokedToken = await idTokenFor(revoked.email, revoked.password);
    const basic = (u: { email: string; password: string }) => () => call(rolesOf("/tenant/acme-north"), { auth: { header: basicHeader(u.email, u.password) } });
    const bearer = () => call(rolesOf("/tenant/acme-north"), { auth: { bearer: revokedToken } });
    // revokedBasic's status is looked up (and cached for 10 s) 3 s before its sign-in is remembered, so
    // that the status is looked up again while the sign-in from before the revocation is still remembered.
    const revokedBasicToken = await idTokenFor(revokedBasic.email, revokedBasic.password);
    expect((await call(rolesOf("/tenant/acme-north"), { auth: { bearer: revokedBasicToken } })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 3_000));
    // Each passes first, so the instance that serves it has it cached.
    for (const request of [basic(disabled), bearer, basic(changed), basic(revokedBasic)]) expect((await request()).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_100)); // revocation has one-second resolution
    await Promise.all([
      adminAuth().updateUser(disabled.uid, { disabled: true }),
      adminAuth().revokeRefreshTokens(revoked.uid),
      adminAuth().updateUser(changed.uid, { password: "a-new-password" }),
      adminAuth().revokeRefreshTokens(revokedBasic.uid),
    ]);
    const limit = 10_000 + 1_000; // the documented bound (AUTH_CACHE_TTL_MS) plus one request's time
    const [elapsed] = await Promise.all([
      Promise.all([msUntilRefused(basic(disabled), limit), msUntilRefused(bearer, limit), msUntilRefused(basic(changed), limit)]),
      // Past the user's cached status (10 s), which is when a remembered sign-in would be found revoked.
      passesThroughout(basic(revokedBasic), limit),
    ]);
    for (const ms of elapsed) expect(ms).toBeLessThanOrEqual(limit);
  }, 40_000);

  it("refuses Basic credentials of a disabled user", async () => {
    const res = await call(rolesOf("/tenant/acme-north"), { auth: { header: basicHeader("disabled@acme.test") } });
    expect(res.status).toBe(401);
  });

  it("never echoes credentials", async () => {
    const res = await call(rolesOf("/tenant/acme-north"), { auth: { header: basicHeader("north-admin@acme.test", "s3cret-guess") } });
    expect(res.text).not.toContain("s3cret-guess");
    expect(res.text).not.toContain(Buffer.from("north-admin@acme.test:s3cret-guess").toString("base64"));
  });
});

describe("target paths", () => {
  let orgAdmin: string;
  beforeAll(async () => {
    orgAdmin = await idTokenFor("org-admin@acme.test");
  });

  it.each(["/organization/acme", "/organization/acme/tenant/acme-north", "/tenant/acme-north"])("an organization ADMIN passes on %s (grants apply below)", async (targetPath) => {
    const res = await call(rolesOf(targetPath), { auth: { bearer: orgAdmin } });
    expect(res.status).toBe(200);
  });

  it.each(["/organization/acme/tenant/acme-north/division/ops", "/tenant/acme-north/division/ops"])("an organization ADMIN passes on %s, two levels down", async (targetPath) => {
    const res = await call(`${printBase}${targetPath}/print`, { method: "POST", auth: { bearer: orgAdmin }, body: { objectInstanceId: "ops-checklist" } });
    expect(res.status).toBe(201);
  });

  it("a site READ grant passes the print pipeline on the site", async () => {
    const res = await call(`${printBase}/site/harbor/print`, { method: "POST", auth: { basic: "reader@harbor.test" }, body: { objectInstanceId: "harbor-log" } });
    expect(res.status).toBe(201);
  });

  it.each([
    ["/organization/acme/tenant/solo", /No tenant 'solo' in organization 'acme'/],
    ["/organization/acme/tenant/nope", /No tenant 'nope' in organization 'acme'/],
    ["/tenant/acme-south/division/ops", /No division 'ops' in tenant 'acme-south'/],
    ["/organization/acme/tenant/acme-south/division/ops", /No division 'ops' in tenant 'acme-south' of organization 'acme'/],
  ])("an unknown or inconsistent target %s is 404 for a caller with a grant on its chain", async (targetPath, message) => {
    const res = await call(rolesOf(targetPath), { auth: { bearer: orgAdmin } });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ statusCode: 404, error: "Not Found", message: expect.stringMatching(message) });
  });

  it("a grant left on a target that no longer exists gets 404 there", async () => {
    await firestore().doc("sites/gone-site/members/org-admin").set({ permissions: ["ADMIN"] });
    const res = await call(rolesOf("/site/gone-site"), { auth: { bearer: orgAdmin } });
    expect(res.status).toBe(404);
    expect(res.json.message).toMatch(/Site 'gone-site' does not exist/);
  });

  it.each(["/organization/nope", "/tenant/nope", "/site/nope", "/tenant/nope/division/ops", "/organization/acme/tenant/solo", "/organization/solo-org/tenant/acme-north", "/tenant/acme-north/division/nope"])(
    "%s answers a caller without a grant on its chain exactly as an existing target they have no grant on (no existence oracle)",
    async (targetPath) => {
      const stranger = { auth: { basic: "south-admin@acme.test" } }; // ADMIN on acme-south only
      const existing = await call(rolesOf("/site/harbor"), stranger);
      const probed = await call(rolesOf(targetPath), stranger);
      expect(existing.status).toBe(401);
      expect({ status: probed.status, body: probed.json }).toEqual({ status: existing.status, body: existing.json });
    },
  );

  it.each([
    ["/tenant/__x__", /Invalid tenant id: it is reserved/],
    ["/tenant/a%2Fb", /Invalid tenant id: it contains a slash/],
    ["/organization/acme/tenant/..%2F..", /Invalid tenant id/],
    ["/site/%00", /Invalid site id: it contains a control character/],
    [`/tenant/${"x".repeat(200)}`, /Invalid tenant id: it is longer than 128/],
  ])("a malformed id in %s is 400", async (targetPath, message) => {
    const res = await call(rolesOf(targetPath), { auth: { bearer: orgAdmin } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ statusCode: 400, error: "Bad Request", message: expect.stringMatching(message) });
  });

  it("a malformed user id is 400", async () => {
    const res = await call(`${api}/tenant/acme-north/user/__bad__/auth-ownership-status`, { auth: { bearer: orgAdmin } });
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/Invalid user id/);
  });
});

describe("authorization", () => {
  it("another tenant's ADMIN is refused with 401 naming the permission", async () => {
    const res = await call(rolesOf("/tenant/acme-north"), { auth: { basic: "south-admin@acme.test" } });
    expect(res.status).toBe(401);
    expect(res.json.message).toMatch(/needs the ADMIN permission/);
  });

  it("a permission that is not among the route's is refused (READ on an ADMIN route)", async () => {
    const res = await call(rolesOf("/tenant/acme-north"), { auth: { basic: "north-reader@acme.test" } });
    expect(res.status).toBe(401);
  });

  it("a division grant does not reach the tenant above it", async () => {
    const token = await idTokenFor("ops-reader@acme.test");
    const below = await call(`${printBase}/tenant/acme-north/division/ops/print`, { method: "POST", auth: { bearer: token }, body: { objectInstanceId: "ops-checklist" } });
    const above = await call(`${printBase}/tenant/acme-north/print`, { method: "POST", auth: { bearer: token }, body: { objectInstanceId: "inspection-short" } });
    expect(below.status).toBe(201);
    expect(above.status).toBe(401);
  });

  it("a feature flag that is off refuses with 401 naming the flag", async () => {
    const res = await call(`${api}/tenant/acme-south/user/south-admin/restore`, { method: "POST", auth: { basic: "south-admin@acme.test" } });
    expect(res.status).toBe(401);
    expect(res.json.message).toMatch(/PEOPLE_MANAGEMENT/);
  });

  it("a soft-deleted user loses every grant: an ADMIN deleted in the tenant can no longer print, list or restore themselves", async () => {
    const admin = await freshAdmin();
    await firestore().doc(`tenants/acme-north/users/${admin.uid}`).set({ email: admin.email, deletedAt: null });
    const as = { auth: { header: basicHeader(admin.email, admin.password) } };
    expect((await call(rolesOf("/tenant/acme-north"), as)).status).toBe(200);
    const other = { auth: { bearer: await idTokenFor("north-admin@acme.test") } };
    expect((await call(`${api}/tenant/acme-north/user/${admin.uid}`, { method: "DELETE", ...other })).status).toBe(200);

    const refusals = await Promise.all([
      call(rolesOf("/tenant/acme-north"), as),
      call(`${printBase}/tenant/acme-north/print`, { method: "POST", ...as, body: { objectInstanceId: "inspection-short" } }),
      call(`${api}/tenant/acme-north/user/${admin.uid}/restore`, { method: "POST", ...as }),
      call(`${printBase}/tenant/acme-north/division/ops/print`, { method: "POST", ...as, body: { objectInstanceId: "ops-checklist" } }),
    ]);
    for (const res of refusals) {
      expect(res.status).toBe(401);
      expect(res.json.message).toMatch(/user record here is deleted/);
    }
    expect((await firestore().doc(`tenants/acme-north/users/${admin.uid}`).get()).get("deletedAt")).not.toBeNull();
  });

  it("a record soft-deleted in the organization voids the grants on its tenants too", async () => {
    const admin = await freshAdmin();
    await firestore().doc(`organizations/acme/users/${admin.uid}`).set({ email: admin.email, deletedAt: Timestamp.now() });
    const res = await call(rolesOf("/tenant/acme-north"), { auth: { header: basicHeader(admin.email, admin.password) } });
    expect(res.status).toBe(401);
  });

  it("nobody deletes or restores themselves (400), and nothing changes", async () => {
    const admin = await freshAdmin();
    const record = firestore().doc(`tenants/acme-north/users/${admin.uid}`);
    await record.set({ email: admin.email, deletedAt: null });
    const as = { auth: { header: basicHeader(admin.email, admin.password) } };
    const res = await call(`${api}/tenant/acme-north/user/${admin.uid}`, { method: "DELETE", ...as });
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/cannot be deleted by themselves/);
    expect((await record.get()).get("deletedAt")).toBeNull();
  });

  it("an inherited flag lets the route through", async () => {
    // acme-north sets no PEOPLE_MANAGEMENT; organization acme turns it on. A user without a record gets
    // the route's own 404, which only a caller who passed authorization can see.
    const res = await call(`${api}/tenant/acme-north/user/nobody-here/auth-ownership-status`, { auth: { basic: "north-admin@acme.test" } });
    expect(res.status).toBe(404);
    expect(res.json.message).toMatch(/has no record in this target/);
  });
});

describe("validation after authorization", () => {
  const token = () => idTokenFor("north-admin@acme.test");

  it.each([
    ["limit=0", /'limit': must be at least 1/],
    ["limit=abc", /'limit': must be a whole number/],
    ["offset=-3", /'offset': must be a whole number/],
    ["limit=10&sort=name", /unknown query parameter 'sort'/],
  ])("roles?%s is 400 naming the parameter", async (qs, message) => {
    const res = await call(`${rolesOf("/tenant/acme-north")}?${qs}`, { auth: { bearer: await token() } });
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(message);
  });

  it.each([
    [{}, /'objectInstanceId'/],
    [{ objectInstanceId: 42 }, /'objectInstanceId'/],
    [{ objectInstanceId: "x", extra: true }, /unknown field 'extra'/],
    [[1, 2], /body/],
  ])("print with body %j is 400", async (body, message) => {
    const res = await call(`${printBase}/tenant/acme-north/print`, { method: "POST", auth: { bearer: await token() }, body });
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(message);
  });

  it("a route without a body refuses one", async () => {
    const res = await call(`${api}/tenant/acme-north/user/former-employee/restore`, { method: "POST", auth: { bearer: await token() }, body: { force: true } });
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/takes no request body/);
  });

  it("an empty body is no body when it is sent as JSON or without a type; any other type is 415 (a cross-site form)", async () => {
    const bearer = await token();
    const url = `${api}/tenant/acme-north/user/nobody-at-all/restore`;
    for (const options of [{ body: "", headers: { "content-type": "application/json" } }, {}]) {
      const res = await call(url, { method: "POST", auth: { bearer }, ...options });
      expect(res.status).toBe(400);
      expect(res.json.message).toMatch(/cannot be restored: there is no record/);
    }
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const res = await call(url, { method: "POST", auth: { bearer }, body: "", headers: { "content-type": type } });
      expect(res.status, type).toBe(415);
    }
  });

  it("validation runs only for callers who may use the route (no 400 oracle for strangers)", async () => {
    const res = await call(`${rolesOf("/tenant/acme-north")}?limit=0`, { auth: { basic: "north-nobody@acme.test" } });
    expect(res.status).toBe(401);
  });
});

describe("cost of the pipeline", () => {
  // `?limit=0` fails validation, which runs after authorization: the request costs the pipeline only.
  it("a warm request costs one Firestore round trip and no Auth backend call", async () => {
    const token = await idTokenFor("north-admin@acme.test");
    await call(rolesOf("/tenant/acme-north"), { auth: { bearer: token } }); // warms the caches
    const res = await call(`${rolesOf("/tenant/acme-north")}?limit=0`, { auth: { bearer: token } });
    expect(res.status).toBe(400);
    expect(res.headers.get("x-backend-calls")).toBe("firestore=1, auth=0");
    const basic = { header: basicHeader("north-admin@acme.test") };
    await call(rolesOf("/organization/acme/tenant/acme-north"), { auth: basic });
    const again = await call(`${rolesOf("/organization/acme/tenant/acme-north")}?limit=0`, { auth: basic });
    expect(again.headers.get("x-backend-calls")).toBe("firestore=1, auth=0");
  });

  it("a first request pays the Auth lookup once", async () => {
    const user = await freshUser();
    const first = await call(rolesOf("/tenant/acme-north"), { auth: { bearer: user.token } });
    expect(first.status).toBe(401); // no grant: still authenticated first
    expect(first.headers.get("x-backend-calls")).toMatch(/auth=1$/);
  });
});

describe("a route's load (the roles query)", () => {
  const membership = (uid: string) => firestore().doc(`tenants/acme-north/members/${uid}`);

  it("waits for authorization when the caller was not authorized there before: a refused request reads no roles", async () => {
    const user = await freshUser();
    await call(rolesOf("/tenant/acme-north"), { auth: { bearer: user.token } }); // warms the Auth caches
    const refused = await call(rolesOf("/tenant/acme-north"), { auth: { bearer: user.token } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("x-backend-calls")).toBe("firestore=1, auth=0");
  });

  it("runs alongside authorization for a caller authorized there recently, and still answers nothing once the grant is gone", async () => {
    const user = await freshUser();
    await membership(user.uid).set({ permissions: ["ADMIN"] });
    const allowed = await call(rolesOf("/tenant/acme-north"), { auth: { bearer: user.token } });
    expect(allowed.status).toBe(200);

    await membership(user.uid).delete();
    const refused = await call(rolesOf("/tenant/acme-north"), { auth: { bearer: user.token } });
    expect(refused.status).toBe(401);
    expect(refused.json).toEqual({ statusCode: 401, error: "Unauthorized", message: expect.any(String) });
    expect(refused.text).not.toMatch(/role-/); // the query ran (2 round trips) and its result was dropped
    expect(refused.headers.get("x-backend-calls")).toBe("firestore=2, auth=0");

    const forgotten = await call(rolesOf("/tenant/acme-north"), { auth: { bearer: user.token } });
    expect(forgotten.status).toBe(401);
    expect(forgotten.headers.get("x-backend-calls")).toBe("firestore=1, auth=0"); // refused once: no more speculation
  });
});

describe("cross-cutting", () => {
  it("answers a CORS preflight from an allowed origin without authentication", async () => {
    const res = await call(rolesOf("/tenant/acme-north"), {
      method: "OPTIONS",
      headers: { origin: "http://localhost:5000", "access-control-request-method": "GET", "access-control-request-headers": "authorization" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("http://localhost:5000");
    expect(res.headers.get("access-control-allow-headers")).toBe("Authorization,Content-Type,Idempotency-Key");
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("lets a page read what it needs of an error: a 401's WWW-Authenticate, a 405's Allow, the request id", async () => {
    const origin = { origin: "http://localhost:5000" };
    const refused = await call(rolesOf("/tenant/acme-north"), { headers: origin });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/);
    const wrongMethod = await call(rolesOf("/tenant/acme-north"), { method: "DELETE", headers: origin });
    expect(wrongMethod.status).toBe(405);
    for (const res of [refused, wrongMethod]) {
      expect(res.headers.get("access-control-allow-origin")).toBe("http://localhost:5000");
      expect(res.headers.get("access-control-expose-headers")?.split(",")).toEqual(expect.arrayContaining(["X-Request-Id", "Retry-After", "Allow", "WWW-Authenticate"]));
    }
  });

  it("gives no CORS grant to another origin", async () => {
    const res = await call(rolesOf("/tenant/acme-north"), { method: "OPTIONS", headers: { origin: "https://evil.example", "access-control-request-method": "GET" } });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("sets security headers on every answer", async () => {
    const res = await call(rolesOf("/tenant/acme-north"));
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("strict-transport-security")).toMatch(/max-age/);
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });
});
