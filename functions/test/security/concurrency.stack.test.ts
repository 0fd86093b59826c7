/**
 * Concurrency: soft delete, restore, claim and release raced from many clients at once (each its
 * own user, so the audit fields tell who won) end in a state some serial order of the requests
 * explains: one winner where one is possible, answers that agree with the final state, and audit
 * fields naming a winner. Several rounds each, for different interleavings.
 */
import { Timestamp } from "firebase-admin/firestore";
import { beforeAll, describe, expect, it } from "vitest";
import { URLS } from "../../stack/config";
import { seedStack } from "../../stack/seedStack";
import { firestore } from "../api/fixtures";
import { basic, rawRequest, runId, type RawResponse } from "./support";

const r = runId();
const ORG = `cc-org-${r}`;
const TENANTS = Array.from({ length: 5 }, (_, i) => `cc-t${i}-${r}`);
const [HOME] = TENANTS;
const PASSWORD = `cc-password-${r}`;
/** Eight administrators of the home tenant, and one administrator of each other tenant. */
const ADMINS = Array.from({ length: 8 }, (_, i) => ({ uid: `cc-admin${i}-${r}`, email: `cc-admin${i}-${r}@cc.test` }));
const TENANT_ADMINS = TENANTS.map((t, i) => ({ uid: `cc-tadmin${i}-${r}`, email: `cc-tadmin${i}-${r}@cc.test`, tenant: t }));
const ROUNDS = 3;

const db = () => firestore();
const record = (tenant: string, uid: string) => db().doc(`tenants/${tenant}/users/${uid}`);
const owner = (uid: string) => db().doc(`authOwnership/${uid}`);
let subjects = 0;
const subject = () => `cc-user${subjects++}-${r}`;

const call = (method: string, path: string, caller: { email: string }): Promise<RawResponse> =>
  rawRequest({ method, origin: URLS.api, path: `/api${path}`, headers: { authorization: basic(caller.email, PASSWORD), "content-type": "application/json" }, timeoutMs: 60_000 });
const softDelete = (tenant: string, uid: string, caller: { email: string }) => call("DELETE", `/tenant/${tenant}/user/${uid}`, caller);
const restore = (tenant: string, uid: string, caller: { email: string }) => call("POST", `/tenant/${tenant}/user/${uid}/restore`, caller);
const claim = (tenant: string, uid: string, caller: { email: string }) => call("POST", `/tenant/${tenant}/user/${uid}/claim-auth-ownership`, caller);
const release = (tenant: string, uid: string, caller: { email: string }) => call("POST", `/tenant/${tenant}/user/${uid}/release-auth-ownership`, caller);

/** The audit events about `uid` in the trails of `tenants`, with the tenant each is in. */
async function eventsAbout(uid: string, tenants: string[]): Promise<{ tenant: string; action: string; actor: string }[]> {
  const trails = await Promise.all(tenants.map(async (tenant) => (await db().collection(`tenants/${tenant}/auditEvents`).where("subject", "==", uid).get()).docs.map((d) => ({ tenant, action: d.get("action"), actor: d.get("actor.uid") }))));
  return trails.flat();
}

async function putRecord(tenant: string, uid: string, deleted: boolean): Promise<void> {
  await record(tenant, uid).set({ email: `${uid}@cc.test`, deletedAt: deleted ? Timestamp.fromDate(new Date("2026-06-01T10:00:00Z")) : null });
}

/** Answers by status, for messages. */
const statuses = (answers: RawResponse[]) => answers.map((a) => `${a.status} ${a.json?.message ?? a.text.slice(0, 80)}`);

beforeAll(async () => {
  const documents: Record<string, Record<string, unknown>> = { [`organizations/${ORG}`]: { name: "Concurrency org", features: { PEOPLE_MANAGEMENT: true } } };
  for (const tenant of TENANTS) documents[`tenants/${tenant}`] = { name: tenant, organizationId: ORG, features: {} };
  for (const admin of ADMINS) documents[`tenants/${HOME}/members/${admin.uid}`] = { permissions: ["ADMIN"] };
  for (const admin of TENANT_ADMINS) documents[`tenants/${admin.tenant}/members/${admin.uid}`] = { permissions: ["MANAGE_PEOPLE"] };
  await seedStack({ users: [...ADMINS, ...TENANT_ADMINS].map(({ uid, email }) => ({ uid, email, password: PASSWORD })), documents });
}, 60_000);

