/**
 * Faults of the backends, injected into the running stack: Cloud Storage answering 503, dropping
 * connections or going silent (before the request or midway, when the PDF is stored), the mail sink
 * (SendGrid) refusing, failing or not answering, Firestore unreachable or silent. Each must answer
 * a documented 502/503/504 quickly (at once, or at the deadline of the call that failed), leave no
 * half-written state (no PDF reported as printed, no half-applied restore, no mail), and the next
 * request after recovery must succeed.
 *
 * Storage and Firestore faults act on the stack's JavaScript emulators, which run in the launcher
 * process, through the control endpoint `PUT /faults` (stack/faults.ts). Under Google's emulators
 * (Java 21) that endpoint answers 501 and those tests are skipped, saying so; mail faults always run.
 */
import { getStorage } from "firebase-admin/storage";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { BUCKET, URLS } from "../../stack/config";
import { seedStack, stackAdminApp } from "../../stack/seedStack";
import { firestore } from "../api/fixtures";
import { basic, errorBodyProblem, mailSink, rawRequest, runId, type RawResponse } from "./support";

/** The deadlines of functions/src/config.ts and SendGrid's timeout. */
const FIRESTORE_DEADLINE_MS = 10_000;
const STORAGE_DEADLINE_MS = 10_000;
const SENDGRID_TIMEOUT_MS = 10_000;
/** What "quickly" allows on top: this machine is shared and has two cores. */
const SLACK_MS = 6_000;
/** A failure that needs no timeout must come back at least this fast. */
const AT_ONCE_MS = 5_000;

const r = runId();
const TENANT = `flt-tenant-${r}`;
const ADMIN = { uid: `flt-admin-${r}`, email: `flt-admin-${r}@flt.test` };
const PASSWORD = `flt-password-${r}`;
const AUTH = { authorization: basic(ADMIN.email, PASSWORD) };

const SKIP_REASON = "needs the stack's JavaScript Firestore and Storage emulators (GET /faults on the mail sink did not answer 200): skipped, not passed";
let faultsAvailable = false;
/** Skips the running test, saying why, when the stack cannot inject Storage and Firestore faults. */
function needsFaults(context: TestContext): void {
  if (!faultsAvailable) context.skip(SKIP_REASON);
}

const setFaults = async (faults: Record<string, unknown>) => {
  const res = await mailSink("/faults", { method: "PUT", body: faults });
  expect(res.status, res.text).toBe(200);
};
const mailBehaviour = async (behaviour: Record<string, unknown>) => expect((await mailSink("/behaviour", { method: "PUT", body: behaviour })).status).toBe(200);
const capturedMail = async () => (await mailSink("/messages")).json as { body: { personalizations: { to: { email: string }[] }[] } }[];

const db = () => firestore();
const bucket = () => getStorage(stackAdminApp()).bucket(BUCKET);
/** The stored PDFs of one instance of the tenant. */
const storedPdfs = async (instanceId: string) => (await bucket().getFiles({ prefix: `generated-pdfs/tenants/${TENANT}/${instanceId}/` }))[0].map((f) => f.name);

let instanceCount = 0;
/** A new object instance of the tenant, never printed. */
async function freshInstance(): Promise<string> {
  const id = `flt-doc-${instanceCount++}`;
  await db().doc(`tenants/${TENANT}/objectInstances/${id}`).set({ title: `Fault test ${id}`, objectTypeName: "Test", sections: [{ title: "S", fields: [{ label: "A", type: "text", value: id }] }] });
  return id;
}

const print = (objectInstanceId: string) =>
  rawRequest({ method: "POST", origin: URLS.print, path: `/print/tenant/${TENANT}/print`, headers: { ...AUTH, "content-type": "application/json" }, body: JSON.stringify({ objectInstanceId }), timeoutMs: 40_000 });
const sendPdf = (objectInstanceId: string, to: string) =>
  rawRequest({ method: "POST", origin: URLS.print, path: `/print/tenant/${TENANT}/send-pdf`, headers: { ...AUTH, "content-type": "application/json" }, body: JSON.stringify({ objectInstanceId, to }), timeoutMs: 40_000 });
const restore = (uid: string) => rawRequest({ method: "POST", origin: URLS.api, path: `/api/tenant/${TENANT}/user/${uid}/restore`, headers: { ...AUTH, "content-type": "application/json" }, timeoutMs: 40_000 });
const roles = () => rawRequest({ method: "GET", origin: URLS.api, path: `/api/tenant/${TENANT}/roles`, headers: AUTH, timeoutMs: 40_000 });

/** A documented failure: the status, our JSON error body, a message matching, within the time allowed. */
function expectFailure(res: RawResponse, status: number, message: RegExp, withinMs: number): void {
  expect(res.status, res.text).toBe(status);
  expect(errorBodyProblem(res), res.text).toBeUndefined();
  expect(res.json.message).toMatch(message);
  expect(res.elapsedMs, `answered after ${Math.round(res.elapsedMs)} ms`).toBeLessThan(withinMs);
}

