/**
 * The JavaScript Firestore fallback itself (stack/firestoreFallback.ts), on an instance of its own
 * on an ephemeral port: clearing it never touches the stack's demo data. Its Firestore semantics
 * are pinned by conformance.stack.test.ts; this file covers what only the fallback has: its
 * shared gRPC/HTTP port, the clear endpoint, stopping, and how its transactions treat writes from
 * outside.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { deleteApp, initializeApp, type App } from "firebase-admin/app";
import { getFirestore, type Firestore } from "firebase-admin/firestore";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFirestoreFallback, type FirestoreFallback } from "../../stack/firestoreFallback";
import { call } from "../helpers";
import { rawRequest } from "../security/support";

/** A request with a `Host` of the caller's choosing, as a page whose name was rebound to 127.0.0.1 sends it (DNS rebinding). */
const withHost = (url: string, host: string, method: string) => rawRequest({ method, origin: new URL(url).origin, path: new URL(url).pathname, headers: { host } });

let fallback: FirestoreFallback | undefined;
let target: string;
const apps: App[] = [];

/** firebase-admin on the test instance, for `projectId`. */
function firestoreFor(projectId: string): Firestore {
  const app = initializeApp({ projectId }, `fallback-${randomUUID()}`);
  apps.push(app);
  const db = getFirestore(app);
  db.settings({ host: target, ssl: false });
  return db;
}

beforeAll(async () => {
  fallback = await startFirestoreFallback(0);
  target = `127.0.0.1:${fallback.port}`;
  // firebase-admin lets this variable override settings.host: never reach the stack's emulator.
  process.env.FIRESTORE_EMULATOR_HOST = target;
});

afterAll(async () => {
  await Promise.all(apps.map((app) => deleteApp(app)));
  await fallback?.stop();
});

describe("the JavaScript Firestore fallback", () => {
  it("listens on loopback and answers GET / with 200 Ok, like Google's emulator", async () => {
    expect(fallback!.port).toBeGreaterThan(0);
    const res = await call(`http://${target}/`);
    expect(res.status).toBe(200);
    expect(res.text.trim()).toBe("Ok");
    expect((await call(`http://${target}/v1/projects/p/databases/(default)/documents/c/d`)).status).toBe(404);
  });

  it("clears every document of one project's database with DELETE .../documents, and nothing else", async () => {
    const cleared = firestoreFor("demo-fallback-cleared");
    const kept = firestoreFor("demo-fallback-kept");
    await cleared.doc("a/one").set({ v: 1 });
    await cleared.doc("a/one/sub/two").set({ v: 2 });
    await cleared.doc("b/three").set({ v: 3 });
    await kept.doc("a/one").set({ v: 1 });

    const res = await call(`http://${target}/emulator/v1/projects/demo-fallback-cleared/databases/(default)/documents`, { method: "DELETE" });
    expect(res.status).toBe(200);

    const [one, two, three] = await cleared.getAll(cleared.doc("a/one"), cleared.doc("a/one/sub/two"), cleared.doc("b/three"));
    expect([one.exists, two.exists, three.exists]).toEqual([false, false, false]);
    expect((await cleared.collection("a").get()).size).toBe(0);
    expect((await kept.doc("a/one").get()).data()).toEqual({ v: 1 });
    // The cleared database works as before.
    await cleared.doc("a/one").create({ v: 4 });
    expect((await cleared.doc("a/one").get()).data()).toEqual({ v: 4 });
  });

  it("refuses HTTP requests whose Host is not its own loopback name (DNS rebinding: a page could clear every document)", async () => {
    const db = firestoreFor("demo-fallback-rebound");
    await db.doc("a/one").set({ v: 1 });
    const clear = `http://${target}/emulator/v1/projects/demo-fallback-rebound/databases/(default)/documents`;
    for (const host of [`evil.example:${fallback!.port}`, "evil.example", `localhost:${fallback!.port + 1}`]) {
      for (const [method, url] of [["DELETE", clear], ["GET", `http://${target}/`]] as const) {
        const res = await withHost(url, host, method);
        expect({ status: res.status, json: res.json }, `${method} with Host ${host}`).toEqual({ status: 403, json: { error: expect.stringMatching(/Host/) } });
      }
    }
    expect((await db.doc("a/one").get()).data()).toEqual({ v: 1 });
    expect((await withHost(clear, `localhost:${fallback!.port}`, "DELETE")).status).toBe(200);
    expect((await db.doc("a/one").get()).exists).toBe(false);
  });

  it("retries a transaction whose read document was written from outside meanwhile, instead of losing that write", async () => {
    const db = firestoreFor("demo-fallback-tx");
    const ref = db.collection(`tx-${randomUUID()}`).doc("counter");
    await ref.set({ n: 0 });
    let attempts = 0;
    await db.runTransaction(async (t) => {
      attempts++;
      const n = (await t.get(ref)).get("n") as number;
      if (attempts === 1) await ref.set({ n: 100 }); // not in the transaction: it does not wait
      t.update(ref, { n: n + 1 });
    });
    expect(attempts).toBe(2);
    expect((await ref.get()).get("n")).toBe(101);
  });

  it("retries a transaction whose query gained a document from outside meanwhile", async () => {
    const db = firestoreFor("demo-fallback-tx");
    const col = db.collection(`tx-${randomUUID()}`);
    await col.doc("a").set({ open: true });
    let attempts = 0;
    await db.runTransaction(async (t) => {
      attempts++;
      const open = await t.get(col.where("open", "==", true));
      if (attempts === 1) await col.doc("b").set({ open: true });
      t.set(col.doc("summary"), { open: open.size });
    });
    expect(attempts).toBe(2);
    expect((await col.doc("summary").get()).get("open")).toBe(2);
  });

  it("stop() closes open gRPC and HTTP connections and frees its port", async () => {
    const db = firestoreFor("demo-fallback-stop");
    await db.doc("c/d").set({ v: 1 }); // leaves a gRPC connection open
    const keepAlive = fetch(`http://${target}/`); // and an HTTP keep-alive one
    expect((await keepAlive).status).toBe(200);
    const port = fallback!.port;
    const started = Date.now();
    await fallback!.stop();
    fallback = undefined;
    expect(Date.now() - started).toBeLessThan(5_000);
    await new Promise<void>((resolve, reject) => {
      const probe = createServer();
      probe.once("error", reject);
      probe.listen(port, "127.0.0.1", () => probe.close(() => resolve()));
    });
  });
});
