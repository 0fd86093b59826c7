/**
 * firestore.rules and storage.rules deny every client read and write: all access goes through the
 * functions (Admin SDK, which rules do not apply to), PDFs only through their signed or
 * download-token URLs. Proven with @firebase/rules-unit-testing, which needs Google's emulators
 * (Java 21): the stack runs them where Java 21 and their JARs exist (README, "The local stack").
 *
 * Against the stack's JavaScript fallbacks, which have no rules engine, these tests are SKIPPED,
 * and say so: the Firestore fallback answers no rules endpoint, and the storage fallback's rules
 * runtime denies everything whatever the rules say, so a pass there would prove nothing.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it, type TestContext } from "vitest";
import { HOST, PORTS, ROOT_DIR, URLS } from "../../stack/config";
import { rawRequest, runId } from "./support";

type RulesTesting = typeof import("@firebase/rules-unit-testing");
type TestEnvironment = Awaited<ReturnType<RulesTesting["initializeTestEnvironment"]>>;

/** A project of its own: rules loaded here never touch the demo project's. */
const PROJECT = `demo-rules-${runId()}`;
const FIRESTORE_RULES = readFileSync(join(ROOT_DIR, "firestore.rules"), "utf8");
const STORAGE_RULES = readFileSync(join(ROOT_DIR, "storage.rules"), "utf8");

let skipReason: string | undefined;
let rules: RulesTesting;
let env: TestEnvironment;

/** Google's Firestore emulator accepts rules at this endpoint; the JavaScript fallback answers 404. */
async function googleEmulatorsRunning(): Promise<string | undefined> {
  const put = await rawRequest({
    method: "PUT",
    origin: `http://${HOST}:${PORTS.firestore}`,
    path: `/emulator/v1/projects/${PROJECT}:securityRules`,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ rules: { files: [{ name: "firestore.rules", content: FIRESTORE_RULES }] } }),
  }).catch((error: Error) => ({ status: 0, text: error.message }));
  if (put.status !== 200) return `the Firestore emulator at ${HOST}:${PORTS.firestore} does not take security rules (HTTP ${put.status}): it is the JavaScript fallback, not Google's emulator (Java 21)`;
  // The stack's fault switch exists only with its fallbacks, whose storage rules runtime is a stand-in.
  const faults = await rawRequest({ method: "GET", origin: URLS.mailSink, path: "/faults" }).catch(() => ({ status: 0 }));
  if (faults.status === 200) return "the storage emulator runs without Google's rules runtime (the stack's fallback)";
  return undefined;
}

function needsGoogleEmulators(context: TestContext): void {
  if (skipReason) context.skip(`SKIPPED, not passed: ${skipReason}`);
}

beforeAll(async () => {
  skipReason = await googleEmulatorsRunning();
  if (skipReason) {
    console.warn(`Rules tests SKIPPED (not passed): ${skipReason}. They run when the stack uses Google's emulators (Java 21 and their JARs, README).`);
    return;
  }
  rules = await import("@firebase/rules-unit-testing");
  env = await rules.initializeTestEnvironment({
    projectId: PROJECT,
    firestore: { host: HOST, port: PORTS.firestore, rules: FIRESTORE_RULES },
    storage: { host: HOST, port: PORTS.storage, rules: STORAGE_RULES },
  });
  await env.withSecurityRulesDisabled(async (admin) => {
    const { doc, setDoc } = await import("firebase/firestore");
    const db = admin.firestore();
    await setDoc(doc(db, "tenants/t1"), { name: "T1", organizationId: null, features: {} });
    await setDoc(doc(db, "tenants/t1/members/alice"), { permissions: ["ADMIN"] });
    await setDoc(doc(db, "tenants/t1/users/alice"), { email: "alice@example.test", deletedAt: null });
    await setDoc(doc(db, "authOwnership/alice"), { ownerPath: "tenants/t1" });
    const { ref, uploadString } = await import("firebase/storage");
    await uploadString(ref(admin.storage(), "generated-pdfs/tenants/t1/doc/r1-1.pdf"), "%PDF-1.7");
  });
}, 60_000);

afterAll(async () => {
  await env?.cleanup();
});

/** Callers: nobody signed in; a signed-in user who is ADMIN of the tenant in Firestore. */
const contexts = (e: TestEnvironment) => [
  ["an unauthenticated client", e.unauthenticatedContext()],
  ["a signed-in ADMIN of the tenant", e.authenticatedContext("alice", { email: "alice@example.test" })],
] as const;

describe("firestore.rules", () => {
  it("deny every client read, query and write of every collection of the layout", async (context) => {
    needsGoogleEmulators(context);
    const { assertFails } = rules;
    const { collection, deleteDoc, doc, getDoc, getDocs, setDoc, updateDoc } = await import("firebase/firestore");
    for (const [, client] of contexts(env)) {
      const db = client.firestore();
      for (const path of ["tenants/t1", "tenants/t1/members/alice", "tenants/t1/users/alice", "authOwnership/alice", "organizations/o1", "sites/s1", "rateLimits/x"]) {
        await assertFails(getDoc(doc(db, path)));
        await assertFails(setDoc(doc(db, path), { x: 1 }));
        await assertFails(updateDoc(doc(db, path), { x: 1 }));
        await assertFails(deleteDoc(doc(db, path)));
      }
      for (const path of ["tenants", "tenants/t1/users", "tenants/t1/members", "authOwnership"]) await assertFails(getDocs(collection(db, path)));
    }
  });
});

describe("storage.rules", () => {
  it("deny every client read, listing, upload and delete under generated-pdfs/ and elsewhere", async (context) => {
    needsGoogleEmulators(context);
    const { assertFails } = rules;
    const { deleteObject, getBytes, listAll, ref, uploadString } = await import("firebase/storage");
    for (const [, client] of contexts(env)) {
      const storage = client.storage();
      const pdf = ref(storage, "generated-pdfs/tenants/t1/doc/r1-1.pdf");
      await assertFails(getBytes(pdf));
      await assertFails(listAll(ref(storage, "generated-pdfs/")));
      await assertFails(uploadString(ref(storage, "generated-pdfs/tenants/t1/doc/forged.pdf"), "%PDF-1.7"));
      await assertFails(uploadString(ref(storage, "anything/else.txt"), "x"));
      await assertFails(deleteObject(pdf));
    }
  });
});
