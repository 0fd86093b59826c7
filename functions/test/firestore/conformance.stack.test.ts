/**
 * Firestore conformance suite: pins, through the real firebase-admin, the semantics of every
 * Firestore operation the project uses (or will use). Every expectation is documented Firestore
 * behaviour (the Firestore guides and the google.firestore.v1 API reference), so the suite passes
 * against Google's Firestore emulator and against production alike; the local stack's JavaScript
 * fallback (`@firestore-emulator/server`, patched by functions/stack/patches) must pass it too.
 * Add a case here before the project's code starts using a new operation.
 *
 * Where it runs:
 * - `npm test`: against whichever Firestore emulator the stack started (Google's where Java 21 and
 *   its JAR exist, else the fallback), at 127.0.0.1:8080, project demo-print-admin.
 * - Alone, against any running Firestore emulator, e.g. Google's (needs Java 21):
 *     npx firebase emulators:start --only firestore --project demo-print-admin   # repository root
 *     cd functions && CONFORMANCE_FIRESTORE_HOST=127.0.0.1:8080 \
 *       npx vitest run --config test/firestore/vitest.conformance.config.mts
 *   (CONFORMANCE_PROJECT_ID overrides the project id.)
 *
 * Every test writes only into its own collection with a random name, so it depends on no other
 * data and never touches the demo data; those collections are left behind (emulators only).
 */
import { randomUUID } from "node:crypto";
import { deleteApp, initializeApp } from "firebase-admin/app";
import { FieldPath, FieldValue, Timestamp, getFirestore, type CollectionReference, type Query } from "firebase-admin/firestore";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOST, PORTS, PROJECT_ID } from "../../stack/config";

const TARGET = process.env.CONFORMANCE_FIRESTORE_HOST ?? `${HOST}:${PORTS.firestore}`;
const PROJECT = process.env.CONFORMANCE_PROJECT_ID ?? PROJECT_ID;

// firebase-admin lets FIRESTORE_EMULATOR_HOST override settings.host, so point both at the
// target: nothing in this test process may redirect the suite to another emulator.
process.env.FIRESTORE_EMULATOR_HOST = TARGET;
const app = initializeApp({ projectId: PROJECT }, `conformance-${randomUUID()}`);
const db = getFirestore(app);
db.settings({ host: TARGET, ssl: false });

afterAll(() => deleteApp(app));

/** A collection no other test (or run) uses. */
const freshCollection = (): CollectionReference => db.collection(`conformance-${randomUUID()}`);

/** The gRPC status code a failed Firestore call rejects with. */
async function statusOf(promise: Promise<unknown>): Promise<number | string | undefined> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: number | string }).code;
  }
  throw new Error("expected the call to fail, and it succeeded");
}

const ALREADY_EXISTS = 6;
const NOT_FOUND = 5;