/** Every fault tried, for the summary line. */
const tried: string[] = [];

beforeAll(async () => {
  faultsAvailable = (await mailSink("/faults")).status === 200;
  if (!faultsAvailable) console.warn(`Storage and Firestore fault tests SKIPPED: ${SKIP_REASON}.`);
  await seedStack({
    users: [{ uid: ADMIN.uid, email: ADMIN.email, password: PASSWORD }],
    documents: {
      [`tenants/${TENANT}`]: { name: "Fault tenant", organizationId: null, features: { PEOPLE_MANAGEMENT: true } },
      [`tenants/${TENANT}/members/${ADMIN.uid}`]: { permissions: ["ADMIN", "READ"] },
      [`tenants/${TENANT}/roles/flt-role`]: { name: "Role", description: "", permissions: ["READ"], createdAt: { $timestamp: "2026-01-01T00:00:00Z" } },
    },
  });
  // Warm both functions, so that the timings below measure the fault and not a cold start.
  expect((await roles()).status).toBe(200);
  expect((await print(await freshInstance())).status).toBe(201);
}, 60_000);

afterEach(async () => {
  if (faultsAvailable) await setFaults({});
  await mailBehaviour({});
});

afterAll(() => {
  console.log(`Faults tried (${tried.length}): ${tried.join("; ")}.`);
});

describe("Cloud Storage faults", () => {
  it("answering 503 to everything: print answers 503 at once, stores nothing, and prints once Storage is back", async (context) => {
    needsFaults(context);
    const id = await freshInstance();
    await setFaults({ storage: { mode: "unavailable" } });
    expectFailure(await print(id), 503, /Cloud Storage is unavailable/, STORAGE_DEADLINE_MS + SLACK_MS);
    await setFaults({});
    expect(await storedPdfs(id)).toEqual([]);
    const after = await print(id);
    expect(after.status, after.text).toBe(201);
    expect(after.json.data.cached).toBe(false);
    expect(await storedPdfs(id)).toEqual([after.json.data.storagePath]);
    tried.push("Storage answering 503 -> print 503");
  });

  it.for([
    ["answering 503", "unavailable"],
    ["dropping the connection", "reset"],
  ])("%s when the PDF is stored (after the reads and the rendering): 503 at once, no orphaned PDF, then 201", async ([, mode], context) => {
    needsFaults(context);
    const id = await freshInstance();
    await setFaults({ storage: { mode, only: "uploads" } });
    expectFailure(await print(id), 503, /Cloud Storage is unavailable/, AT_ONCE_MS);
    await setFaults({});
    expect(await storedPdfs(id)).toEqual([]);
    const after = await print(id);
    expect(after.status, after.text).toBe(201);
    expect(after.json.data.cached).toBe(false);
    tried.push(`Storage ${mode === "reset" ? "dropping connections" : "answering 503"} on upload (mid-request) -> print 503`);
  });

  it("answering 503 while a picture is downloaded (inside the render): 503 at once, not remembered: the retry renders (201)", async (context) => {
    needsFaults(context);
    const id = await freshInstance();
    const path = `uploads/tenants/${TENANT}/photos/${id}.png`;
    await bucket().file(path).save(await sharp({ create: { width: 8, height: 6, channels: 3, background: "#3a6" } }).png().toBuffer(), { contentType: "image/png" });
    await db().doc(`tenants/${TENANT}/objectInstances/${id}`).update({ sections: [{ title: "S", fields: [{ label: "Photo", type: "image", value: { storagePath: path } }] }] });
    // The picture's metadata is read before the render (its generation names the PDF); its bytes inside it.
    await setFaults({ storage: { mode: "unavailable", only: "downloads" } });
    // (The Storage client retries a failed download: within the deadline, as for every Storage call.)
    expectFailure(await print(id), 503, /Cloud Storage is unavailable; try again shortly/, STORAGE_DEADLINE_MS + SLACK_MS);
    await setFaults({});
    // A failed render of a version is remembered for 10 minutes: only when the version is the cause (a limit's 422).
    const after = await print(id);
    expect(after.status, after.text).toBe(201);
    expect(after.json.data.cached).toBe(false);
    expect(await storedPdfs(id)).toEqual([after.json.data.storagePath]);
    tried.push("Storage answering 503 to a picture's download (mid-render) -> print 503, then 201");
  });

  it("dropping every connection (as if stopped): print and send-pdf answer 503, nothing is sent", async (context) => {
    needsFaults(context);
    const printed = await freshInstance();
    const fresh = await freshInstance();
    expect((await print(printed)).status).toBe(201); // stored: send-pdf will need to read it back
    await mailSink("/messages", { method: "DELETE" });
    await setFaults({ storage: { mode: "reset" } });
    const [printing, sending] = await Promise.all([print(fresh), sendPdf(printed, `flt-${r}@example.test`)]);
    expectFailure(printing, 503, /Cloud Storage is unavailable/, STORAGE_DEADLINE_MS + SLACK_MS);
    expectFailure(sending, 503, /Cloud Storage is unavailable/, STORAGE_DEADLINE_MS + SLACK_MS);
    await setFaults({});
    expect(await capturedMail()).toEqual([]);
    expect(await storedPdfs(fresh)).toEqual([]);
    expect((await print(fresh)).status).toBe(201);
    tried.push("Storage dropping every connection -> print and send-pdf 503");
  });
});

