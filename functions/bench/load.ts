/**
 * A bounded load run over a running local stack (not part of `npm test`): mixed requests of every
 * api route, cached prints and expected refusals, at a fixed concurrency, with zero errors allowed,
 * and the memory of the function workers compared before and after.
 *
 *   npm start                                      # or any stack: STACK_PORT_OFFSET=20000 npm start
 *   cd functions && node --import tsx bench/load.ts [--requests 5000] [--concurrency 20] [--warmup 1000]
 *   (with STACK_PORT_OFFSET set as for the stack)
 *
 * An error is a request that fails, times out, or answers another status than its kind expects
 * (the expected refusals, 400/401/404, are part of the mix). Stateful kinds act on each client's
 * own subject users (soft delete then restore, claim then release), so every request has one
 * right answer however the run interleaves.
 *
 * Memory: the functions emulator serves each function with worker processes
 * (firebase-tools/lib/emulator/functionsEmulatorRuntime), one per concurrent request; this reads
 * each worker's resident set size from /proc (Linux) after the warm-up, after each half of the
 * measured run, and after a pause. Workers alive from warm-up to end are compared; workers that
 * appeared or vanished are reported (a rebuild of functions/lib restarts them all).
 * Exit code 1 when there were errors, or the workers grew by more than MAX_GROWTH.
 */
import { randomBytes } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { Agent, request } from "node:http";
import { getFirestore } from "firebase-admin/firestore";
import { EMULATOR_ENV, URLS } from "../stack/config";
import { seedStack, signInToStack, stackAdminApp } from "../stack/seedStack";
import { percentile, seededRandom } from "./stats";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const REQUESTS = option("requests", 5_000);
const CONCURRENCY = option("concurrency", 20);
const WARMUP = option("warmup", 3_000);
/** Largest growth of the surviving workers' total RSS, from after the warm-up to the end, that still passes. */
const MAX_GROWTH = 0.1;
const TIMEOUT_MS = 30_000;

const r = randomBytes(3).toString("hex");
const ORG = `load-org-${r}`;
const TENANT = `load-tenant-${r}`;
const FOREIGN = `load-foreign-${r}`;
const PASSWORD = `load-password-${r}`;
const INSTANCE = "load-doc";

interface Client {
  index: number;
  uid: string;
  email: string;
  authorization: string;
  /** Subject of soft delete / restore, and whether it is deleted now. */
  subject: string;
  deleted: boolean;
  /** Subject of claim / release, and whether this tenant owns it now. */
  owned: string;
  claimed: boolean;
}

const clients: Client[] = Array.from({ length: CONCURRENCY }, (_, index) => {
  const uid = `load-c${index}-${r}`;
  const email = `${uid}@load.test`;
  return {
    index,
    uid,
    email,
    // Even clients send email:password, odd ones an ID token (set below).
    authorization: `Basic ${Buffer.from(`${email}:${PASSWORD}`).toString("base64")}`,
    subject: `load-s${index}-${r}`,
    deleted: false,
    owned: `load-o${index}-${r}`,
    claimed: false,
  };
});

async function seed(): Promise<void> {
  const documents: Record<string, Record<string, unknown>> = {
    [`organizations/${ORG}`]: { name: "Load org", features: { PEOPLE_MANAGEMENT: true } },
    [`tenants/${TENANT}`]: { name: "Load tenant", organizationId: ORG, features: {} },
    [`tenants/${FOREIGN}`]: { name: "Foreign tenant", organizationId: null, features: { PEOPLE_MANAGEMENT: true } },
    [`tenants/${TENANT}/objectInstances/${INSTANCE}`]: {
      title: "Load test document",
      objectTypeName: "Load",
      sections: [{ title: "Section", fields: [{ label: "Field", type: "text", value: "value" }] }],
    },
  };
  for (let i = 0; i < 12; i++) documents[`tenants/${TENANT}/roles/role-${i}`] = { name: `Role ${i}`, description: "", permissions: ["READ"], createdAt: { $timestamp: "2026-01-01T00:00:00Z" } };
  for (const c of clients) {
    documents[`tenants/${TENANT}/members/${c.uid}`] = { permissions: ["ADMIN"] };
    documents[`tenants/${TENANT}/users/${c.subject}`] = { email: `${c.subject}@load.test`, deletedAt: null };
    documents[`tenants/${TENANT}/users/${c.owned}`] = { email: `${c.owned}@load.test`, deletedAt: null };
  }
  await seedStack({ users: clients.map((c) => ({ uid: c.uid, email: c.email, password: PASSWORD })), documents });
  await Promise.all(
    clients
      .filter((c) => c.index % 2 === 1)
      .map(async (c) => {
        c.authorization = `Bearer ${await signInToStack(c.email, PASSWORD)}`;
      }),
  );
}

