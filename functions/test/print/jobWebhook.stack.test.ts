// Print jobs' webhook (issue 34): an ADMIN sets jobWebhookUrl with PUT print-settings and is shown
// the target's signing secret once; a job's end is POSTed to a receiver in this process
// (http://127.0.0.1:<port>, which the emulator takes), which verifies it with the standardwebhooks
// package, as a customer's would. Fresh targets, so that other files' jobs and bounds are not shared.

import { statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIREBASE_LOG } from "../../stack/firebaseEmulators";
import { apiUrl, firestore } from "../api/fixtures";
import { BASES, call, idTokenFor } from "../helpers";
import { logSince, runId } from "../security/support";

const r = runId();
const ORG = `wh-org-${r}`;
const TENANT = `wh-t-${r}`; // sets its own URL
const INHERITS = `wh-i-${r}`; // a tenant of the same organization that sets none
const OTHER = `wh-x-${r}`; // another customer's tenant
const INSTANCE = "wh-doc";

interface Delivery {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** The receiver: records every POST; a path under /flaky/ answers 500 to its first POST. */
function receiver() {
  const deliveries: Delivery[] = [];
  const seen = new Set<string>();
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      const path = req.url ?? "";
      deliveries.push({ path, headers: req.headers as Record<string, string>, body });
      const failFirst = path.startsWith("/flaky/") && !seen.has(path);
      seen.add(path);
      res.writeHead(failFirst ? 500 : 200).end();
    });
  });
  return { server, deliveries };
}