describe("writes", () => {
  it("set() without merge replaces the whole document: old fields are gone", async () => {
    const ref = freshCollection().doc("doc");
    await ref.set({ a: 1, nested: { x: 1, y: 2 }, list: [1, 2] });
    await ref.set({ b: 2, nested: { z: 3 } });
    expect((await ref.get()).data()).toEqual({ b: 2, nested: { z: 3 } });
  });

  it("set() with merge changes only the given fields, deep into maps", async () => {
    const ref = freshCollection().doc("doc");
    await ref.set({ a: 1, keep: "me", nested: { x: 1, y: 2 } });
    await ref.set({ a: 10, nested: { y: 20, z: 30 }, added: true }, { merge: true });
    expect((await ref.get()).data()).toEqual({ a: 10, keep: "me", nested: { x: 1, y: 20, z: 30 }, added: true });
  });

  it("set() with merge creates a missing document", async () => {
    const ref = freshCollection().doc("doc");
    await ref.set({ a: 1, nested: { x: 1 } }, { merge: true });
    expect((await ref.get()).data()).toEqual({ a: 1, nested: { x: 1 } });
  });

  it("set() with mergeFields changes only the listed fields", async () => {
    const ref = freshCollection().doc("doc");
    await ref.set({ a: 1, b: 1, nested: { x: 1, y: 1 } });
    await ref.set({ a: 2, b: 2, nested: { x: 2, y: 2 } }, { mergeFields: ["a", "nested.y"] });
    expect((await ref.get()).data()).toEqual({ a: 2, b: 1, nested: { x: 1, y: 2 } });
  });

  it("update() with dotted paths changes nested fields and leaves their siblings", async () => {
    const ref = freshCollection().doc("doc");
    await ref.set({ top: 1, nested: { x: 1, y: 2, deeper: { keep: true } } });
    await ref.update({ top: 2, "nested.x": 10, "nested.deeper.added": "yes", "fresh.path": 1 });
    expect((await ref.get()).data()).toEqual({
      top: 2,
      nested: { x: 10, y: 2, deeper: { keep: true, added: "yes" } },
      fresh: { path: 1 },
    });
  });

  it("update() with a map value replaces the whole map", async () => {
    const ref = freshCollection().doc("doc");
    await ref.set({ nested: { x: 1, y: 2 }, other: 1 });
    await ref.update({ nested: { z: 3 } });
    expect((await ref.get()).data()).toEqual({ nested: { z: 3 }, other: 1 });
  });

  it("update() with a FieldPath addresses a field whose name contains a dot", async () => {
    const ref = freshCollection().doc("doc");
    await ref.set({ "a.b": 1, a: { b: 2 } });
    await ref.update(new FieldPath("a.b"), 10);
    expect((await ref.get()).data()).toEqual({ "a.b": 10, a: { b: 2 } });
  });

  it("FieldValue.delete() removes top-level and nested fields, in update() and in set() with merge", async () => {
    const ref = freshCollection().doc("doc");
    await ref.set({ a: 1, b: 2, c: 3, nested: { x: 1, y: 2 } });
    await ref.update({ a: FieldValue.delete(), "nested.x": FieldValue.delete() });
    expect((await ref.get()).data()).toEqual({ b: 2, c: 3, nested: { y: 2 } });
    await ref.set({ b: FieldValue.delete(), nested: { y: FieldValue.delete(), z: 1 } }, { merge: true });
    expect((await ref.get()).data()).toEqual({ c: 3, nested: { z: 1 } });
  });

  it("applies every serverTimestamp, increment, arrayUnion and arrayRemove of one write", async () => {
    const ref = freshCollection().doc("doc");
    await ref.set({ n: 1, d: 0.5, tags: ["a", "b", "c", "b"], list: [1, 2], nested: { count: 1 } });
    const before = Date.now();
    await ref.update({
      first: FieldValue.serverTimestamp(),
      second: FieldValue.serverTimestamp(),
      "nested.at": FieldValue.serverTimestamp(),
      n: FieldValue.increment(2),
      d: FieldValue.increment(1),
      "nested.count": FieldValue.increment(5),
      missingNumber: FieldValue.increment(1.5),
      tags: FieldValue.arrayRemove("b", "z"),
      list: FieldValue.arrayUnion(2, 3, 4),
      missingList: FieldValue.arrayUnion("x", "x"),
      missingRemoved: FieldValue.arrayRemove("y"),
    });
    const data = (await ref.get()).data()!;
    expect(data).toMatchObject({
      n: 3,
      d: 1.5,
      nested: { count: 6 },
      missingNumber: 1.5,
      tags: ["a", "c"],
      list: [1, 2, 3, 4],
      missingList: ["x"],
      missingRemoved: [],
    });
    expect(data.first).toBeInstanceOf(Timestamp);
    // One write: every server timestamp in it is the same time.
    expect((data.first as Timestamp).isEqual(data.second as Timestamp)).toBe(true);
    expect((data.first as Timestamp).isEqual(data.nested.at as Timestamp)).toBe(true);
    expect(Math.abs((data.first as Timestamp).toMillis() - before)).toBeLessThan(60_000);
  });

  it("field transforms in set() create the document, and follow its other fields", async () => {
    const ref = freshCollection().doc("doc");
    await ref.set({ name: "x", createdAt: FieldValue.serverTimestamp(), count: FieldValue.increment(1), tags: FieldValue.arrayUnion("a", "b") });
    const data = (await ref.get()).data()!;
    expect(data).toMatchObject({ name: "x", count: 1, tags: ["a", "b"] });
    expect(data.createdAt).toBeInstanceOf(Timestamp);
    await ref.set({ count: FieldValue.increment(2) }, { merge: true });
    expect((await ref.get()).data()).toMatchObject({ name: "x", count: 3, tags: ["a", "b"] });
  });

  it("create() creates a missing document and fails with ALREADY_EXISTS on an existing one", async () => {
    const ref = freshCollection().doc("doc");
    await ref.create({ v: 1 });
    expect(await statusOf(ref.create({ v: 2 }))).toBe(ALREADY_EXISTS);
    expect((await ref.get()).data()).toEqual({ v: 1 });
  });

  it("update() on a missing document fails with NOT_FOUND and creates nothing", async () => {
    const ref = freshCollection().doc("doc");
    expect(await statusOf(ref.update({ v: 1 }))).toBe(NOT_FOUND);
    expect((await ref.get()).exists).toBe(false);
  });

  it("delete() with an exists precondition fails with NOT_FOUND on a missing document; without one it succeeds", async () => {
    const col = freshCollection();
    const missing = col.doc("missing");
    expect(await statusOf(missing.delete({ exists: true }))).toBe(NOT_FOUND);
    await missing.delete();
    const existing = col.doc("existing");
    await existing.set({ v: 1 });
    await existing.delete({ exists: true });
    expect((await existing.get()).exists).toBe(false);
  });

  it("delete() removes the document but not its subcollections", async () => {
    const ref = freshCollection().doc("parent");
    await ref.set({ v: 1 });
    await ref.collection("children").doc("child").set({ c: 1 });
    await ref.delete();
    expect((await ref.get()).exists).toBe(false);
    expect((await ref.collection("children").doc("child").get()).data()).toEqual({ c: 1 });
  });

  it("a batch is atomic: when one write fails, none of its writes apply", async () => {
    const col = freshCollection();
    await col.doc("existing").set({ v: 1 });
    await col.doc("toDelete").set({ v: 1 });
    const batch = db.batch();
    batch.set(col.doc("new"), { v: 1 });
    batch.update(col.doc("existing"), { v: 2 });
    batch.delete(col.doc("toDelete"));
    batch.update(col.doc("missing"), { v: 1 }); // fails: NOT_FOUND
    expect(await statusOf(batch.commit())).toBe(NOT_FOUND);
    const [created, existing, toDelete] = await db.getAll(col.doc("new"), col.doc("existing"), col.doc("toDelete"));
    expect(created.exists).toBe(false);
    expect(existing.data()).toEqual({ v: 1 });
    expect(toDelete.data()).toEqual({ v: 1 });
  });
});