// --- Requests ---------------------------------------------------------------------------------------

interface Planned {
  origin: string;
  method: string;
  path: string;
  body?: string;
  expect: number;
  /** Applied when the answer is the expected one (stateful kinds). */
  done?: () => void;
}

/** The mix, by weight: mostly successes of every route, some expected refusals. */
const KINDS: { kind: string; weight: number; plan(c: Client): Planned }[] = [
  { kind: "GET roles", weight: 18, plan: () => ({ origin: URLS.api, method: "GET", path: `/api/organization/${ORG}/tenant/${TENANT}/roles?limit=10&offset=2`, expect: 200 }) },
  { kind: "GET auth-ownership-status", weight: 14, plan: (c) => ({ origin: URLS.api, method: "GET", path: `/api/tenant/${TENANT}/user/${c.owned}/auth-ownership-status`, expect: 200 }) },
  {
    kind: "POST print (stored PDF)",
    weight: 16,
    plan: () => ({ origin: URLS.print, method: "POST", path: `/print/tenant/${TENANT}/print`, body: JSON.stringify({ objectInstanceId: INSTANCE }), expect: 201 }),
  },
  {
    kind: "DELETE user / POST restore",
    weight: 14,
    plan: (c) =>
      c.deleted
        ? { origin: URLS.api, method: "POST", path: `/api/tenant/${TENANT}/user/${c.subject}/restore`, expect: 201, done: () => void (c.deleted = false) }
        : { origin: URLS.api, method: "DELETE", path: `/api/tenant/${TENANT}/user/${c.subject}`, expect: 200, done: () => void (c.deleted = true) },
  },
  {
    kind: "POST claim / release",
    weight: 14,
    plan: (c) =>
      c.claimed
        ? { origin: URLS.api, method: "POST", path: `/api/tenant/${TENANT}/user/${c.owned}/release-auth-ownership`, expect: 200, done: () => void (c.claimed = false) }
        : { origin: URLS.api, method: "POST", path: `/api/tenant/${TENANT}/user/${c.owned}/claim-auth-ownership`, expect: 200, done: () => void (c.claimed = true) },
  },
  { kind: "GET roles via hosting", weight: 6, plan: () => ({ origin: URLS.hosting, method: "GET", path: `/api/tenant/${TENANT}/roles?limit=5`, expect: 200 }) },
  { kind: "401 another tenant", weight: 6, plan: () => ({ origin: URLS.api, method: "GET", path: `/api/tenant/${FOREIGN}/roles`, expect: 401 }) },
  { kind: "400 invalid query", weight: 6, plan: () => ({ origin: URLS.api, method: "GET", path: `/api/tenant/${TENANT}/roles?limit=0`, expect: 400 }) },
  { kind: "404 unknown route", weight: 6, plan: () => ({ origin: URLS.print, method: "GET", path: `/print/tenant/${TENANT}/nothing`, expect: 404 }) },
];
const WHEEL = KINDS.flatMap((k) => Array<(typeof KINDS)[number]>(k.weight).fill(k));

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });

function send(planned: Planned, authorization: string): Promise<{ status: number; ms: number; error?: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const url = new URL(planned.origin);
    const headers: Record<string, string | number> = { authorization };
    if (planned.body !== undefined) Object.assign(headers, { "content-type": "application/json", "content-length": Buffer.byteLength(planned.body) });
    const req = request({ host: url.hostname, port: url.port, method: planned.method, path: `${url.pathname.replace(/\/$/, "")}${planned.path}`, headers, agent, timeout: TIMEOUT_MS }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    req.on("error", (error) => resolve({ status: 0, ms: performance.now() - started, error: error.message }));
    req.end(planned.body);
  });
}

interface PhaseResult {
  requests: number;
  errors: string[];
  wallMs: number;
  latencies: Map<string, number[]>;
}