describe("mail (SendGrid) faults", () => {
  it.each([
    ["refusing the mail (400)", { status: 400 }, /SendGrid refused the email \(400\)/],
    ["failing (500)", { status: 500 }, /SendGrid failed to send the email/],
  ])("%s: send-pdf answers 502 at once, nothing is sent, and the next send succeeds", async (_name, behaviour, message) => {
    const id = await freshInstance();
    await mailSink("/messages", { method: "DELETE" });
    await mailBehaviour(behaviour);
    expectFailure(await sendPdf(id, `flt-${r}@example.test`), 502, message, AT_ONCE_MS);
    expect(await capturedMail()).toEqual([]);
    await mailBehaviour({});
    const after = await sendPdf(id, `flt-${r}@example.test`);
    expect(after.status, after.text).toBe(200);
    expect((await capturedMail()).length).toBe(1);
    tried.push(`mail sink ${behaviour.status} -> send-pdf 502`);
  });
});

describe("slow backends: Storage silent when the PDF is stored, SendGrid silent (at once)", () => {
  it("print answers 503 at the Storage deadline with no PDF left; send-pdf answers 504 at SendGrid's timeout; both succeed afterwards", async (context) => {
    needsFaults(context);
    const printed = await freshInstance();
    const fresh = await freshInstance();
    expect((await print(printed)).status).toBe(201);
    await mailSink("/messages", { method: "DELETE" });
    await setFaults({ storage: { mode: "hang", only: "uploads" } });
    // Late mail is refused by the sink, so that "not sent" stays true after the timeout.
    await mailBehaviour({ delayMs: SENDGRID_TIMEOUT_MS + 2_000, status: 500 });
    const [printing, sending] = await Promise.all([print(fresh), sendPdf(printed, `flt-${r}@example.test`)]);
    expectFailure(printing, 503, /Cloud Storage is unavailable/, STORAGE_DEADLINE_MS + SLACK_MS);
    expect(printing.elapsedMs).toBeGreaterThanOrEqual(STORAGE_DEADLINE_MS - 500);
    expectFailure(sending, 504, /did not answer within 10 s/, SENDGRID_TIMEOUT_MS + SLACK_MS);
    await setFaults({}); // the held upload's connection is closed: it fails, nothing is stored
    await mailBehaviour({});
    expect(await storedPdfs(fresh)).toEqual([]);
    expect(await capturedMail()).toEqual([]);
    const [printAfter, sendAfter] = await Promise.all([print(fresh), sendPdf(printed, `flt-${r}@example.test`)]);
    expect([printAfter.status, sendAfter.status], printAfter.text + sendAfter.text).toEqual([201, 200]);
    tried.push("Storage silent on upload -> print 503 at 10 s", "mail sink silent -> send-pdf 504 at 10 s");
  }, 60_000);
});

describe("Firestore faults", () => {
  const deletedUser = async () => {
    const uid = `flt-user-${instanceCount++}`;
    await db().doc(`tenants/${TENANT}/users/${uid}`).set({ email: `${uid}@flt.test`, deletedAt: new Date("2026-06-01T10:00:00Z") });
    return uid;
  };

  it.for([
    ["unreachable (every connection closed)", "down"],
    ["silent (connections accepted, never answered)", "hang"],
  ])("%s: api and print answer 503 at the deadline; the restore is not applied; after recovery it is", { timeout: 90_000 }, async ([, mode], context) => {
    needsFaults(context);
    const uid = await deletedUser();
    const id = await freshInstance();
    const before = (await db().doc(`tenants/${TENANT}/users/${uid}`).get()).data();
    await setFaults({ firestore: { mode } });
    const answers = await Promise.all([restore(uid), roles(), print(id)]);
    for (const res of answers) expectFailure(res, 503, /Firestore/, FIRESTORE_DEADLINE_MS + SLACK_MS);
    await setFaults({});
    expect((await db().doc(`tenants/${TENANT}/users/${uid}`).get()).data()).toEqual(before);
    expect(await storedPdfs(id)).toEqual([]);
    // The next requests succeed: firebase-admin reconnects (within its reconnection backoff).
    const restored = await restore(uid);
    expect(restored.status, restored.text).toBe(201);
    const record = (await db().doc(`tenants/${TENANT}/users/${uid}`).get()).data();
    expect(record).toMatchObject({ deletedAt: null, restoredBy: ADMIN.uid });
    expect(record).not.toHaveProperty("deletedBy");
    expect((await roles()).status).toBe(200);
    expect((await print(id)).status).toBe(201);
    tried.push(`Firestore ${mode === "down" ? "unreachable" : "silent"} -> restore, roles and print 503 at 10 s`);
  });
});