describe("print jobs' webhook", () => {
  const { server, deliveries } = receiver();
  let base: string;
  let orgAdmin: string;
  let tenantAdmin: string;
  let reader: string;
  let otherAdmin: string;
  const secrets: Record<string, string> = {};
  const everySecret: string[] = [];
  let logFrom: number;

  beforeAll(async () => {
    logFrom = statSync(FIREBASE_LOG).size;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const batch = firestore().batch();
    batch.set(firestore().doc(`organizations/${ORG}`), { name: "Webhook Org", features: {} });
    batch.set(firestore().doc(`organizations/${ORG}/members/org-admin`), { permissions: ["ADMIN"] });
    for (const [tenant, organizationId] of [
      [TENANT, ORG],
      [INHERITS, ORG],
      [OTHER, null],
    ] as const) {
      batch.set(firestore().doc(`tenants/${tenant}`), { name: `Webhook ${tenant}`, organizationId, features: {} });
      batch.set(firestore().doc(`tenants/${tenant}/members/north-reader`), { permissions: ["READ"] });
      for (let i = 0; i < 150; i++) {
        batch.set(firestore().doc(`tenants/${tenant}/objectInstances/${INSTANCE}-${i}`), { title: `Doc ${i}`, objectTypeName: "T", sections: [{ title: "S", fields: [{ label: "N", type: "number", value: i }] }] });
      }
    }
    batch.set(firestore().doc(`tenants/${TENANT}/members/north-admin`), { permissions: ["ADMIN"] });
    batch.set(firestore().doc(`tenants/${OTHER}/members/solo-admin`), { permissions: ["ADMIN"] });
    await batch.commit();
    [orgAdmin, tenantAdmin, reader, otherAdmin] = await Promise.all(["org-admin@acme.test", "north-admin@acme.test", "north-reader@acme.test", "admin@solo.test"].map((email) => idTokenFor(email)));
  }, 60_000);
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** GET (no body) or PUT the tenant's print settings; every secret answered is kept for the log check. */
  async function settings(tenant: string, token: string, body?: unknown) {
    const res = await call(apiUrl(`/tenant/${tenant}/print-settings`), body === undefined ? { auth: { bearer: token } } : { method: "PUT", auth: { bearer: token }, body });
    if (res.json?.data?.webhookSecret) everySecret.push(res.json.data.webhookSecret);
    return res;
  }

  /** Starts a job of the tenant's first `count` instances and waits for its end (cancelled at once with `cancel`). */
  async function job(tenant: string, count = 1, cancel = false) {
    const jobs = `${BASES.print.functionUrl}/tenant/${tenant}/print-jobs`;
    const created = await call(jobs, { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: Array.from({ length: count }, (_, i) => `${INSTANCE}-${i}`) } });
    expect(created.status, created.text).toBe(202);
    const { jobId } = created.json.data;
    if (cancel) {
      const cancelled = await call(`${jobs}/${jobId}/cancel`, { method: "POST", auth: { bearer: reader } });
      expect(cancelled.status, cancelled.text).toBe(200);
    }
    const read = () => call(`${jobs}/${jobId}`, { auth: { bearer: reader } });
    for (const deadline = Date.now() + 90_000; (await read()).json.data.finishedAt === null; ) {
      if (Date.now() > deadline) throw new Error(`job ${jobId} did not end`);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    return { jobId, read };
  }

  /** The deliveries of a job's message, once there are `count` (the queue posts them after the job has ended). */
  async function deliveriesOf(jobId: string, count = 1, timeoutMs = 30_000): Promise<Delivery[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = deliveries.filter((d) => JSON.parse(d.body).data?.jobId === jobId);
      if (found.length >= count) return found;
      if (Date.now() > deadline) throw new Error(`${found.length} of ${count} deliveries of job ${jobId} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it("takes jobWebhookUrl from an ADMIN only, and answers the target's new signing secret once", async () => {
    const url = `${base}/tenant?token=tok-${r}`;
    expect((await settings(TENANT, reader, { jobWebhookUrl: url })).status).toBe(401);
    const saved = await settings(TENANT, tenantAdmin, { jobWebhookUrl: url });
    expect(saved.status, saved.text).toBe(200);
    secrets[TENANT] = saved.json.data.webhookSecret;
    expect(secrets[TENANT]).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(saved.json.data).toMatchObject({ effective: { jobWebhookUrl: url }, sources: { jobWebhookUrl: `tenants/${TENANT}` }, own: { jobWebhookUrl: url } });
    // Never again: not on reading, not on saving the same URL.
    const read = await settings(TENANT, tenantAdmin);
    expect(read.json.data).toEqual({ ...saved.json.data, webhookSecret: undefined });
    expect(read.text).not.toContain(secrets[TENANT].slice(6));
    const again = await settings(TENANT, tenantAdmin, { jobWebhookUrl: url });
    expect(again.json.data.webhookSecret).toBeUndefined();
    expect(again.text).not.toContain(secrets[TENANT].slice(6));
    // The trail names the URL without its query (it may hold a token) and never the secret.
    const trail = await call(apiUrl(`/tenant/${TENANT}/audit-events?action=printSettings.updated`), { auth: { bearer: tenantAdmin } });
    expect(trail.json.data[0].details).toEqual({ jobWebhookUrl: `${base}/tenant` });
    expect(trail.json.data.at(-1).details).toEqual({ jobWebhookUrl: `${base}/tenant`, webhookSecretIssued: "created" });
    expect(trail.text).not.toContain(`tok-${r}`);
    expect(trail.text).not.toContain(secrets[TENANT].slice(6));
  });

  it("refuses URLs that are not https to a public host with a 400 naming jobWebhookUrl, and changes nothing", async () => {
    const before = (await settings(TENANT, tenantAdmin)).json.data;
    for (const url of ["http://10.0.0.1/", "https://169.254.169.254/computeMetadata/v1/", "http://localhost:1/", "https://metadata.google.internal/", "https://[::ffff:10.0.0.1]/", "https://0x7f.1/", "http://127.0.0.1/no-port", "ftp://hooks.example.com/", "http://127.0.0.1:8025/\r\nX-Injected: y"]) {
      const res = await settings(TENANT, tenantAdmin, { jobWebhookUrl: url });
      expect(res.status, url).toBe(400);
      expect(res.json.message, url).toMatch(/^Invalid body: 'jobWebhookUrl': must/);
    }
    const rotateAlone = await settings(TENANT, tenantAdmin, { rotateWebhookSecret: true });
    expect(rotateAlone.status).toBe(400);
    expect(rotateAlone.json.message).toContain("'rotateWebhookSecret'");
    expect((await settings(TENANT, tenantAdmin)).json.data).toEqual(before);
  });

  it("POSTs print_job.finished of a finished job, signed with the target's secret; the job shows the delivery", async () => {
    const { jobId, read } = await job(TENANT);
    const [delivery] = await deliveriesOf(jobId);
    expect(delivery.path).toBe(`/tenant?token=tok-${r}`);
    expect(delivery.headers["webhook-id"]).toBe(`msg_${jobId}`);
    expect(new Webhook(secrets[TENANT]).verify(delivery.body, delivery.headers)).toEqual({
      type: "print_job.finished",
      data: { jobId, target: `tenants/${TENANT}`, status: "succeeded", total: 1, done: 1, failed: 0 },
    });
    for (let i = 0; (await read()).json.data.webhook.deliveredAt === null && i < 50; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    const shown = (await read()).json.data.webhook;
    expect(shown).toEqual({ attempts: 1, lastStatus: 200, lastError: null, deliveredAt: expect.any(String), failedAt: null });
  }, 120_000);

  it("POSTs the end of a cancelled job", async () => {
    const { jobId } = await job(TENANT, 150, true);
    const [delivery] = await deliveriesOf(jobId);
    const message = new Webhook(secrets[TENANT]).verify(delivery.body, delivery.headers) as { data: { status: string; total: number } };
    expect(message.data).toMatchObject({ jobId, status: "cancelled", total: 150 });
  }, 120_000);

  it("retries through the queue when the receiver answers 500: the same webhook-id, signed anew, attempts on the job", async () => {
    const url = `${base}/flaky/${r}`;
    expect((await settings(TENANT, tenantAdmin, { jobWebhookUrl: url })).status).toBe(200);
    const { jobId, read } = await job(TENANT);
    const [first, second] = await deliveriesOf(jobId, 2, 60_000);
    expect(second.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
    expect(Number(second.headers["webhook-timestamp"])).toBeGreaterThan(Number(first.headers["webhook-timestamp"]));
    for (const delivery of [first, second]) expect(new Webhook(secrets[TENANT]).verify(delivery.body, delivery.headers)).toMatchObject({ data: { jobId } });
    for (let i = 0; (await read()).json.data.webhook.deliveredAt === null && i < 50; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    const shown = (await read()).json.data.webhook;
    expect(shown.attempts).toBeGreaterThanOrEqual(2);
    expect(shown).toMatchObject({ lastStatus: 200, lastError: null, deliveredAt: expect.any(String) });
  }, 120_000);

  it("rotates the secret on request, shown once: the next job is signed with the new one, which the old one does not verify", async () => {
    const rotated = await settings(TENANT, tenantAdmin, { jobWebhookUrl: `${base}/rotated`, rotateWebhookSecret: true });
    expect(rotated.status, rotated.text).toBe(200);
    const renewed = rotated.json.data.webhookSecret as string;
    expect(renewed).toMatch(/^whsec_/);
    expect(renewed).not.toBe(secrets[TENANT]);
    expect((await settings(TENANT, tenantAdmin)).text).not.toContain(renewed.slice(6));
    const { jobId } = await job(TENANT);
    const [delivery] = await deliveriesOf(jobId);
    expect(new Webhook(renewed).verify(delivery.body, delivery.headers)).toMatchObject({ data: { jobId } });
    expect(() => new Webhook(secrets[TENANT]).verify(delivery.body, delivery.headers)).toThrow(/No matching signature/);
    secrets[TENANT] = renewed;
  }, 120_000);

  it("signs an inherited URL with the secret of the target that set it; null sets none below it", async () => {
    const orgSaved = await call(apiUrl(`/organization/${ORG}/print-settings`), { method: "PUT", auth: { bearer: orgAdmin }, body: { jobWebhookUrl: `${base}/org` } });
    expect(orgSaved.status, orgSaved.text).toBe(200);
    const orgSecret = orgSaved.json.data.webhookSecret as string;
    everySecret.push(orgSecret);
    const inherited = await settings(INHERITS, orgAdmin);
    expect(inherited.json.data).toMatchObject({ effective: { jobWebhookUrl: `${base}/org` }, sources: { jobWebhookUrl: `organizations/${ORG}` }, own: {} });
    expect(inherited.text).not.toContain(orgSecret.slice(6));
    const { jobId } = await job(INHERITS);
    const [delivery] = await deliveriesOf(jobId);
    expect(delivery.path).toBe("/org");
    expect(new Webhook(orgSecret).verify(delivery.body, delivery.headers)).toMatchObject({ data: { jobId, target: `tenants/${INHERITS}` } });
    // Not with the secret of its sibling, which sets a URL of its own.
    expect(() => new Webhook(secrets[TENANT]).verify(delivery.body, delivery.headers)).toThrow(/No matching signature/);

    const none = await settings(INHERITS, orgAdmin, { jobWebhookUrl: null });
    expect(none.status, none.text).toBe(200);
    expect(none.json.data).toMatchObject({ effective: { jobWebhookUrl: null }, sources: { jobWebhookUrl: `tenants/${INHERITS}` }, own: { jobWebhookUrl: null } });
    expect(none.json.data.webhookSecret).toBeUndefined();
    const quiet = await job(INHERITS);
    expect((await quiet.read()).json.data.webhook).toBeUndefined();
  }, 120_000);

  it("keeps each tenant's secret to itself: another customer's ADMIN gets their own, and their jobs are signed with it", async () => {
    const saved = await settings(OTHER, otherAdmin, { jobWebhookUrl: `${base}/other` });
    expect(saved.status, saved.text).toBe(200);
    const otherSecret = saved.json.data.webhookSecret as string;
    expect(otherSecret).not.toBe(secrets[TENANT]);
    for (const res of [saved, await settings(OTHER, otherAdmin)]) expect(res.text).not.toContain(secrets[TENANT].slice(6));
    expect((await settings(TENANT, otherAdmin)).status).toBe(401);
    expect((await settings(TENANT, tenantAdmin)).text).not.toContain(otherSecret.slice(6));
    const { jobId, read } = await job(OTHER);
    const [delivery] = await deliveriesOf(jobId);
    expect(new Webhook(otherSecret).verify(delivery.body, delivery.headers)).toMatchObject({ data: { jobId, target: `tenants/${OTHER}` } });
    expect(() => new Webhook(secrets[TENANT]).verify(delivery.body, delivery.headers)).toThrow();
    expect((await read()).text).not.toContain(otherSecret.slice(6));
  }, 120_000);

  it("logs deliveries, and never a secret or a URL's query", () => {
    const log = logSince(logFrom);
    expect(log).toContain("Print job webhook delivered");
    expect(log).toContain("Print job webhook not delivered: The receiver answered 500.");
    expect(everySecret.length).toBeGreaterThanOrEqual(4);
    for (const secret of everySecret) expect(log).not.toContain(secret.slice(6));
    expect(log).not.toContain(`tok-${r}`);
  });
});
