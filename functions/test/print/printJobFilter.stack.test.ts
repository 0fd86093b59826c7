// Print jobs by `filter` (issue 34): the target's own instances that match, resolved when the job is
// created, ordered by updatedAt then id. What a job resolved to is read from its chunk documents (the
// ids its tasks print, in the manifest's order); each job is cancelled at once (the ready block's
// example runs one to its ZIP). Real Firestore through firebase-admin, no mocks.

import { Timestamp, type WriteBatch } from "firebase-admin/firestore";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firestore } from "../api/fixtures";
import { BASES, call, idTokenFor } from "../helpers";
import { runId } from "../security/support";

const r = runId();
/** This run's object types: no other instance of the stack has them. */
const TYPE = `Filter ${r}`;
const OTHER_TYPE = `Filter ${r} other`;
const jobs = (target = "/tenant/acme-north") => `${BASES.print.functionUrl}${target}/print-jobs`;
/** A time in this file's window (no other instance of the stack is updated in 2031). */
const at = (iso: string, nanos = 0) => new Timestamp(Math.floor(Date.parse(iso) / 1000), nanos);

/** Instances this file writes, path -> fields (`updatedAt` left out where absent). */
const INSTANCES: Record<string, { objectTypeName: string; updatedAt?: Timestamp }> = {
  [`tenants/acme-north/objectInstances/f-${r}-c`]: { objectTypeName: TYPE, updatedAt: at("2031-03-01T10:00:00Z") },
  [`tenants/acme-north/objectInstances/f-${r}-a`]: { objectTypeName: TYPE, updatedAt: at("2031-03-01T10:00:00Z") },
  [`tenants/acme-north/objectInstances/f-${r}-b`]: { objectTypeName: TYPE, updatedAt: at("2031-03-01T09:00:00Z") },
  [`tenants/acme-north/objectInstances/f-${r}-micro`]: { objectTypeName: TYPE, updatedAt: at("2031-03-01T10:00:00Z", 500_000) },
  [`tenants/acme-north/objectInstances/f-${r}-late`]: { objectTypeName: TYPE, updatedAt: at("2031-03-01T11:00:00Z") },
  [`tenants/acme-north/objectInstances/f-${r}-never`]: { objectTypeName: TYPE },
  [`tenants/acme-north/objectInstances/f-${r}-other`]: { objectTypeName: OTHER_TYPE, updatedAt: at("2031-03-01T10:30:00Z") },
  [`tenants/acme-north/divisions/ops/objectInstances/f-${r}-ops`]: { objectTypeName: TYPE, updatedAt: at("2031-03-01T10:00:00Z") },
  [`tenants/acme-south/objectInstances/f-${r}-south`]: { objectTypeName: TYPE, updatedAt: at("2031-03-01T10:00:00Z") },
};
const id = (suffix: string) => `f-${r}-${suffix}`;

/** Writes or deletes many documents, 500 a batch (Firestore's limit), a few batches at a time. */
async function inBatches(paths: string[], write: (batch: WriteBatch, path: string) => void): Promise<void> {
  const batches: WriteBatch[] = [];
  for (let i = 0; i < paths.length; i += 500) {
    const batch = firestore().batch();
    for (const path of paths.slice(i, i + 500)) write(batch, path);
    batches.push(batch);
  }
  for (let i = 0; i < batches.length; i += 4) await Promise.all(batches.slice(i, i + 4).map((batch) => batch.commit()));
}

