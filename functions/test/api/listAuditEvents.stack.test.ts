import { createHash, randomUUID } from "node:crypto";
import { getAuth } from "firebase-admin/auth";
import { Timestamp } from "firebase-admin/firestore";
import { beforeAll, describe, expect, it } from "vitest";
import { stackAdminApp } from "../../stack/seedStack";
import { BASES, basicHeader, call, idTokenFor } from "../helpers";
import { apiUrl, firestore, freshTenantAdmin, freshUid, putUserRecord } from "./fixtures";

// GET /api/{target}/audit-events: the trail of a target and the targets below it, newest first.

interface Event {
  id: string;
  at: string;
  action: string;
  target: string;
  subject: string;
}

describe("GET /api/{target}/audit-events", () => {
  const site = freshUid("audit-site");
  let siteAdmin: string;
  /** 250 events, some sharing a time (the id breaks the tie), newest first as the route must answer them. */
  const seeded: { id: string; at: Timestamp; action: string; subject: string }[] = [];

  beforeAll(async () => {
    const db = firestore();
    const uid = `${site}-admin`;
    await getAuth(stackAdminApp()).createUser({ uid, email: `${uid}@audit.test`, password: "audit-password" });
    await db.doc(`sites/${site}`).set({ name: "Audit site", features: {} });
    await db.doc(`sites/${site}/members/${uid}`).set({ permissions: ["ADMIN"] });
    siteAdmin = await idTokenFor(`${uid}@audit.test`, "audit-password");
    const base = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 250; i++) {
      seeded.push({ id: randomUUID().replace(/-/g, "").slice(0, 20), at: Timestamp.fromMillis(base + Math.floor(i / 3) * 60_000), action: i % 2 ? "pdf.printed" : "pdf.mailed", subject: `doc-${i % 5}` });
    }
    for (let i = 0; i < seeded.length; i += 100) {
      const batch = db.batch();
      for (const e of seeded.slice(i, i + 100)) {
        batch.set(db.doc(`sites/${site}/auditEvents/${e.id}`), { at: e.at, action: e.action, actor: { uid, scheme: "bearer" }, target: `sites/${site}`, subject: e.subject, requestId: null, details: {}, expireAt: e.at });
      }
      await batch.commit();
    }
    seeded.sort((a, b) => b.at.toMillis() - a.at.toMillis() || (a.id < b.id ? 1 : -1));
  }, 60_000);

  const list = (query: string, token = siteAdmin, target = `/site/${site}`) => call(apiUrl(`${target}/audit-events${query}`), { auth: { bearer: token } });

  it("pages through 250 events newest first, each exactly once, with an opaque cursor; the last page has none", async () => {
    const seen: string[] = [];
    let token: string | null = null;
    let pages = 0;
    do {
      const res = await list(`?limit=100${token ? `&pageToken=${token}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ statusCode: 200, message: expect.any(String), data: expect.any(Array), nextPageToken: res.json.nextPageToken === null ? null : expect.any(String) });
      seen.push(...(res.json.data as Event[]).map((e) => e.id));
      token = res.json.nextPageToken;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(seen).toEqual(seeded.map((e) => e.id));
  });

  it("filters by action, subject and time, and pages the filtered list", async () => {
    const res = await list(`?action=pdf.printed&subject=doc-1&limit=10`);
    const expected = seeded.filter((e) => e.action === "pdf.printed" && e.subject === "doc-1");
    expect((res.json.data as Event[]).map((e) => e.id)).toEqual(expected.slice(0, 10).map((e) => e.id));
    const next = await list(`?action=pdf.printed&subject=doc-1&limit=10&pageToken=${res.json.nextPageToken}`);
    expect((next.json.data as Event[]).map((e) => e.id)).toEqual(expected.slice(10, 20).map((e) => e.id));

    const since = new Date(Date.UTC(2026, 0, 1) + 10 * 60_000).toISOString();
    const until = new Date(Date.UTC(2026, 0, 1) + 20 * 60_000).toISOString();
    const window = await list(`?since=${since}&until=${until}&limit=100`);
    expect((window.json.data as Event[]).map((e) => e.id)).toEqual(seeded.filter((e) => e.at.toMillis() >= Date.parse(since) && e.at.toMillis() < Date.parse(until)).map((e) => e.id));
  });

  it.each([
    ["limit=0", /'limit': must be at least 1/],
    ["limit=101", /'limit': must be at most 100/],
    ["action=user.renamed", /'action'/],
    ["since=yesterday", /'since'/],
    ["since=yesterday&until=2026-01-01T00:00:00Z", /^Invalid query: 'since': [^;]+\.$/],
    // Valid ISO 8601 that a Firestore Timestamp cannot hold (it threw: a 500).
    ["since=0000-01-01T00:00:00Z", /'since': must be between the years 1 and 9999/],
    ["until=9999-12-31T23:59:59-01:00", /'until': must be between the years 1 and 9999/],
    ["since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z", /'since': must be before 'until'/],
    ["pageToken=not-a-token", /'pageToken': is not a page token of this query/],
    [`pageToken=${Buffer.from(JSON.stringify({ s: 1, n: 0, id: "x", f: "forged" })).toString("base64url")}`, /'pageToken': is not a page token/],
    ["subject=a%2Fb", /'subject': is not a valid id/],
    ["sort=asc", /unknown query parameter 'sort'/],
  ])("refuses %s with 400 naming the parameter", async (query, message) => {
    const res = await list(`?${query}`);
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(message);
  });

  it("refuses a page token of another filter (400)", async () => {
    const first = await list(`?action=pdf.printed&limit=5`);
    const res = await list(`?action=pdf.mailed&limit=5&pageToken=${first.json.nextPageToken}`);
    expect(res.status).toBe(400);
  });

  it("refuses a page token whose time a Firestore timestamp cannot hold, though it names this query (400, not 500)", async () => {
    // The hash a token of this query carries is of public values: anybody can forge one (listAuditEvents.ts queryKey).
    const key = createHash("sha256").update(JSON.stringify([`sites/${site}`, null, null, null, null])).digest("base64url").slice(0, 16);
    for (const s of [253_402_300_800, -62_135_596_801, Number.MAX_SAFE_INTEGER]) {
      const token = Buffer.from(JSON.stringify({ s, n: 0, id: "abc", f: key })).toString("base64url");
      const res = await list(`?pageToken=${token}`);
      expect(res.status, String(s)).toBe(400);
      expect(res.json.message).toMatch(/'pageToken': is not a page token/);
    }
    const inRange = Buffer.from(JSON.stringify({ s: 253_402_300_799, n: 0, id: "abc", f: key })).toString("base64url");
    expect((await list(`?pageToken=${inRange}`)).status).toBe(200); // the same forged token in range: a page
  });

  it("answers a caller whose grant was just revoked 401, not the 400 of a page token of another target", async () => {
    // The route's load starts before authorization for a caller authorized here in the last minute
    // (routes.ts); what it throws must still wait for authorization.
    const user = await freshTenantAdmin("audit-revoked");
    const basic = { auth: { header: basicHeader(user.email, user.password) } };
    const url = (query: string) => apiUrl(`/tenant/acme-north/audit-events${query}`);
    expect((await call(url("?limit=1"), basic)).status).toBe(200);
    await firestore().doc(`tenants/acme-north/members/${user.uid}`).delete();
    const foreign = (await list("?limit=1")).json.nextPageToken as string; // the test site's
    const res = await call(url(`?limit=1&pageToken=${foreign}`), basic);
    expect(res.status).toBe(401);
  });

  it("refuses a page token of another target with the same filters (400)", async () => {
    const first = await list("?limit=1");
    expect(first.json.nextPageToken).toEqual(expect.any(String));
    expect((await list(`?limit=1&pageToken=${first.json.nextPageToken}`)).status).toBe(200);
    const res = await list(`?limit=1&pageToken=${first.json.nextPageToken}`, await idTokenFor("org-admin@acme.test"), "/organization/acme");
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/'pageToken': is not a page token of this query/);
  });

  it("shows an organization or tenant what happened below it, never a tenant what happened above it; ADMIN only", async () => {
    const orgAdmin = await idTokenFor("org-admin@acme.test");
    const northAdmin = await idTokenFor("north-admin@acme.test");
    // A PDF printed on a division of acme-north, and a user deleted in the organization itself.
    const printed = await call(`${BASES.print.functionUrl}/organization/acme/tenant/acme-north/division/ops/print`, { method: "POST", auth: { bearer: orgAdmin }, body: { objectInstanceId: "ops-checklist" } });
    expect(printed.status).toBe(201);
    const uid = freshUid("audit-org-user");
    await putUserRecord("organizations/acme", uid);
    expect((await call(apiUrl(`/organization/acme/user/${uid}`), { method: "DELETE", auth: { bearer: orgAdmin } })).status).toBe(200);

    const trail = async (target: string, token: string) => ((await list("?limit=100", token, target)).json.data as Event[]).map((e) => `${e.action} ${e.target} ${e.subject}`);
    const printEvent = "pdf.printed tenants/acme-north/divisions/ops ops-checklist";
    const deleteEvent = `user.deleted organizations/acme ${uid}`;
    expect(await trail("/organization/acme", orgAdmin)).toEqual(expect.arrayContaining([printEvent, deleteEvent]));
    const tenantTrail = await trail("/tenant/acme-north", northAdmin);
    expect(tenantTrail).toContain(printEvent);
    expect(tenantTrail).not.toContain(deleteEvent);
    expect(tenantTrail.every((e) => e.split(" ")[1].startsWith("tenants/acme-north"))).toBe(true);

    const refused = await Promise.all([list("", await idTokenFor("north-reader@acme.test"), "/tenant/acme-north"), list("", await idTokenFor("south-admin@acme.test"), "/tenant/acme-north"), list("", northAdmin, "/organization/acme")]);
    for (const res of refused) {
      expect(res.status).toBe(401);
      expect(JSON.stringify(res.json)).not.toContain(uid);
    }
  });
});