describe("reads", () => {
  it("getAll() answers every document in the order asked, missing ones included", async () => {
    const col = freshCollection();
    await col.doc("one").set({ n: 1 });
    await col.doc("three").set({ n: 3 });
    const snaps = await db.getAll(col.doc("three"), col.doc("missing"), col.doc("one"));
    expect(snaps.map((s) => [s.id, s.exists, s.get("n")])).toEqual([
      ["three", true, 3],
      ["missing", false, undefined],
      ["one", true, 1],
    ]);
    expect(snaps[0].createTime).toBeInstanceOf(Timestamp);
    expect(snaps[0].updateTime).toBeInstanceOf(Timestamp);
  });

  it("ids that are names of JavaScript object members ('valueOf', 'constructor', ...) are ordinary ids", async () => {
    const col = freshCollection();
    const ids = ["valueOf", "constructor", "toString", "hasOwnProperty"];
    const missing = await db.getAll(...ids.map((id) => col.doc(id)), ...ids.map((id) => col.doc(`x/${id}/y`)));
    expect(missing.map((s) => s.exists)).toEqual(Array(8).fill(false));
    for (const id of ids) await col.doc(id).collection(id).doc(id).set({ id });
    const nested = await db.getAll(...ids.map((id) => col.doc(id).collection(id).doc(id)));
    expect(nested.map((s) => s.get("id"))).toEqual(ids);
    expect((await col.doc("valueOf").collection("valueOf").get()).size).toBe(1);
  });
});