describe("races on one user record", () => {
  it(`${ADMINS.length} administrators restoring one deleted user at once: one 201, the rest 400, the winner recorded (${ROUNDS} rounds)`, { timeout: 120_000 }, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const uid = subject();
      await putRecord(HOME, uid, true);
      const answers = await Promise.all(ADMINS.map((admin) => restore(HOME, uid, admin)));
      const winners = ADMINS.filter((_, i) => answers[i].status === 201);
      expect(winners.length, statuses(answers).join("\n")).toBe(1);
      for (const a of answers.filter((a) => a.status !== 201)) expect([a.status, a.json.message]).toEqual([400, `User '${uid}' cannot be restored: they are not deleted.`]);
      const final = (await record(HOME, uid).get()).data()!;
      expect(final).toMatchObject({ deletedAt: null, restoredBy: winners[0].uid });
      expect(final.restoredAt).toBeInstanceOf(Timestamp);
      expect(final).not.toHaveProperty("deletedBy");
      // One change, one event, by the one who made it: the losers' transactions wrote nothing.
      expect(await eventsAbout(uid, [HOME])).toEqual([{ tenant: HOME, action: "user.restored", actor: winners[0].uid }]);
    }
  });

  it(`${ADMINS.length} administrators deleting one user at once: one 200, the rest 400, the winner recorded (${ROUNDS} rounds)`, { timeout: 120_000 }, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const uid = subject();
      await putRecord(HOME, uid, false);
      const answers = await Promise.all(ADMINS.map((admin) => softDelete(HOME, uid, admin)));
      const winners = ADMINS.filter((_, i) => answers[i].status === 200);
      expect(winners.length, statuses(answers).join("\n")).toBe(1);
      for (const a of answers.filter((a) => a.status !== 200)) expect([a.status, a.json.message]).toEqual([400, `User '${uid}' cannot be deleted: they are already deleted.`]);
      const final = (await record(HOME, uid).get()).data()!;
      expect(final.deletedAt).toBeInstanceOf(Timestamp);
      expect(final.deletedBy).toBe(winners[0].uid);
    }
  });

  it(`deletes and restores raced on one active user: the answers form a serial history that ends in the stored state (${ROUNDS} rounds)`, { timeout: 120_000 }, async () => {
    const deleters = ADMINS.slice(0, 4);
    const restorers = ADMINS.slice(4);
    for (let round = 0; round < ROUNDS; round++) {
      const uid = subject();
      await putRecord(HOME, uid, false);
      const requests = [...deleters.map((a) => () => softDelete(HOME, uid, a)), ...restorers.map((a) => () => restore(HOME, uid, a))];
      const answers = await Promise.all(requests.map((send) => send()));
      const deletedBy = deleters.filter((_, i) => answers[i].status === 200).map((a) => a.uid);
      const restoredBy = restorers.filter((_, i) => answers[deleters.length + i].status === 201).map((a) => a.uid);
      const failures = answers.filter((a) => a.status !== 200 && a.status !== 201);
      expect(failures.every((a) => a.status === 400), statuses(answers).join("\n")).toBe(true);
      // From "active", a serial history alternates delete, restore, delete...: d = r or d = r + 1.
      expect([0, 1], statuses(answers).join("\n")).toContain(deletedBy.length - restoredBy.length);
      const final = (await record(HOME, uid).get()).data()!;
      if (deletedBy.length > restoredBy.length) {
        expect(final.deletedAt).toBeInstanceOf(Timestamp);
        expect(deletedBy).toContain(final.deletedBy);
      } else {
        expect(final.deletedAt).toBeNull();
        expect(final).not.toHaveProperty("deletedBy");
      }
      if (restoredBy.length > 0) expect(restoredBy).toContain(final.restoredBy);
      else expect(final).not.toHaveProperty("restoredBy");
    }
  });
});

