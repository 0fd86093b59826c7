import { beforeAll, describe, expect, it } from "vitest";
import { call, idTokenFor } from "../helpers";
import { apiUrl, firestore, freshUid, putOwner, putUserRecord, readDoc } from "./fixtures";

describe("POST /api/{target}/user/:userId/claim-auth-ownership and release-auth-ownership", () => {
  let admin: string;
  beforeAll(async () => {
    admin = await idTokenFor("north-admin@acme.test");
  });
  const claim = (target: string, uid: string, token = admin) => call(apiUrl(`${target}/user/${uid}/claim-auth-ownership`), { method: "POST", auth: { bearer: token }, timeoutMs: 60_000 });
  const release = (target: string, uid: string, token = admin) => call(apiUrl(`${target}/user/${uid}/release-auth-ownership`), { method: "POST", auth: { bearer: token } });

  it("claims an unclaimed authentication of one of the target's users", async () => {
    const uid = freshUid("unclaimed");
    await putUserRecord("tenants/acme-north", uid);
    const res = await claim("/tenant/acme-north", uid);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ statusCode: 200, message: expect.any(String), data: { userId: uid, isLinkedToCurrentTenant: true, isUnclaimed: false } });
    expect(await readDoc(`authOwnership/${uid}`)).toMatchObject({ ownerPath: "tenants/acme-north", claimedBy: "north-admin" });
    const status = await call(apiUrl(`/tenant/acme-north/user/${uid}/auth-ownership-status`), { auth: { bearer: admin } });
    expect(status.json.data).toEqual({ userId: uid, isLinkedToCurrentTenant: true, isUnclaimed: false });
  });

  it("releases what the target owns; the authentication is then unclaimed", async () => {
    const uid = freshUid("owned");
    await putUserRecord("tenants/acme-north", uid);
    await putOwner(uid, "tenants/acme-north");
    const res = await release("/tenant/acme-north", uid, await idTokenFor("north-people@acme.test"));
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ userId: uid, isLinkedToCurrentTenant: false, isUnclaimed: true });
    expect(await readDoc(`authOwnership/${uid}`)).toBeUndefined();
  });

  it("refuses with 409 to claim what another target owns, without naming it, and changes nothing", async () => {
    const uid = freshUid("elsewhere");
    await putUserRecord("tenants/acme-north", uid);
    await putOwner(uid, "tenants/solo");
    const res = await claim("/tenant/acme-north", uid);
    expect(res.status).toBe(409);
    expect(res.json).toEqual({ statusCode: 409, error: "Conflict", message: expect.any(String) });
    expect(res.text).not.toMatch(/solo|tenants\//);
    expect(await readDoc(`authOwnership/${uid}`)).toMatchObject({ ownerPath: "tenants/solo" });
  });

  it("refuses with 409 to claim what the target already owns, and to claim for a deleted user", async () => {
    const owned = freshUid("mine");
    await putUserRecord("tenants/acme-north", owned);
    await putOwner(owned, "tenants/acme-north");
    expect((await claim("/tenant/acme-north", owned)).status).toBe(409);
    const deleted = freshUid("deleted");
    await putUserRecord("tenants/acme-north", deleted, true);
    expect((await claim("/tenant/acme-north", deleted)).status).toBe(409);
    expect(await readDoc(`authOwnership/${deleted}`)).toBeUndefined();
  });

  it.each([
    ["claim", undefined],
    ["release", undefined],
    ["release", "tenants/solo"],
  ])("answers 404 to %s when the user has no record in the target (owner %s), and changes nothing", async (route, owner) => {
    const uid = freshUid("stranger");
    if (owner) await putOwner(uid, owner);
    const res = await (route === "claim" ? claim : release)("/tenant/acme-north", uid);
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ statusCode: 404, error: "Not Found", message: `User '${uid}' has no record in this target.` });
    expect((await readDoc(`authOwnership/${uid}`))?.ownerPath).toBe(owner);
  });

  it.each([
    ["unclaimed", undefined],
    ["owned by another target", "tenants/solo"],
  ])("refuses with 409 to release what is %s, naming no owner", async (_state, owner) => {
    const uid = freshUid("release");
    await putUserRecord("tenants/acme-north", uid);
    if (owner) await putOwner(uid, owner);
    const res = await release("/tenant/acme-north", uid);
    expect(res.status).toBe(409);
    expect(res.json.message).toBe(`This target does not own the authentication of user '${uid}'.`);
    expect((await readDoc(`authOwnership/${uid}`))?.ownerPath).toBe(owner);
  });

  it("needs ADMIN or MANAGE_PEOPLE and PEOPLE_MANAGEMENT", async () => {
    const uid = freshUid("guarded");
    await putUserRecord("tenants/acme-north", uid);
    expect((await claim("/tenant/acme-north", uid, await idTokenFor("north-reader@acme.test"))).status).toBe(401);
    await putUserRecord("tenants/acme-south", uid);
    expect((await claim("/tenant/acme-south", uid, await idTokenFor("south-admin@acme.test"))).status).toBe(401);
    expect(await readDoc(`authOwnership/${uid}`)).toBeUndefined();
  });

  it("lets exactly one of 10 tenants claiming at once win; the other nine get 409", async () => {
    const uid = freshUid("contested");
    const tenants = Array.from({ length: 10 }, (_, i) => freshUid(`race-${i}`));
    const db = firestore();
    await Promise.all(
      tenants.flatMap((t) => [
        db.doc(`tenants/${t}`).set({ name: t, organizationId: null, features: { PEOPLE_MANAGEMENT: true } }),
        db.doc(`tenants/${t}/members/north-admin`).set({ permissions: ["ADMIN"] }),
        putUserRecord(`tenants/${t}`, uid),
      ]),
    );
    const results = await Promise.all(tenants.map((t) => claim(`/tenant/${t}`, uid)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses, JSON.stringify(results.map((r) => [r.status, r.json?.message]))).toEqual([200, ...Array(9).fill(409)]);
    const winner = tenants[results.findIndex((r) => r.status === 200)];
    expect(await readDoc(`authOwnership/${uid}`)).toMatchObject({ ownerPath: `tenants/${winner}` });
  }, 90_000);
});