/** `count` requests from `concurrency` clients, each sending one request at a time. */
async function phase(count: number, seed: number, concurrency = CONCURRENCY): Promise<PhaseResult> {
  const rnd = seededRandom(seed); // deterministic, so that runs are comparable
  const result: PhaseResult = { requests: 0, errors: [], wallMs: 0, latencies: new Map() };
  let next = 0;
  const started = performance.now();
  await Promise.all(
    clients.slice(0, concurrency).map(async (client) => {
      while (next < count) {
        next++;
        const kind = WHEEL[Math.floor(rnd() * WHEEL.length)];
        const planned = kind.plan(client);
        let answer = await send(planned, client.authorization);
        // A kept-alive connection the server closed while idle: retried once on a new one.
        if (answer.error === "socket hang up" || answer.error?.includes("ECONNRESET")) answer = await send(planned, client.authorization);
        result.requests++;
        if (!result.latencies.has(kind.kind)) result.latencies.set(kind.kind, []);
        result.latencies.get(kind.kind)!.push(answer.ms);
        if (answer.status === planned.expect) planned.done?.();
        else result.errors.push(`${kind.kind}: ${answer.error ?? `HTTP ${answer.status}, expected ${planned.expect}`}`);
      }
    }),
  );
  result.wallMs = performance.now() - started;
  return result;
}

// --- Memory -----------------------------------------------------------------------------------------

interface Worker {
  pid: number;
  fn: string;
  rssKiB: number;
}

/** The function workers of this stack (their FIRESTORE_EMULATOR_HOST is this stack's). */
function workers(): Worker[] {
  const out: Worker[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/cmdline`, "utf8").includes("functionsEmulatorRuntime")) continue;
      const env = readFileSync(`/proc/${name}/environ`, "utf8").split("\0");
      if (!env.includes(`FIRESTORE_EMULATOR_HOST=${EMULATOR_ENV.FIRESTORE_EMULATOR_HOST}`)) continue;
      const fn = env.find((e) => e.startsWith("FUNCTION_TARGET="))?.slice("FUNCTION_TARGET=".length) ?? "?";
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${name}/status`, "utf8"));
      if (rss) out.push({ pid: Number(name), fn, rssKiB: Number(rss[1]) });
    } catch {
      // the process ended while being read
    }
  }
  return out.sort((a, b) => a.pid - b.pid);
}

/**
 * Reads each client's subjects back, so that a warm-up request that timed out on the client but
 * completed on the server does not make the measured run's next request of that client wrong.
 */
async function resync(): Promise<void> {
  const db = getFirestore(stackAdminApp());
  await Promise.all(
    clients.map(async (c) => {
      c.deleted = (await db.doc(`tenants/${TENANT}/users/${c.subject}`).get()).get("deletedAt") != null;
      c.claimed = (await db.doc(`authOwnership/${c.owned}`).get()).get("ownerPath") === `tenants/${TENANT}`;
    }),
  );
}

const mib = (kib: number) => (kib / 1024).toFixed(1);
const describeWorkers = (ws: Worker[]) => {
  const byFn = (fn: string) => ws.filter((w) => w.fn === fn);
  return ["api", "print"].map((fn) => `${fn}: ${byFn(fn).length} workers, ${mib(byFn(fn).reduce((s, w) => s + w.rssKiB, 0))} MiB`).join("; ");
};