describe("queries", () => {
  // Written out of document-id order on purpose: results must not follow insertion order.
  const CITIES: Record<string, Record<string, unknown>> = {
    e: { city: "Rome", pop: 5, tags: ["x"], info: { region: "south" } },
    c: { city: "Lima", pop: 8, info: { region: "west" } },
    a: { city: "Rome", pop: 3, tags: ["y"], info: { region: "north" } },
    f: { city: "Oslo", info: { region: "north" } }, // no pop
    d: { city: "Oslo", pop: 3, tags: [] },
    b: { city: "Oslo", pop: 5, tags: ["x", "y"] },
  };
  let col: CollectionReference;
  const ids = async (query: Query) => (await query.get()).docs.map((d) => d.id);

  beforeAll(async () => {
    col = freshCollection();
    for (const [id, data] of Object.entries(CITIES)) await col.doc(id).set(data);
  });

  it("without orderBy, results are ordered by document id", async () => {
    expect(await ids(col)).toEqual(["a", "b", "c", "d", "e", "f"]);
  });

  it("== filters, on top-level and nested fields", async () => {
    expect(await ids(col.where("city", "==", "Oslo"))).toEqual(["b", "d", "f"]);
    expect(await ids(col.where("info.region", "==", "north"))).toEqual(["a", "f"]);
    expect(await ids(col.where("city", "==", "Oslo").where("pop", "==", 5))).toEqual(["b"]);
    expect(await ids(col.where("city", "==", "Paris"))).toEqual([]);
  });

  it("strings order by their UTF-8 bytes (code points), not by UTF-16 code units; a prefix first", async () => {
    const words = freshCollection();
    // U+FF5A is a larger UTF-16 unit than the surrogates of U+1F600, but a smaller code point.
    const ordered = ["A", "a", "ab", "z", "é", "中", "\uFF5A", "😀"];
    for (const [i, w] of [...ordered].reverse().entries()) await words.doc(`w${i}`).set({ w });
    expect((await words.orderBy("w").get()).docs.map((d) => d.get("w"))).toEqual(ordered);
    expect((await words.where("w", ">", "\uFF5A").get()).docs.map((d) => d.get("w"))).toEqual(["😀"]);
  });

  it("numbers compare by value, integers and doubles alike; range filters match numbers only", async () => {
    const numbers = freshCollection();
    await numbers.doc("int").set({ v: 1 });
    await numbers.doc("double").set({ v: 0.5 });
    await numbers.doc("double").update({ v: FieldValue.increment(0.5) }); // the double 1.0
    await numbers.doc("half").set({ v: 0.5 });
    await numbers.doc("string").set({ v: "1" });
    expect(await ids(numbers.where("v", "==", 1))).toEqual(["double", "int"]);
    expect(await ids(numbers.where("v", ">", 0))).toEqual(["half", "double", "int"]);
    expect(await ids(numbers.orderBy("v"))).toEqual(["half", "double", "int", "string"]);
  });

  it("in filters", async () => {
    expect(await ids(col.where("city", "in", ["Rome", "Lima"]))).toEqual(["a", "c", "e"]);
  });

  it("array-contains filters", async () => {
    expect(await ids(col.where("tags", "array-contains", "x"))).toEqual(["b", "e"]);
    expect(await ids(col.where("tags", "array-contains", "zzz"))).toEqual([]);
  });

  it("documentId() filters", async () => {
    expect(await ids(col.where(FieldPath.documentId(), "==", "c"))).toEqual(["c"]);
    expect(await ids(col.where(FieldPath.documentId(), "in", ["e", "a", "zz"]))).toEqual(["a", "e"]);
  });

  it("orderBy() with documentId() as the tie-breaker", async () => {
    expect(await ids(col.orderBy("pop", "desc").orderBy(FieldPath.documentId()))).toEqual(["c", "b", "e", "a", "d"]);
    expect(await ids(col.orderBy("pop").orderBy(FieldPath.documentId(), "desc"))).toEqual(["d", "a", "e", "b", "c"]);
  });

  it("orderBy() breaks ties by document id in the direction of the last order, and leaves out documents without the field", async () => {
    expect(await ids(col.orderBy("pop"))).toEqual(["a", "d", "b", "e", "c"]);
    expect(await ids(col.orderBy("pop", "desc"))).toEqual(["c", "e", "b", "d", "a"]);
    expect(await ids(col.orderBy("city").orderBy("pop", "desc"))).toEqual(["c", "b", "d", "e", "a"]);
  });

  it("an inequality filter without orderBy orders by that field, then document id", async () => {
    expect(await ids(col.where("pop", ">=", 5))).toEqual(["b", "e", "c"]);
  });

  it("limit()", async () => {
    expect(await ids(col.orderBy("pop").limit(2))).toEqual(["a", "d"]);
    expect(await ids(col.limit(3))).toEqual(["a", "b", "c"]);
  });

  it("offset()", async () => {
    expect(await ids(col.orderBy("pop").offset(1).limit(2))).toEqual(["d", "b"]);
    expect(await ids(col.offset(4))).toEqual(["e", "f"]);
  });

  it("startAfter() with a value and with a document snapshot", async () => {
    expect(await ids(col.orderBy("pop").startAfter(3))).toEqual(["b", "e", "c"]);
    const b = await col.doc("b").get();
    expect(await ids(col.orderBy("pop").startAfter(b))).toEqual(["e", "c"]);
    expect(await ids(col.orderBy("pop", "desc").startAfter(b))).toEqual(["d", "a"]);
    expect(await ids(col.orderBy(FieldPath.documentId()).startAfter("c"))).toEqual(["d", "e", "f"]);
    expect(await ids(col.startAfter(b).limit(2))).toEqual(["c", "d"]);
  });

  it("startAt(), endAt() and endBefore()", async () => {
    expect(await ids(col.orderBy("pop").startAt(5))).toEqual(["b", "e", "c"]);
    expect(await ids(col.orderBy("pop").endAt(5))).toEqual(["a", "d", "b", "e"]);
    expect(await ids(col.orderBy("pop").endBefore(5))).toEqual(["a", "d"]);
  });

  it("equality filters with a range and a descending order on another field, a documentId() tie-breaker and a two-value cursor (the audit trail's query)", async () => {
    const trail = freshCollection();
    const at = (minute: number) => Timestamp.fromMillis(Date.UTC(2026, 0, 1, 0, minute));
    const events: [string, string, string, number][] = [
      ["k1", "print", "s1", 1], ["k2", "print", "s1", 2], ["k3", "mail", "s1", 2], ["k4", "print", "s2", 2], ["k5", "print", "s1", 3], ["k6", "print", "s1", 5], ["k0", "print", "s1", 2],
    ];
    for (const [id, action, subject, minute] of events) await trail.doc(id).set({ action, subject, at: at(minute) });
    const newestFirst = (q: Query) => q.orderBy("at", "desc").orderBy(FieldPath.documentId(), "desc");
    const printsOfS1 = trail.where("action", "==", "print").where("subject", "==", "s1");
    expect(await ids(newestFirst(printsOfS1))).toEqual(["k6", "k5", "k2", "k0", "k1"]);
    expect(await ids(newestFirst(printsOfS1.where("at", ">=", at(2)).where("at", "<", at(5))))).toEqual(["k5", "k2", "k0"]);
    // Continuing after (minute 2, k2): the tie at minute 2 goes on by id, descending.
    expect(await ids(newestFirst(printsOfS1).startAfter(at(2), "k2").limit(2))).toEqual(["k0", "k1"]);
    expect(await ids(newestFirst(trail).startAfter(at(2), "k3").limit(3))).toEqual(["k2", "k0", "k1"]);
  });

  it("count()", async () => {
    expect((await col.count().get()).data().count).toBe(6);
    expect((await col.where("city", "==", "Oslo").count().get()).data().count).toBe(3);
    expect((await col.where("city", "==", "Paris").count().get()).data().count).toBe(0);
    expect((await col.orderBy("pop").count().get()).data().count).toBe(5);
  });

  it("select() answers only the selected fields (nested ones inside their maps); select() with none answers every matching document without fields", async () => {
    const none = await col.where("city", "==", "Oslo").select().get();
    expect(none.docs.map((d) => [d.id, d.data()])).toEqual([["b", {}], ["d", {}], ["f", {}]]);
    const some = await col.where("city", "==", "Rome").select("pop", "info.region", "absent").get();
    expect(some.docs.map((d) => [d.id, d.data()])).toEqual([["a", { pop: 3, info: { region: "north" } }], ["e", { pop: 5, info: { region: "south" } }]]);
  });

  it("an equality filter with a timestamp range, ordered by the timestamp then document id, ids only and counted (a print job's filter)", async () => {
    const instances = freshCollection();
    const at = (ms: number, nanos = 0) => new Timestamp(Date.UTC(2026, 0, 1) / 1000 + ms / 1000, nanos);
    const docs: [string, Record<string, unknown>][] = [
      ["i5", { type: "A", updatedAt: at(2000) }], ["i1", { type: "A", updatedAt: at(1000) }], ["i2", { type: "A", updatedAt: at(1000) }],
      ["i3", { type: "A", updatedAt: at(0, 500_000) }], ["i4", { type: "B", updatedAt: at(1000) }], ["i6", { type: "A" }],
      ["i7", { type: "A", updatedAt: "2026-01-01T00:00:01Z" }], ["i8", { type: "A", updatedAt: at(3000) }],
    ];
    for (const [id, data] of docs) await instances.doc(id).set(data);
    const query = instances.where("type", "==", "A").where("updatedAt", ">=", at(0, 500_000)).where("updatedAt", "<", at(3000)).orderBy("updatedAt").orderBy(FieldPath.documentId());
    const snap = await query.select().get();
    expect(snap.docs.map((d) => [d.id, d.data()])).toEqual([["i3", {}], ["i1", {}], ["i2", {}], ["i5", {}]]);
    expect((await query.count().get()).data().count).toBe(4);
    expect(await ids(query.limit(2))).toEqual(["i3", "i1"]);
    // Just past the lower bound (a microsecond), and without a range: a field of another type, or none, is ordered or left out as orderBy does.
    expect(await ids(instances.where("type", "==", "A").where("updatedAt", ">", at(0, 500_000)).orderBy("updatedAt"))).toEqual(["i1", "i2", "i5", "i8"]);
    expect(await ids(instances.where("type", "==", "A").orderBy("updatedAt").orderBy(FieldPath.documentId()))).toEqual(["i3", "i1", "i2", "i5", "i8", "i7"]);
    expect((await instances.orderBy("updatedAt").count().get()).data().count).toBe(7);
  });

  it("a query sees only its own collection, not subcollections or other collections", async () => {
    const parent = freshCollection();
    await parent.doc("p").set({ v: 1 });
    await parent.doc("p").collection("sub").doc("s").set({ v: 1 });
    await parent.doc("q").collection("sub").doc("only-child").set({ v: 1 }); // "q" itself does not exist
    expect(await ids(parent)).toEqual(["p"]);
    expect(await ids(parent.doc("p").collection("sub"))).toEqual(["s"]);
  });
});

