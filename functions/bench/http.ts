// End to end over the local stack: requests per second and p50/p99 latency for `print` (first
// render and cached), `send-pdf` and each api route, at concurrency 1 and 20, over a stack that is
// already running (`npm start`, or STACK_PORT_OFFSET for another one). This script never starts it;
// it writes its own fixture (fresh users, instances and a tenant with unique ids) so that every
// request of a stateful route has something to act on, and every answer should be a success.
//
// Targets (issue 8): api routes p50 under 15 ms at concurrency 1; cached print under 25 ms; zero errors.

import { randomUUID } from "node:crypto";
import { getAuth } from "firebase-admin/auth";
import { Timestamp, getFirestore } from "firebase-admin/firestore";
import { URLS } from "../stack/config";
import { DEMO_PASSWORD } from "../stack/examples";
import { signInToStack, stackAdminApp } from "../stack/seedStack";
import { BENCH_TEMPLATE } from "./cases";
import { percentile, summarize, type Summary } from "./stats";

export interface HttpRow {
  /** e.g. "GET /api/tenant/acme-north/roles" or "POST /print/... (cached)". */
  route: string;
  concurrency: number;
  requests: number;
  errors: number;
  requestsPerSecond: number;
  /** Latency in ms: median with its spread over repeated runs. */
  p50: Summary;
  p99: Summary;
  /** Target for p50 at this concurrency, when there is one. */
  targetP50Ms?: number;
  /** The X-Backend-Calls header the emulator stack sends (the round trips of one request), most seen. */
  backendCalls?: string;
  /** What the route's time goes to, and what would shorten it. */
  note?: string;
}

export interface HttpBenchResult {
  /** Why nothing was measured (then rows is empty). */
  notRun?: string;
  runs?: number;
  requests?: typeof REQUESTS;
  /** Where the stack was reached, for the report. */
  baseUrl?: string;
  rows: HttpRow[];
}

const RUNS = 3;
const REQUESTS = { 1: 40, 20: 200 } as const;
const TIMEOUT_MS = 30_000;
/** Requests for each stateless case before anything is measured: 100, or 20 per worker in flight. */
const warmUpRequests = (concurrency: number) => Math.max(100, 20 * concurrency);
const WARM_UP_CASES = ["GET /api/{target}/roles", "GET /api/{target}/user/{userId}/auth-ownership-status", "GET /api/{target}/audit-events", "POST /print/{target}/print (cached)"];

interface Request {
  method: string;
  url: string;
  body?: unknown;
  token: string;
}

/** One case: builds request number i of run r (so stateful routes never repeat an id). */
interface Case {
  route: string;
  expect: number;
  note?: string;
  targetP50Ms?: (concurrency: number) => number | undefined;
  request(run: number, i: number, concurrency: number): Request;
}

/** Status (or "timeout"/"network") of every failed request, for the console. */
const failures = new Map<string, number>();
/** X-Backend-Calls values seen for the case being measured. */
const backendCalls = new Map<string, number>();

async function send(req: Request): Promise<{ ok: boolean; ms: number }> {
  const started = performance.now();
  try {
    const res = await fetch(req.url, {
      method: req.method,
      headers: { authorization: `Bearer ${req.token}`, ...(req.body !== undefined && { "content-type": "application/json" }) },
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await res.text();
    const calls = res.headers.get("x-backend-calls");
    if (calls) backendCalls.set(calls, (backendCalls.get(calls) ?? 0) + 1);
    if (!res.ok) {
      const key = `${res.status} ${text.slice(0, 120)}`;
      failures.set(key, (failures.get(key) ?? 0) + 1);
    }
    return { ok: res.ok, ms: performance.now() - started };
  } catch (error) {
    const key = (error as Error).name === "TimeoutError" ? "timeout" : `network: ${(error as Error).message}`;
    failures.set(key, (failures.get(key) ?? 0) + 1);
    return { ok: false, ms: performance.now() - started };
  }
}

/** Sends `count` requests with at most `concurrency` in flight; latencies and wall time. */
async function load(make: (i: number) => Request, count: number, concurrency: number): Promise<{ latencies: number[]; errors: number; wallMs: number }> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const { ok, ms } = await send(make(i));
        latencies.push(ms);
        if (!ok) errors++;
      }
    }),
  );
  return { latencies, errors, wallMs: performance.now() - started };
}