describe("print jobs by filter", () => {
  let reader: string;
  let southAdmin: string;
  const started: { target: string; jobId: string; token: string }[] = [];

  /** Starts a job and cancels it at once (a small one may have ended already: 409), answering what the job resolved to. */
  async function jobOf(body: unknown, { target = "/tenant/acme-north", token = reader, headers = {} as Record<string, string> } = {}) {
    const res = await call(jobs(target), { method: "POST", auth: { bearer: token }, body, headers, timeoutMs: 60_000 });
    if (res.status !== 202) return { res, ids: [] as string[] };
    const { jobId } = res.json.data;
    started.push({ target, jobId, token });
    const cancel = await call(`${jobs(target)}/${jobId}/cancel`, { method: "POST", auth: { bearer: token } });
    expect([200, 409], cancel.text).toContain(cancel.status);
    const jobPath = `${target.replace("/tenant/", "tenants/").replace("/division/", "/divisions/")}/printJobs/${jobId}`;
    const chunks = await firestore().collection(`${jobPath}/chunks`).get();
    return { res, ids: chunks.docs.flatMap((chunk) => chunk.get("ids") as string[]), job: (await firestore().doc(jobPath).get()).data()! };
  }

  beforeAll(async () => {
    [reader, southAdmin] = await Promise.all([idTokenFor("north-reader@acme.test"), idTokenFor("south-admin@acme.test")]);
    await inBatches(Object.keys(INSTANCES), (batch, path) => batch.set(firestore().doc(path), { title: `Filtered ${path.split("/").at(-1)}`, sections: [], ...INSTANCES[path] }));
  });
  afterAll(async () => {
    await inBatches(Object.keys(INSTANCES), (batch, path) => batch.delete(firestore().doc(path)));
  });

  it("by object type: the target's own instances of that type, oldest update first, then by id; never a division's or another tenant's", async () => {
    const { res, ids, job } = await jobOf({ filter: { objectTypeName: TYPE } });
    expect(res.status, res.text).toBe(202);
    expect(res.json.data).toMatchObject({ status: "queued", total: 5 });
    // Without an updatedAt (f-…-never) an instance is never matched.
    expect(ids).toEqual([id("b"), id("a"), id("c"), id("micro"), id("late")]);
    expect(job).toMatchObject({ total: 5, filter: { objectTypeName: TYPE } });
    // The division and the other tenant each see their own one, and only it.
    expect((await jobOf({ filter: { objectTypeName: TYPE } }, { target: "/tenant/acme-north/division/ops" })).ids).toEqual([id("ops")]);
    expect((await jobOf({ filter: { objectTypeName: TYPE } }, { target: "/tenant/acme-south", token: southAdmin })).ids).toEqual([id("south")]);
    // The job's creation is on the trail with its filter.
    const admin = await idTokenFor("north-admin@acme.test");
    const trail = await call(`${BASES.api.functionUrl}/tenant/acme-north/audit-events?action=print_job.created&subject=${res.json.data.jobId}`, { auth: { bearer: admin } });
    expect(trail.json.data[0].details).toMatchObject({ total: 5, filter: { objectTypeName: TYPE } });
  });

  it("by update time: updatedFrom inclusive, updatedTo exclusive, to the microsecond and in any offset; with a type too", async () => {
    const window = (updatedFrom: string, updatedTo: string, objectTypeName?: string) => jobOf({ filter: { objectTypeName, updatedFrom, updatedTo } });
    // 10:00:00.0005Z is micro's own time: included as the start, excluded as the end.
    expect((await window("2031-03-01T10:00:00.0005Z", "2031-03-01T13:00:00+02:00")).ids).toEqual([id("micro"), id("other")]);
    expect((await window("2031-03-01T10:00:00Z", "2031-03-01T10:00:00.0005Z")).ids).toEqual([id("a"), id("c")]);
    expect((await window("2031-03-01T09:00:00Z", "2031-03-01T11:00:00.000001Z", TYPE)).ids).toEqual([id("b"), id("a"), id("c"), id("micro"), id("late")]);
    // From only, to only.
    expect((await jobOf({ filter: { updatedFrom: "2031-03-01T10:30:00Z" } })).ids).toEqual([id("other"), id("late")]);
    const before = await jobOf({ filter: { objectTypeName: TYPE, updatedTo: "2031-03-01T10:00:00Z" } });
    expect(before.ids).toEqual([id("b")]);
  });

  it("422 when no instance matches; 400 naming the field for both or neither of objectInstanceIds and filter, bad times, and unknown keys", async () => {
    const none = await call(jobs(), { method: "POST", auth: { bearer: reader }, body: { filter: { objectTypeName: `${TYPE} absent` } } });
    expect([none.status, none.json.message]).toEqual([422, "No instance of the target matches the filter."]);
    const reversed = await call(jobs(), { method: "POST", auth: { bearer: reader }, body: { filter: { updatedFrom: "2031-03-02T00:00:00Z", updatedTo: "2031-03-01T00:00:00Z" } } });
    expect([reversed.status, reversed.json.message]).toEqual([400, "Invalid body: 'filter.updatedTo': must be after 'filter.updatedFrom'."]);
    for (const [body, message] of [
      [{ objectInstanceIds: ["inspection-short"], filter: { objectTypeName: TYPE } }, /exactly one of 'objectInstanceIds' and 'filter'/],
      [{}, /exactly one of 'objectInstanceIds' and 'filter'/],
      [{ output: "zip" }, /exactly one/],
      [{ filter: null }, /'filter'/],
      [{ filter: "Safety Inspection" }, /'filter'/],
      [{ filter: { updatedFrom: "2031-03-01T10:00:00" } }, /'filter.updatedFrom'/],
      [{ filter: { updatedTo: "yesterday" } }, /'filter.updatedTo'/],
      [{ filter: { updatedFrom: "2031-03-01T00:00:00Z", updatedTo: "2031-03-01T00:00:00Z" } }, /'filter.updatedTo': must be after/],
      [{ filter: { objectTypeName: "" } }, /'filter.objectTypeName'/],
      [{ filter: { type: TYPE } }, /unknown field 'type'/],
      [{ filter: {}, extra: 1 }, /unknown field 'extra'/],
    ] as const) {
      const res = await call(jobs(), { method: "POST", auth: { bearer: reader }, body });
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(res.json).toMatchObject({ statusCode: 400, error: "Bad Request", message: expect.stringMatching(message) });
    }
  });

  it("the same Idempotency-Key and filter answer the same job, even once the instances changed; another filter with the key is 422", async () => {
    const key = `filter-${r}`;
    const body = { filter: { objectTypeName: TYPE, updatedTo: "2031-03-01T09:30:00Z" } };
    const first = await jobOf(body, { headers: { "idempotency-key": key } });
    expect(first.ids).toEqual([id("b")]);
    // b moves out of the window: resolved again, the filter would match nothing (422); the replay answers its job.
    const b = firestore().doc(`tenants/acme-north/objectInstances/${id("b")}`);
    await b.update({ updatedAt: at("2031-03-01T09:45:00Z") });
    try {
      const again = await call(jobs(), { method: "POST", auth: { bearer: reader }, headers: { "idempotency-key": key }, body });
      expect(again.status, again.text).toBe(202);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.json.data).toMatchObject({ jobId: first.res.json.data.jobId, total: 1 });
      const other = await call(jobs(), { method: "POST", auth: { bearer: reader }, headers: { "idempotency-key": key }, body: { filter: { objectTypeName: TYPE } } });
      expect([other.status, other.json.message]).toEqual([422, "This Idempotency-Key was used for another request; use a new key for a new job."]);
    } finally {
      await b.update({ updatedAt: INSTANCES[b.path].updatedAt });
    }
  });

  it("a new Idempotency-Key is bounded as a request without one: 3 jobs queued or running in the target is 429", async () => {
    const jobsOf = firestore().collection("tenants/acme-north/printJobs");
    await Promise.all([0, 1, 2].map((i) => jobsOf.doc(`filter-bound-${r}-${i}`).set({ status: "running", active: true, total: 1, chunks: 0, createdAt: Timestamp.now() })));
    try {
      const refused = await call(jobs(), { method: "POST", auth: { bearer: reader }, headers: { "idempotency-key": `bound-${r}` }, body: { filter: { objectTypeName: TYPE } } });
      expect([refused.status, refused.headers.get("retry-after")], refused.text).toEqual([429, "30"]);
    } finally {
      await Promise.all([0, 1, 2].map((i) => jobsOf.doc(`filter-bound-${r}-${i}`).delete()));
    }
  });

  // A division of this run with 10,001 one-field instances: counted (not loaded) and refused; at 10,000 a job takes them all.
  it("422 naming the count when more than 10,000 instances match; exactly 10,000 make a job", async () => {
    const division = `tenants/acme-north/divisions/bulk-${r}`;
    await firestore().doc(division).set({ name: `Bulk ${r}`, features: {} });
    const paths = Array.from({ length: 10_001 }, (_, i) => `${division}/objectInstances/n${String(i).padStart(5, "0")}`);
    let t = Date.now();
    await inBatches(paths, (batch, path) => batch.set(firestore().doc(path), { objectTypeName: "Bulk", updatedAt: at("2031-03-01T00:00:00Z") }));
    const seeded = Date.now() - t;
    try {
      t = Date.now();
      const over = await call(jobs(`/tenant/acme-north/division/bulk-${r}`), { method: "POST", auth: { bearer: reader }, body: { filter: { objectTypeName: "Bulk" } } });
      const counted = Date.now() - t;
      expect([over.status, over.json.message]).toEqual([422, "10,001 instances of the target match the filter; a print job prints at most 10,000: narrow the filter."]);
      await firestore().doc(paths[0]).delete();
      t = Date.now();
      const full = await jobOf({ filter: {} }, { target: `/tenant/acme-north/division/bulk-${r}` });
      expect(full.res.status, full.res.text).toBe(202);
      expect(full.res.json.data.total).toBe(10_000);
      expect(full.ids).toEqual(paths.slice(1).map((path) => path.split("/").at(-1)));
      console.log(`10,001 instances written in ${seeded} ms; refused in ${counted} ms; a 10,000-instance job created (and cancelled) in ${Date.now() - t} ms`);
    } finally {
      await inBatches(paths, (batch, path) => batch.delete(firestore().doc(path)));
      await firestore().doc(division).delete();
    }
  }, 120_000);
});