describe("collection-group queries", () => {
  it("find every collection of the id at any depth, top-level and nested, filtered, in a transaction too", async () => {
    // A group id of its own: other tests' collections never match it.
    const group = `group-${randomUUID()}`;
    const top = db.collection(group);
    const nested = db.collection(`conformance-${randomUUID()}`);
    await top.doc("t1").set({ root: "r1", active: true });
    await nested.doc("p").collection(group).doc("n1").set({ root: "r1", active: true });
    await nested.doc("missing-parent").collection("sub").doc("x").collection(group).doc("n2").set({ root: "r1", active: false });
    await nested.doc("q").collection(group).doc("n3").set({ root: "r2", active: true });
    await nested.doc("p").collection(`${group}-other`).doc("o1").set({ root: "r1", active: true });
    const paths = async (query: Query) => (await query.get()).docs.map((d) => d.ref.path).sort();
    expect((await paths(db.collectionGroup(group))).map((p) => p.split("/").at(-1)).sort()).toEqual(["n1", "n2", "n3", "t1"]);
    const r1Active = db.collectionGroup(group).where("root", "==", "r1").where("active", "==", true);
    expect(await paths(r1Active)).toEqual([`${group}/t1`, `${nested.path}/p/${group}/n1`].sort());
    const inTransaction = await db.runTransaction(async (tx) => (await tx.get(r1Active.limit(20))).docs.map((d) => d.id).sort());
    expect(inTransaction).toEqual(["n1", "t1"]);
  });
});