/** Everything the stateful cases act on, under ids unique to this bench run. */
async function prepareFixture(stamp: string) {
  const app = stackAdminApp();
  const db = getFirestore(app);
  const total = RUNS * (REQUESTS[1] + REQUESTS[20]);
  const tenant = `bench-${stamp}`;
  const docs: [string, Record<string, unknown>][] = [
    [`tenants/${tenant}`, { name: "Bench tenant", organizationId: null, features: { PEOPLE_MANAGEMENT: true } }],
    [`tenants/${tenant}/members/north-admin`, { permissions: ["ADMIN"] }],
  ];
  const instance = (await db.doc("tenants/acme-north/objectInstances/inspection-short").get()).data()!;
  for (let i = 0; i < total; i++) {
    docs.push([`tenants/${tenant}/users/u${i}`, { email: `u${i}@bench.test`, deletedAt: null, createdAt: Timestamp.now() }]);
    docs.push([`tenants/${tenant}/objectInstances/i${i}`, instance]);
  }
  docs.push([`tenants/${tenant}/objectInstances/cached`, instance]);
  for (let i = 0; i < docs.length; i += 400) {
    const batch = db.batch();
    for (const [path, data] of docs.slice(i, i + 400)) batch.set(db.doc(path), data);
    await batch.commit();
  }
  // send-pdf allows 20 sends per user per target per hour: one sender per 20 requests.
  const senders: string[] = [];
  for (let i = 0; i < Math.ceil(total / 20); i++) {
    const uid = `bench-sender-${stamp}-${i}`;
    await getAuth(app).createUser({ uid, email: `${uid}@bench.test`, password: DEMO_PASSWORD });
    await db.doc(`tenants/${tenant}/members/${uid}`).set({ permissions: ["READ"] });
    senders.push(await signInToStack(`${uid}@bench.test`, DEMO_PASSWORD));
  }
  return { tenant, senders };
}