// --- The run ----------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const ready = await fetch(`${URLS.api}/api/`).catch(() => undefined);
  if (!ready) throw new Error(`no stack answers at ${URLS.api} (start one first; STACK_PORT_OFFSET=${process.env.STACK_PORT_OFFSET ?? 0})`);
  await seed();
  console.log(`Load run: ${REQUESTS} requests at concurrency ${CONCURRENCY} after a warm-up of ${WARMUP}, against ${URLS.api} and ${URLS.print}.`);

  // The functions emulator runs one worker process per concurrent request and starts a new one
  // whenever a request finds none idle, without a cap: a cold burst at full concurrency on two
  // cores starts workers faster than they become ready (measured: 124 workers, 15 GB). So the
  // warm-up ramps up, and the measured run finds its workers started.
  const warm: PhaseResult = { requests: 0, errors: [], wallMs: 0, latencies: new Map() };
  // A third of the warm-up ramps the concurrency up; the rest runs at full concurrency, so that the
  // workers' heaps reach their working size before the baseline is taken.
  const ramp = [1, 2, 4, 8, 12, 16].filter((c) => c < CONCURRENCY);
  const rampTotal = Math.ceil(WARMUP / 3);
  const steps = [...ramp.map((concurrency, i) => ({ concurrency, count: Math.ceil((rampTotal * (i + 1)) / ((ramp.length * (ramp.length + 1)) / 2)) })), { concurrency: CONCURRENCY, count: WARMUP - rampTotal }];
  for (const [i, { concurrency, count }] of steps.entries()) {
    const part = await phase(count, i + 1, concurrency);
    warm.requests += part.requests;
    warm.errors.push(...part.errors);
  }
  await resync();
  await new Promise((r) => setTimeout(r, 2_000));
  const atStart = workers();
  console.log(`after warm-up (${warm.requests} requests, ${warm.errors.length} errors): ${describeWorkers(atStart)}`);

  const halves: PhaseResult[] = [];
  const samples: Worker[][] = [atStart];
  for (const [i, count] of [Math.ceil(REQUESTS / 2), Math.floor(REQUESTS / 2)].entries()) {
    halves.push(await phase(count, 100 + i));
    await new Promise((r) => setTimeout(r, 2_000));
    samples.push(workers());
    console.log(`after ${halves.reduce((s, h) => s + h.requests, 0)} measured requests: ${describeWorkers(samples[samples.length - 1])}`);
  }
  await new Promise((r) => setTimeout(r, 10_000));
  const atEnd = workers();
  samples.push(atEnd);
  console.log(`after a 10 s pause: ${describeWorkers(atEnd)}`);

  // Totals over the measured run.
  const requests = halves.reduce((s, h) => s + h.requests, 0);
  const errors = halves.flatMap((h) => h.errors);
  const wallMs = halves.reduce((s, h) => s + h.wallMs, 0);
  const latencies = new Map<string, number[]>();
  for (const h of halves) for (const [k, v] of h.latencies) latencies.set(k, [...(latencies.get(k) ?? []), ...v]);
  const all = [...latencies.values()].flat();

  const survivors = atStart.filter((w) => atEnd.some((e) => e.pid === w.pid));
  const before = survivors.reduce((s, w) => s + w.rssKiB, 0);
  const after = survivors.reduce((s, w) => s + (atEnd.find((e) => e.pid === w.pid)?.rssKiB ?? 0), 0);
  const growth = before > 0 ? (after - before) / before : 0;
  const appeared = atEnd.filter((w) => !atStart.some((s) => s.pid === w.pid)).length;
  const vanished = atStart.length - survivors.length;

  console.log("");
  console.log(`| kind | requests | p50 ms | p95 ms | p99 ms |`);
  console.log(`| --- | --- | --- | --- | --- |`);
  for (const k of KINDS) {
    const xs = latencies.get(k.kind) ?? [];
    console.log(`| ${k.kind} | ${xs.length} | ${percentile(xs, 0.5)?.toFixed(1)} | ${percentile(xs, 0.95)?.toFixed(1)} | ${percentile(xs, 0.99)?.toFixed(1)} |`);
  }
  console.log(`| all | ${all.length} | ${percentile(all, 0.5).toFixed(1)} | ${percentile(all, 0.95).toFixed(1)} | ${percentile(all, 0.99).toFixed(1)} |`);
  console.log("");
  console.log(
    `Measured: ${requests} requests at concurrency ${CONCURRENCY} in ${(wallMs / 1000).toFixed(1)} s (${((requests * 1000) / wallMs).toFixed(0)} requests/s), ` +
      `${errors.length} errors (warm-up: ${warm.errors.length}).`,
  );
  console.log(
    `Memory of the ${survivors.length} workers alive from warm-up to end: ${mib(before)} MiB -> ${mib(after)} MiB (${(growth * 100).toFixed(1)}%; ` +
      `samples: ${samples.map((s) => mib(s.filter((w) => survivors.some((v) => v.pid === w.pid)).reduce((t, w) => t + w.rssKiB, 0))).join(", ")} MiB); ` +
      `${appeared} workers appeared and ${vanished} vanished meanwhile.`,
  );
  for (const e of [...new Set([...warm.errors, ...errors])].slice(0, 20)) console.log(`  error: ${e}`);
  const failed = errors.length > 0 || warm.errors.length > 0 || growth > MAX_GROWTH || survivors.length === 0;
  console.log(failed ? "FAILED" : `PASSED: zero errors, memory growth within ${MAX_GROWTH * 100}%.`);
  agent.destroy();
  process.exit(failed ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
