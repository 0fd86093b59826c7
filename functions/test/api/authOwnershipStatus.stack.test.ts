import { beforeAll, describe, expect, it } from "vitest";
import { call, idTokenFor } from "../helpers";
import { apiUrl, firestore, freshUid, putOwner, putUserRecord } from "./fixtures";

const statusUrl = (target: string, uid: string) => apiUrl(`${target}/user/${uid}/auth-ownership-status`);

describe("GET /api/{target}/user/{userId}/auth-ownership-status", () => {
  let admin: string;
  beforeAll(async () => {
    admin = await idTokenFor("north-admin@acme.test");
  });

  it.each([
    ["owned by the current tenant", "north-reader", { isLinkedToCurrentTenant: true, isUnclaimed: false }],
    ["owned by another tenant", "solo-owned-user", { isLinkedToCurrentTenant: false, isUnclaimed: false }],
    ["unclaimed", "unclaimed-user", { isLinkedToCurrentTenant: false, isUnclaimed: true }],
  ])("reports a user %s", async (_state, uid, flags) => {
    const res = await call(statusUrl("/tenant/acme-north", uid), { auth: { bearer: admin } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ message: expect.any(String), data: { userId: uid, ...flags } });
  });

  it("answers the organization form of the path for the organization's own users", async () => {
    const res = await call(statusUrl("/organization/acme", "org-admin"), { auth: { basic: "org-admin@acme.test" } });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ userId: "org-admin", isLinkedToCurrentTenant: true, isUnclaimed: false });
  });

  it("gives the same answer whichever other target owns the authentication, naming none", async () => {
    const [a, b] = [freshUid("owned-a"), freshUid("owned-b")];
    await Promise.all([putUserRecord("tenants/acme-north", a), putUserRecord("tenants/acme-north", b), putOwner(a, "tenants/solo"), putOwner(b, "organizations/acme")]);
    await call(statusUrl("/tenant/acme-north", a), { auth: { bearer: admin } }); // warm the caches
    const ra = await call(statusUrl("/tenant/acme-north", a), { auth: { bearer: admin } });
    const rb = await call(statusUrl("/tenant/acme-north", b), { auth: { bearer: admin } });
    expect(ra.json).toEqual({ ...rb.json, data: { ...rb.json.data, userId: a } });
    for (const res of [ra, rb]) {
      expect(res.text).not.toMatch(/solo|organizations|tenants\/|acme/);
      // Same work for every owner: one read of the target, the grants and the same two documents.
      expect(res.headers.get("x-backend-calls")).toBe("firestore=1, auth=0");
    }
  });

  it("lets MANAGE_PEOPLE through", async () => {
    const res = await call(statusUrl("/tenant/acme-north", "north-reader"), { auth: { basic: "north-people@acme.test" } });
    expect(res.status).toBe(200);
  });

  it.each([
    ["READ only", "north-reader@acme.test", "/tenant/acme-north", 401, /ADMIN, MANAGE_PEOPLE/],
    ["an ADMIN where PEOPLE_MANAGEMENT is off", "south-admin@acme.test", "/tenant/acme-south", 401, /PEOPLE_MANAGEMENT/],
    ["another tenant's ADMIN", "admin@solo.test", "/tenant/acme-north", 401, /ADMIN/],
  ])("refuses %s", async (_who, email, target, status, message) => {
    const res = await call(statusUrl(target, "north-reader"), { auth: { basic: email } });
    expect(res.status).toBe(status);
    expect(res.json.message).toMatch(message);
  });

  it("answers 404 with a descriptive message for a user without a record in the target", async () => {
    const res = await call(statusUrl("/tenant/acme-north", "org-admin"), { auth: { bearer: admin } });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ statusCode: 404, error: "Not Found", message: "User 'org-admin' has no record in this target." });
  });

  it("answers 404 for an absent userId segment (no such route)", async () => {
    const res = await call(apiUrl("/tenant/acme-north/user//auth-ownership-status"), { auth: { bearer: admin } });
    expect(res.status).toBe(404);
    expect(res.json.statusCode).toBe(404);
  });

  it("answers 400 for a division target", async () => {
    const res = await call(statusUrl("/tenant/acme-north/division/ops", "north-reader"), { auth: { basic: "org-admin@acme.test" } });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe("This route serves organization and tenant targets only, not a division.");
  });

  it("answers 400 for a site target", async () => {
    const site = freshUid("site");
    await firestore().doc(`sites/${site}`).set({ name: "Test site", features: { PEOPLE_MANAGEMENT: true } });
    await firestore().doc(`sites/${site}/members/north-admin`).set({ permissions: ["ADMIN"] });
    const res = await call(statusUrl(`/site/${site}`, "north-reader"), { auth: { bearer: admin } });
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/not a site/);
  });
});
