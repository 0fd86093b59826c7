import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { SIGN_IN_FAILURE_LIMITS } from "../../src/config";
import { db } from "../../src/firebase";
import { clientAddress, recordFailure, refuseIfLimited } from "../../src/http/signInLimit";
import { stackAdminApp } from "../../stack/seedStack";
import { firestore, freshTenantAdmin } from "../api/fixtures";
import { BASES, basicHeader, call, idTokenFor } from "../helpers";

// The failed-sign-in limit of Basic credentials (src/http/signInLimit.ts), through the stack: counted
// in Firestore across instances, per email and per client address (the last X-Forwarded-For hop, or
// the hop TRUSTED_PROXY_HOPS places before it).

const roles = `${BASES.api.functionUrl}/tenant/acme-north/roles`;
const { perEmail, perAddress, windowMs } = SIGN_IN_FAILURE_LIMITS;

/** A fresh ADMIN of acme-north with its own email, so that its failures are its own. */
const freshAdmin = () => freshTenantAdmin("limit");

const attempt = (email: string, password: string, address?: string) =>
  call(roles, { auth: { header: basicHeader(email, password) }, headers: address ? { "x-forwarded-for": address } : {} });

describe("failed Basic sign-ins", () => {
  // The last test runs the limit's own code here, on the stack's app: src/firebase.ts must set up its
  // Firestore before anything else uses it (settings() comes before any use).
  beforeAll(() => {
    stackAdminApp();
    db();
  });

  it(`lock an email after ${perEmail} failures in the window: then 429 with Retry-After, even for the right password; Bearer still works`, async () => {
    const user = await freshAdmin();
    expect((await attempt(user.email, user.password)).status).toBe(200);
    for (let i = 0; i < perEmail; i++) expect((await attempt(user.email, `guess-${i}`)).status).toBe(401);

    for (const password of ["guess-next", user.password]) {
      // Another spelling of the same email is the same account.
      const res = await attempt(user.email.toUpperCase(), password);
      expect(res.status).toBe(429);
      expect(res.json.message).toMatch(/Too many failed sign-ins for this email; try again in \d+ s, or sign in with the Firebase Auth SDK and send a Bearer ID token/);
      const retryAfter = Number(res.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual((2 * windowMs) / 1000); // at most two windows (src/http/signInLimit.ts)
    }
    const bearer = await call(roles, { auth: { bearer: await idTokenFor(user.email, user.password) } });
    expect(bearer.status).toBe(200);
    // Another account is not affected.
    expect((await attempt("north-admin@acme.test", "demo-password")).status).toBe(200);
  });

  it("are counted under hashed ids that hold neither the email nor the address", async () => {
    const user = await freshAdmin();
    await attempt(user.email, "wrong", "198.51.100.23");
    const counters = await firestore().collection("signInFailures").get();
    expect(counters.size).toBeGreaterThan(0);
    for (const doc of counters.docs) {
      expect(doc.id).toMatch(/^[0-9a-f]{64}_\d+$/);
      expect(Object.keys(doc.data()).sort()).toEqual(["count", "expireAt"]);
      expect(JSON.stringify(doc.data())).not.toMatch(/example\.test|198\.51/);
    }
  });

  it(`lock a client address after ${perAddress} failures, whatever the emails; by default (TRUSTED_PROXY_HOPS=0) the address is the last X-Forwarded-For hop, earlier hops are ignored`, async () => {
    const address = `203.0.113.${1 + Math.floor(Math.random() * 250)}`;
    const run = randomUUID();
    // Ten at a time: the functions emulator starts a worker for every request it has to wait for.
    for (let i = 0; i < perAddress; i += 10) {
      const failures = Array.from({ length: Math.min(10, perAddress - i) }, (_, j) => attempt(`nobody-${run}-${i + j}@example.test`, "wrong", `10.0.0.${j}, ${address}`));
      for (const res of await Promise.all(failures)) expect(res.status).toBe(401);
    }

    const user = await freshAdmin();
    const locked = await attempt(user.email, user.password, `192.0.2.1, ${address}`);
    expect(locked.status).toBe(429);
    expect(locked.json.message).toMatch(/Too many failed sign-ins from this address/);
    // The same account from another address, or with the locked address only as a forged earlier hop, is fine.
    expect((await attempt(user.email, user.password, `${address}, 192.0.2.1`)).status).toBe(200);
  });

  it("with no address (the functions emulator gives none), only the email's failures count", async () => {
    const user = await freshAdmin();
    for (let i = 0; i < perEmail - 1; i++) expect((await attempt(user.email, `guess-${i}`)).status).toBe(401);
    // As many failures as one address may have, of other emails and with no address: no bucket they share.
    const run = randomUUID();
    for (let i = 0; i < perAddress; i += 10) {
      const statuses = await Promise.all(Array.from({ length: 10 }, (_, j) => attempt(`nobody-${run}-${i + j}@example.test`, "wrong").then((res) => res.status)));
      expect(statuses).toEqual(Array(10).fill(401));
    }
    expect((await attempt(user.email, user.password)).status).toBe(200);
  });

  it(`behind a load balancer (TRUSTED_PROXY_HOPS=1), lock one client after ${perAddress} failures while another client behind the same balancer still signs in`, async () => {
    // The stack's functions run with the default (no balancer); here the limit's own code counts, against
    // the stack's Firestore, what a function instance with one trusted hop would count.
    const balancer = `34.117.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
    const [client, other] = [`198.51.100.${1 + Math.floor(Math.random() * 125)}`, `198.51.100.${126 + Math.floor(Math.random() * 125)}`];
    // The balancer appends `<client>, <its forwarding rule>` after whatever the client sent.
    const address = (from: string, forged = "") => clientAddress({ headers: { "x-forwarded-for": `${forged}${from}, ${balancer}` } }, 1);
    const run = randomUUID();
    for (let i = 0; i < perAddress; i += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, perAddress - i) }, async (_, j) => {
          await recordFailure(await refuseIfLimited(`nobody-${run}-${i + j}@example.test`, address(client, `10.0.0.${j}, `)));
        }),
      );
    }

    await expect(refuseIfLimited(`someone-${run}@example.test`, address(client))).rejects.toMatchObject({ statusCode: 429, message: expect.stringMatching(/from this address/) });
    await expect(refuseIfLimited(`someone-${run}@example.test`, address(other))).resolves.toBeDefined();
    // Forging the locked client as an earlier hop changes nothing for the other client either.
    await expect(refuseIfLimited(`someone-${run}@example.test`, address(other, `${client}, `))).resolves.toBeDefined();
  });

  it(`counts an IPv6 client by its /64: ${perAddress} failures from as many addresses of one block lock the block, not the next one`, async () => {
    const [a, b] = [Math.floor(Math.random() * 0xffff), Math.floor(Math.random() * 0xffff)];
    const [block, nextBlock] = [`2001:db8:${a.toString(16)}:${b.toString(16)}`, `2001:db8:${a.toString(16)}:${(b ^ 1).toString(16)}`];
    const run = randomUUID();
    for (let i = 0; i < perAddress; i += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, perAddress - i) }, async (_, j) => {
          await recordFailure(await refuseIfLimited(`nobody-${run}-${i + j}@example.test`, `${block}::${(i + j + 1).toString(16)}`));
        }),
      );
    }
    await expect(refuseIfLimited(`someone-${run}@example.test`, `${block}:abcd:1234:5678:9abc`)).rejects.toMatchObject({ statusCode: 429, message: expect.stringMatching(/from this address/) });
    await expect(refuseIfLimited(`someone-${run}@example.test`, `${nextBlock}::1`)).resolves.toBeDefined();
  });
});