describe("transactions", () => {
  it("isolate read-then-write: 20 concurrent transactional increments of one counter end at exactly 20", { timeout: 120_000 }, async () => {
    const ref = freshCollection().doc("counter");
    await ref.set({ n: 0 });
    await Promise.all(
      Array.from({ length: 20 }, () =>
        db.runTransaction(async (t) => {
          const snap = await t.get(ref);
          t.update(ref, { n: (snap.get("n") as number) + 1 });
        }),
      ),
    );
    expect((await ref.get()).get("n")).toBe(20);
  });

  it("a read-then-conditional-write race lets exactly one writer win", { timeout: 120_000 }, async () => {
    const ref = freshCollection().doc("slot");
    const writers = ["w1", "w2", "w3", "w4", "w5"];
    const won = await Promise.all(
      writers.map((name) =>
        db.runTransaction(async (t) => {
          const snap = await t.get(ref);
          if (snap.exists) return false;
          t.set(ref, { owner: name });
          return true;
        }),
      ),
    );
    expect(won.filter(Boolean)).toHaveLength(1);
    expect((await ref.get()).get("owner")).toBe(writers[won.indexOf(true)]);
  });

  it("getAll() inside a transaction reads several documents at once; racing creators let exactly one create", { timeout: 120_000 }, async () => {
    const col = freshCollection();
    await col.doc("record").set({ name: "Ada" });
    const claimers = ["c1", "c2", "c3"];
    const claimed = await Promise.all(
      claimers.map((claimer) =>
        db.runTransaction(async (t) => {
          const [record, claim] = await t.getAll(col.doc("record"), col.doc("claim"));
          if (claim.exists) return false;
          t.create(col.doc("claim"), { name: record.get("name"), claimer, at: FieldValue.serverTimestamp() });
          return true;
        }),
      ),
    );
    expect(claimed.filter(Boolean)).toHaveLength(1);
    expect((await col.doc("claim").get()).data()).toMatchObject({ name: "Ada", claimer: claimers[claimed.indexOf(true)] });
  });

  it("reads through a query inside a transaction and writes what it found", async () => {
    const col = freshCollection();
    await col.doc("a").set({ open: true });
    await col.doc("b").set({ open: false });
    await col.doc("c").set({ open: true });
    const closed = await db.runTransaction(async (t) => {
      const open = await t.get(col.where("open", "==", true));
      for (const doc of open.docs) t.update(doc.ref, { open: false });
      return open.docs.map((d) => d.id);
    });
    expect(closed).toEqual(["a", "c"]);
    expect((await col.where("open", "==", true).count().get()).data().count).toBe(0);
  });

  it("roll back on throw: nothing is written, the error reaches the caller, and the next transaction runs", async () => {
    const ref = freshCollection().doc("doc");
    await ref.set({ v: 1 });
    const other = ref.parent.doc("other");
    await expect(
      db.runTransaction(async (t) => {
        const snap = await t.get(ref);
        t.update(ref, { v: (snap.get("v") as number) + 1 });
        t.set(other, { written: true });
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect((await ref.get()).data()).toEqual({ v: 1 });
    expect((await other.get()).exists).toBe(false);
    const started = Date.now();
    await db.runTransaction(async (t) => {
      const snap = await t.get(ref);
      t.update(ref, { v: (snap.get("v") as number) + 1 });
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await ref.get()).data()).toEqual({ v: 2 });
  });

  it("a failing write in a transaction's commit fails the whole transaction, which writes nothing", async () => {
    const col = freshCollection();
    await col.doc("existing").set({ v: 1 });
    const status = await statusOf(
      db.runTransaction(async (t) => {
        await t.get(col.doc("existing"));
        t.set(col.doc("new"), { v: 1 });
        t.create(col.doc("existing"), { v: 2 }); // ALREADY_EXISTS
      }),
    );
    expect(status).toBe(ALREADY_EXISTS);
    const [created, existing] = await db.getAll(col.doc("new"), col.doc("existing"));
    expect(created.exists).toBe(false);
    expect(existing.data()).toEqual({ v: 1 });
  });
});