export async function runHttpBench(): Promise<HttpBenchResult> {
  const up = await fetch(`${URLS.api}/api/openapi.json`, { signal: AbortSignal.timeout(5_000) }).then((r) => r.ok, () => false);
  if (!up) return { notRun: `no local stack answers at ${URLS.api} (start one with \`npm start\` in another terminal, then run \`npm run bench -- --only=http\`)`, rows: [] };

  const stamp = randomUUID().slice(0, 8);
  const admin = await signInToStack("north-admin@acme.test", DEMO_PASSWORD);
  const { tenant, senders } = await prepareFixture(stamp);
  const api = (path: string) => `${URLS.api}/api/tenant/${tenant}${path}`;
  const printUrl = (path: string) => `${URLS.print}/print/tenant/${tenant}${path}`;
  const apiTarget = (c: number) => (c === 1 ? 15 : undefined);
  // Each run of each concurrency uses its own slice of the fixture's numbered users and instances.
  let offset = 0;
  const slot = (i: number) => offset + i;

  const cases: Case[] = [
    {
      route: "GET /api/{target}/roles",
      expect: 200,
      targetP50Ms: apiTarget,
      note:
        "a query cannot join the pipeline's one getAll (target, grants, the route's documents), so roles costs two Firestore round trips where the user routes read in one. " +
        "The query already runs alongside the authorization read for callers authorized there in the last minute (the route's `load`); on two cores shared by the client, the function and the emulators both round trips still compete for CPU, " +
        "and a query of the JavaScript Firestore emulator costs about 1.7 times a getAll (mostly CPU in the client library). Against Google's emulator or Firestore itself the two round trips overlap in the network instead.",
      request: () => ({ method: "GET", url: `${URLS.api}/api/tenant/acme-north/roles?limit=10`, token: admin }),
    },
    { route: "GET /api/{target}/user/{userId}/auth-ownership-status", expect: 200, targetP50Ms: apiTarget, request: () => ({ method: "GET", url: `${URLS.api}/api/tenant/acme-north/user/north-reader/auth-ownership-status`, token: admin }) },
    { route: "DELETE /api/{target}/user/{userId}", expect: 200, targetP50Ms: apiTarget, request: (_r, i) => ({ method: "DELETE", url: api(`/user/u${slot(i)}`), token: admin }) },
    { route: "POST /api/{target}/user/{userId}/restore", expect: 201, targetP50Ms: apiTarget, request: (_r, i) => ({ method: "POST", url: api(`/user/u${slot(i)}/restore`), token: admin }) },
    { route: "POST /api/{target}/user/{userId}/claim-auth-ownership", expect: 200, targetP50Ms: apiTarget, request: (_r, i) => ({ method: "POST", url: api(`/user/u${slot(i)}/claim-auth-ownership`), token: admin }) },
    { route: "POST /api/{target}/user/{userId}/release-auth-ownership", expect: 200, targetP50Ms: apiTarget, request: (_r, i) => ({ method: "POST", url: api(`/user/u${slot(i)}/release-auth-ownership`), token: admin }) },
    // After the changes above: the bench tenant's trail holds their events (a page of 50, newest first).
    {
      route: "GET /api/{target}/audit-events",
      expect: 200,
      targetP50Ms: apiTarget,
      note:
        "a page of 50 events reads 51 documents, and the JavaScript Firestore emulator and the client library cost about 120 µs per document read (session 14, from a script against the stack: 51 events by the route's query 16-19 ms, 2 events 10 ms, a getAll of 51 16 ms); " +
        "the emulator also reads the whole trail for each query (5,000 events add about 4.5 ms to a page of one), where Firestore answers from the route's index.",
      request: () => ({ method: "GET", url: api("/audit-events?limit=50"), token: admin }),
    },
    { route: "POST /print/{target}/print (first render)", expect: 201, request: (_r, i) => ({ method: "POST", url: printUrl("/print"), body: { objectInstanceId: `i${slot(i)}` }, token: admin }) },
    { route: "POST /print/{target}/print (cached)", expect: 201, targetP50Ms: (c) => (c === 1 ? 25 : undefined), request: () => ({ method: "POST", url: printUrl("/print"), body: { objectInstanceId: "cached" }, token: admin }) },
    // Issue 35: a template editor's request, an unsaved template with every feature (the bench tenant has no logo to prepare).
    { route: "POST /print/{target}/preview (one page, templated)", expect: 200, targetP50Ms: (c) => (c === 1 ? 60 : undefined), request: () => ({ method: "POST", url: printUrl("/preview"), body: { objectInstanceId: "cached", template: { name: "Bench", objectTypeNames: [], ...BENCH_TEMPLATE, others: "hide" } }, token: admin }) },
    { route: "POST /print/{target}/send-pdf (cached PDF)", expect: 200, request: (_r, i) => ({ method: "POST", url: printUrl("/send-pdf"), body: { objectInstanceId: "cached", to: "bench@example.com" }, token: senders[Math.floor(slot(i) / 20)] }) },
  ];

  const rows: HttpRow[] = [];
  for (const concurrency of [1, 20] as const) {
    // Warm-up: the emulator starts a worker process per concurrent request the first time, and each
    // worker's code gets fast only once V8 has optimised it (a few hundred requests through the
    // shared pipeline). The stateless cases warm every worker; the stateful ones share their code.
    for (const warm of cases.filter((c) => WARM_UP_CASES.includes(c.route))) {
      await load(() => warm.request(0, 0, concurrency), warmUpRequests(concurrency), concurrency);
    }
    backendCalls.clear();
    for (const c of cases) {
      const p50s: number[] = [];
      const p99s: number[] = [];
      const rates: number[] = [];
      let errors = 0;
      let requests = 0;
      for (let run = 0; run < RUNS; run++) {
        // The stateful cases act on the same slice in turn: delete, restore, claim, release.
        offset = (concurrency === 20 ? RUNS * REQUESTS[1] : 0) + run * REQUESTS[concurrency];
        const result = await load((i) => c.request(run, i, concurrency), REQUESTS[concurrency], concurrency);
        p50s.push(percentile(result.latencies, 0.5));
        p99s.push(percentile(result.latencies, 0.99));
        rates.push((result.latencies.length / result.wallMs) * 1000);
        errors += result.errors;
        requests += result.latencies.length;
      }
      const mostSeenCalls = [...backendCalls].sort((a, b) => b[1] - a[1])[0]?.[0];
      backendCalls.clear();
      rows.push({
        route: c.route,
        concurrency,
        requests,
        errors,
        requestsPerSecond: summarize(rates).median,
        p50: summarize(p50s),
        p99: summarize(p99s),
        targetP50Ms: c.targetP50Ms?.(concurrency),
        backendCalls: mostSeenCalls,
        note: c.note,
      });
      console.error(`  http: ${c.route} at ${concurrency}: p50 ${summarize(p50s).median.toFixed(1)} ms, ${errors} errors`);
      for (const [failure, count] of failures) console.error(`    ${count} x ${failure}`);
      failures.clear();
    }
  }
  return { baseUrl: URLS.functions, runs: RUNS, requests: REQUESTS, rows };
}
