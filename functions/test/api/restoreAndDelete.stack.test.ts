import { Timestamp } from "firebase-admin/firestore";
import { beforeAll, describe, expect, it } from "vitest";
import { call, idTokenFor } from "../helpers";
import { apiUrl, firestore, freshTenantAdmin, freshUid, putUserRecord, readDoc } from "./fixtures";

describe("POST /api/{target}/user/:userId/restore and DELETE /api/{target}/user/:userId", () => {
  let admin: string;
  beforeAll(async () => {
    admin = await idTokenFor("north-admin@acme.test");
  });
  const restore = (target: string, uid: string, token = admin) => call(apiUrl(`${target}/user/${uid}/restore`), { method: "POST", auth: { bearer: token }, headers: { "content-type": "application/json" } });
  const softDelete = (target: string, uid: string, token = admin) => call(apiUrl(`${target}/user/${uid}`), { method: "DELETE", auth: { bearer: token } });

  it("restores a soft-deleted user: 201, and the record says who restored it and when", async () => {
    const uid = freshUid("deleted");
    await putUserRecord("tenants/acme-north", uid, true);
    await putUserRecord("tenants/acme-south", uid, true); // the same uid in another tenant
    const before = Date.now();
    const res = await restore("/tenant/acme-north", uid);
    const after = Date.now();
    expect(res.status).toBe(201);
    expect(res.json).toEqual({ statusCode: 201, data: true, message: expect.any(String) });
    const record = await readDoc(`tenants/acme-north/users/${uid}`);
    expect(record).toMatchObject({ deletedAt: null, restoredBy: "north-admin" });
    expect(record).not.toHaveProperty("deletedBy");
    expect(record).not.toHaveProperty("deletedFrom");
    // The server's time of the request (the emulator's clock is this machine's; 5 s either side for its writes' rounding and skew).
    const restoredAt = (record!.restoredAt as Timestamp).toMillis();
    expect(restoredAt).toBeGreaterThanOrEqual(before - 5_000);
    expect(restoredAt).toBeLessThanOrEqual(after + 5_000);
    expect((await readDoc(`tenants/acme-south/users/${uid}`))!.deletedAt).toBeInstanceOf(Timestamp);
  });

  it("soft-deletes a user: 200, the record stays and says who deleted it and when", async () => {
    const uid = freshUid("active");
    await putUserRecord("tenants/acme-north", uid);
    await putUserRecord("tenants/acme-south", uid);
    const res = await softDelete("/organization/acme/tenant/acme-north", uid);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ statusCode: 200, data: true, message: expect.any(String) });
    const record = await readDoc(`tenants/acme-north/users/${uid}`);
    expect(record).toMatchObject({ deletedBy: "north-admin", deletedFrom: "tenants/acme-north", email: `${uid}@example.test` });
    expect(record!.deletedAt).toBeInstanceOf(Timestamp);
    expect((await readDoc(`tenants/acme-south/users/${uid}`))!.deletedAt).toBeNull();
  });

  it("a change costs two Firestore round trips: one read of the target, grants and record in the transaction, then its commit", async () => {
    const uid = freshUid("cost");
    await putUserRecord("tenants/acme-north", uid);
    await call(apiUrl(`/tenant/acme-north/roles`), { auth: { bearer: admin } }); // warms the caches
    const deleted = await softDelete("/tenant/acme-north", uid);
    expect(deleted.status).toBe(200);
    expect(deleted.headers.get("x-backend-calls")).toBe("firestore=2, auth=0");
    const restored = await restore("/tenant/acme-north", uid);
    expect(restored.status).toBe(201);
    expect(restored.headers.get("x-backend-calls")).toBe("firestore=2, auth=0");
  });

  it("a deleted and restored user can be deleted again (the round trip holds)", async () => {
    const uid = freshUid("roundtrip");
    await putUserRecord("tenants/acme-north", uid);
    expect((await softDelete("/tenant/acme-north", uid)).status).toBe(200);
    expect((await restore("/tenant/acme-north", uid)).status).toBe(201);
    expect((await softDelete("/tenant/acme-north", uid)).status).toBe(200);
    expect((await readDoc(`tenants/acme-north/users/${uid}`))!.deletedAt).toBeInstanceOf(Timestamp);
  });

  it.each([
    ["restore a user who is not deleted", "active", restoreCase, /not deleted/],
    ["restore a user without a record here", "none", restoreCase, /no record/],
    ["delete a user who is already deleted", "deleted", deleteCase, /already deleted/],
    ["delete a user without a record here", "none", deleteCase, /no record/],
  ] as const)("answers 400 and changes nothing when asked to %s", async (_name, state, act, message) => {
    const uid = freshUid(state);
    if (state !== "none") await putUserRecord("tenants/acme-north", uid, state === "deleted");
    const before = await readDoc(`tenants/acme-north/users/${uid}`);
    const res = await act(uid);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ statusCode: 400, error: "Bad Request", message: expect.stringMatching(message) });
    expect(await readDoc(`tenants/acme-north/users/${uid}`)).toEqual(before);
  });
  function restoreCase(uid: string) {
    return restore("/tenant/acme-north", uid);
  }
  function deleteCase(uid: string) {
    return softDelete("/tenant/acme-north", uid);
  }

  // A deleted record voids its user's grants below it: a tenant's ADMIN cannot do that to an
  // organization's ADMIN (who could not be restored by them), while an organization's ADMIN can.
  it("refuses (401) a tenant ADMIN deleting an ADMIN of the organization above, or restoring a user that ADMIN deleted; an organization ADMIN may", async () => {
    const uid = freshUid("org-admin");
    await putUserRecord("tenants/acme-north", uid);
    await firestore().doc(`organizations/acme/members/${uid}`).set({ permissions: ["ADMIN"] });
    const tenantAdmin = await freshTenantAdmin("tenant-admin");
    const tenantAdminToken = await idTokenFor(tenantAdmin.email, tenantAdmin.password);
    const refused = await softDelete("/tenant/acme-north", uid, tenantAdminToken);
    expect([refused.status, refused.json.message]).toEqual([401, `User '${uid}' is an ADMIN of organizations/acme, above the targets you are ADMIN of: only an ADMIN there can delete them.`]);
    expect((await readDoc(`tenants/acme-north/users/${uid}`))!.deletedAt).toBeNull();
    // A tenant-level ADMIN or a plain user of the tenant is theirs to delete; the organization's ADMIN may delete either.
    const peer = freshUid("peer");
    await putUserRecord("tenants/acme-north", peer);
    await firestore().doc(`tenants/acme-north/members/${peer}`).set({ permissions: ["ADMIN"] });
    await firestore().doc(`organizations/acme/members/${peer}`).set({ permissions: ["READ"] });
    expect((await softDelete("/tenant/acme-north", peer, tenantAdminToken)).status).toBe(200);
    const orgAdmin = await idTokenFor("org-admin@acme.test");
    expect((await softDelete("/organization/acme/tenant/acme-north", uid, orgAdmin)).status).toBe(200);
    expect((await readDoc(`tenants/acme-north/users/${uid}`))!.deletedAt).toBeInstanceOf(Timestamp);
    // Nor does a tenant's ADMIN undo what an organization's ADMIN decided there; a peer's delete they may.
    const plain = freshUid("plain");
    await putUserRecord("tenants/acme-north", plain);
    expect((await softDelete("/organization/acme/tenant/acme-north", plain, orgAdmin)).status).toBe(200);
    const undo = await restore("/tenant/acme-north", plain, tenantAdminToken);
    expect([undo.status, undo.json.message]).toEqual([401, `User '${plain}' was deleted by an ADMIN of organizations/acme, above the targets you are ADMIN of: only an ADMIN there can restore them.`]);
    expect(await readDoc(`tenants/acme-north/users/${plain}`)).toMatchObject({ deletedBy: "org-admin", deletedFrom: "organizations/acme" });
    // What counts is where the deleter's ADMIN started when they deleted, not their grants now (a
    // deleter who holds none any more); a record another system deleted says nothing and is restorable.
    const [formerly, external] = [freshUid("formerly"), freshUid("external")];
    await putUserRecord("tenants/acme-north", formerly, true);
    await firestore().doc(`tenants/acme-north/users/${formerly}`).update({ deletedBy: freshUid("gone-admin"), deletedFrom: "organizations/acme" });
    expect((await restore("/tenant/acme-north", formerly, tenantAdminToken)).status).toBe(401);
    await putUserRecord("tenants/acme-north", external, true);
    expect((await restore("/tenant/acme-north", external, tenantAdminToken)).status).toBe(201);
    expect((await restore("/tenant/acme-north", peer, tenantAdminToken)).status).toBe(201); // deleted by the caller
    expect((await softDelete("/tenant/acme-north", peer, await idTokenFor("north-admin@acme.test"))).status).toBe(200);
    expect((await restore("/tenant/acme-north", peer, tenantAdminToken)).status).toBe(201); // deleted by a tenant peer
    expect((await restore("/organization/acme/tenant/acme-north", plain, orgAdmin)).status).toBe(201);
  });

  it("needs ADMIN: MANAGE_PEOPLE is refused with 401 and nothing changes", async () => {
    const uid = freshUid("deleted");
    await putUserRecord("tenants/acme-north", uid, true);
    const people = await idTokenFor("north-people@acme.test");
    const res = await restore("/tenant/acme-north", uid, people);
    expect(res.status).toBe(401);
    expect(res.json.message).toMatch(/ADMIN/);
    expect((await readDoc(`tenants/acme-north/users/${uid}`))!.deletedAt).toBeInstanceOf(Timestamp);
  });

  it("needs PEOPLE_MANAGEMENT: refused with 401 where it is off", async () => {
    const south = await idTokenFor("south-admin@acme.test");
    const res = await softDelete("/tenant/acme-south", "south-admin", south);
    expect(res.status).toBe(401);
    expect(res.json.message).toMatch(/PEOPLE_MANAGEMENT/);
  });

  it("answers 400 for a division target", async () => {
    const res = await restore("/tenant/acme-north/division/ops", "former-employee");
    expect(res.status).toBe(400);
  });
});
