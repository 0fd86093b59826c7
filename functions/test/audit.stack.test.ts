import { Timestamp } from "firebase-admin/firestore";
import { beforeAll, describe, expect, it } from "vitest";
import { AUDIT_RETENTION_MS } from "../src/audit";
import { HOUR_MS } from "../src/config";
import { URLS } from "../stack/config";
import { apiUrl, firestore, freshUid, putOwner, putUserRecord } from "./api/fixtures";
import { BASES, call, idTokenFor } from "./helpers";

// The audit trail (src/audit.ts): every change and every PDF that leaves the service is an event under
// its target, written with the change; a request that changes nothing writes none.

const TENANT = "tenants/acme-north";
const eventsAbout = async (subject: string, target = TENANT) =>
  (await firestore().collection(`${target}/auditEvents`).where("subject", "==", subject).get()).docs.map((d) => d.data());

describe("audit events", () => {
  let admin: string;
  beforeAll(async () => {
    admin = await idTokenFor("north-admin@acme.test");
  });
  const as = () => ({ auth: { bearer: admin } });

  it.each([
    ["soft delete", "user.deleted", "DELETE", "", false, undefined],
    ["restore", "user.restored", "POST", "/restore", true, undefined],
    ["claim", "authOwnership.claimed", "POST", "/claim-auth-ownership", false, undefined],
    ["release", "authOwnership.released", "POST", "/release-auth-ownership", false, TENANT],
  ] as const)("%s writes one event with the change: who, how, where, about whom, which request; no personal data", async (_name, action, method, suffix, deleted, owner) => {
    const uid = freshUid("audit");
    await putUserRecord(TENANT, uid, deleted);
    if (owner) await putOwner(uid, owner);
    const res = await call(apiUrl(`/tenant/acme-north/user/${uid}${suffix}`), { method, ...as() });
    expect(res.status).toBeLessThan(300);
    const events = await eventsAbout(uid);
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event).toEqual({
      at: expect.any(Timestamp),
      action,
      actor: { uid: "north-admin", scheme: "bearer" },
      target: TENANT,
      subject: uid,
      requestId: res.headers.get("x-request-id"),
      details: {},
      expireAt: expect.any(Timestamp),
    });
    expect(event.expireAt.toMillis() - event.at.toMillis()).toBeGreaterThan(AUDIT_RETENTION_MS - 60_000);
    // The same event, under the same id, in the trail of the organization above.
    expect(await eventsAbout(uid, "organizations/acme")).toEqual(events);
    expect(JSON.stringify(event)).not.toMatch(/@/);
  });

  it("a change that is refused or fails writes no event (400, 404, 409, 401)", async () => {
    const uid = freshUid("audit-refused");
    await putUserRecord(TENANT, uid, false);
    await putOwner(uid, "tenants/solo");
    const answers = await Promise.all([
      call(apiUrl(`/tenant/acme-north/user/${uid}/restore`), { method: "POST", ...as() }), // not deleted: 400
      call(apiUrl(`/tenant/acme-north/user/${uid}/claim-auth-ownership`), { method: "POST", ...as() }), // owned elsewhere: 409
      call(apiUrl(`/tenant/acme-north/user/${uid}/release-auth-ownership`), { method: "POST", ...as() }), // not ours: 409
      call(apiUrl(`/tenant/acme-north/user/${uid}`), { method: "DELETE", auth: { basic: "north-reader@acme.test" } }), // no permission: 401
      call(apiUrl(`/tenant/acme-north/user/${freshUid("nobody")}/claim-auth-ownership`), { method: "POST", ...as() }), // no record: 404
    ]);
    expect(answers.map((a) => a.status)).toEqual([400, 409, 409, 401, 404]);
    expect(await eventsAbout(uid)).toEqual([]);
  });

  it("a change cut off by a Firestore outage writes neither the change nor its event", async (context) => {
    const faults = await call(`${URLS.mailSink}/faults`);
    if (faults.status === 501) return context.skip(); // Google's emulator: no fault switch (README)
    const uid = freshUid("audit-fault");
    await putUserRecord(TENANT, uid, false);
    await call(`${URLS.mailSink}/faults`, { method: "PUT", body: { firestore: { mode: "down" } } });
    let res;
    try {
      res = await call(apiUrl(`/tenant/acme-north/user/${uid}`), { method: "DELETE", ...as(), timeoutMs: 30_000 });
    } finally {
      await call(`${URLS.mailSink}/faults`, { method: "PUT", body: {} });
    }
    expect(res.status).toBe(503);
    expect((await firestore().doc(`${TENANT}/users/${uid}`).get()).get("deletedAt")).toBeNull();
    expect(await eventsAbout(uid)).toEqual([]);
  }, 60_000);

  it("print writes one event per PDF handed out: instance, version, storage path", async () => {
    const res = await call(`${BASES.print.functionUrl}/tenant/acme-north/print`, { method: "POST", ...as(), body: { objectInstanceId: "inspection-short" } });
    expect(res.status).toBe(201);
    const event = (await eventsAbout("inspection-short")).find((e) => e.requestId === res.headers.get("x-request-id"));
    expect(event).toMatchObject({ action: "pdf.printed", subject: "inspection-short", details: { storagePath: res.json.data.storagePath, cached: res.json.data.cached, instanceVersion: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) } });
  });

  // A stored PDF printed again costs no render and no quota: a loop of them must not fill the trail
  // (kept 400 days, in every target above) with an event each.
  it("print records a stored PDF printed again once an hour per user and PDF, a new render every time", async () => {
    const instanceId = `audit-again-${Date.now()}`;
    const ref = firestore().doc(`${TENANT}/objectInstances/${instanceId}`);
    await ref.set({ title: "Printed again", objectTypeName: "Test", sections: [{ title: "S", fields: [{ label: "A", type: "text", value: "one" }] }] });
    const print = () => call(`${BASES.print.functionUrl}/tenant/acme-north/print`, { method: "POST", ...as(), body: { objectInstanceId: instanceId } });
    const answers = [];
    const hours = new Set<number>(); // the hours of the clock the prints again ran in
    for (let i = 0; i < 6; i++) {
      if (i > 0) hours.add(Math.floor(Date.now() / HOUR_MS));
      answers.push(await print());
      if (i > 0) hours.add(Math.floor(Date.now() / HOUR_MS));
    }
    expect(answers.map((r) => [r.status, r.json.data.cached])).toEqual([[201, false], ...Array(5).fill([201, true])]);
    const events = await eventsAbout(instanceId);
    const again = events.filter((e) => e.details.cached === true);
    // One event of the render; one of the five prints again, the latest's (two when the hour turned among them).
    expect(events.filter((e) => e.details.cached === false)).toHaveLength(1);
    if (hours.size === 1) expect(again).toHaveLength(1);
    else expect(again.length).toBeLessThanOrEqual(2);
    expect(again.map((e) => e.requestId)).toContain(answers[5].headers.get("x-request-id"));
    // In the organization's trail alike, under the same ids.
    const requests = (list: typeof events) => list.map((e) => e.requestId).sort();
    expect(requests(await eventsAbout(instanceId, "organizations/acme"))).toEqual(requests(events));
    // A new version renders again: a new event.
    await ref.update({ title: "Printed again, edited" });
    expect((await print()).json.data.cached).toBe(false);
    expect((await eventsAbout(instanceId)).filter((e) => e.details.cached === false)).toHaveLength(2);
  });

  it("send-pdf writes one event per mail: recipient count and domains, never the addresses", async () => {
    const res = await call(`${BASES.print.functionUrl}/tenant/acme-north/send-pdf`, { method: "POST", ...as(), body: { objectInstanceId: "inspection-short", to: ["a@one.example", "b@Two.example"], cc: "c@one.example" } });
    expect(res.status).toBe(200);
    const event = (await eventsAbout("inspection-short")).find((e) => e.requestId === res.headers.get("x-request-id"));
    expect(event).toMatchObject({ action: "pdf.mailed", details: { recipients: 3, recipientDomains: ["one.example", "two.example"], messageId: res.json.data.messageId, storagePath: res.json.data.storagePath } });
    expect(JSON.stringify(event)).not.toMatch(/a@one|b@two|c@one/i);
  });
});