describe("races on one authentication's ownership", () => {
  it(`${TENANTS.length} tenants claiming one unclaimed user at once: one wins, four get 409, the owner and claimer recorded (${ROUNDS} rounds)`, { timeout: 120_000 }, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const uid = subject();
      await Promise.all(TENANTS.map((t) => putRecord(t, uid, false)));
      const answers = await Promise.all(TENANT_ADMINS.map((a) => claim(a.tenant, uid, a)));
      const winners = TENANT_ADMINS.filter((_, i) => answers[i].status === 200);
      expect(winners.length, statuses(answers).join("\n")).toBe(1);
      for (const a of answers.filter((a) => a.status !== 200)) expect(a.status).toBe(409);
      // The losers learn nothing of the winner.
      for (const a of answers) for (const t of TENANTS) if (a.status !== 200) expect(a.text).not.toContain(t);
      expect((await owner(uid).get()).data()).toMatchObject({ ownerPath: `tenants/${winners[0].tenant}`, claimedBy: winners[0].uid });
      expect(await eventsAbout(uid, TENANTS)).toEqual([{ tenant: winners[0].tenant, action: "authOwnership.claimed", actor: winners[0].uid }]);
    }
  });

  it(`the owner releasing while four other tenants claim: a claim wins only after the release, and the stored owner agrees (${ROUNDS} rounds)`, { timeout: 120_000 }, async () => {
    const [home, ...others] = TENANT_ADMINS;
    for (let round = 0; round < ROUNDS; round++) {
      const uid = subject();
      await Promise.all(TENANTS.map((t) => putRecord(t, uid, false)));
      await owner(uid).set({ ownerPath: `tenants/${home.tenant}`, claimedAt: Timestamp.now(), claimedBy: home.uid });
      const [released, ...claims] = await Promise.all([release(home.tenant, uid, home), ...others.map((a) => claim(a.tenant, uid, a))]);
      const all = [released, ...claims];
      expect([200, 409], statuses(all).join("\n")).toContain(released.status);
      expect(claims.every((a) => a.status === 200 || a.status === 409), statuses(all).join("\n")).toBe(true);
      const winners = others.filter((_, i) => claims[i].status === 200);
      expect(winners.length).toBeLessThanOrEqual(1);
      const final = await owner(uid).get();
      if (winners.length === 1) {
        expect(released.status).toBe(200); // only a released authentication can be claimed
        expect(final.data()).toMatchObject({ ownerPath: `tenants/${winners[0].tenant}`, claimedBy: winners[0].uid });
      } else if (released.status === 200) {
        expect(final.exists).toBe(false); // released, and every claim came before it
      } else {
        expect(final.data()).toMatchObject({ ownerPath: `tenants/${home.tenant}` });
      }
    }
  });

  it(`a claim raced with a soft delete of the same record: the stored state agrees with both answers (${ROUNDS} rounds)`, { timeout: 120_000 }, async () => {
    const claimer = TENANT_ADMINS[0];
    for (let round = 0; round < ROUNDS; round++) {
      const uid = subject();
      await putRecord(HOME, uid, false);
      const [claimed, deleted] = await Promise.all([claim(HOME, uid, claimer), softDelete(HOME, uid, ADMINS[round])]);
      expect(deleted.status, deleted.text).toBe(200); // the delete never depends on ownership
      expect([200, 409], claimed.text).toContain(claimed.status);
      const ownership = await owner(uid).get();
      if (claimed.status === 200) expect(ownership.data()).toMatchObject({ ownerPath: `tenants/${HOME}`, claimedBy: claimer.uid });
      else {
        // The claim came after the delete: refused because the record is deleted, nothing owned.
        expect(claimed.json.message).toMatch(/is deleted in this target/);
        expect(ownership.exists).toBe(false);
      }
      expect((await record(HOME, uid).get()).data()).toMatchObject({ deletedBy: ADMINS[round].uid });
    }
  });
});
