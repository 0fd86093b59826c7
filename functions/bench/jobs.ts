// Print jobs against the naive loop, over a stack that is already running (`npm start`, or
// STACK_PORT_OFFSET for another one): the same one-page instances printed as one job (one ZIP, on
// the stack's Cloud Tasks emulator) and as one `print` request each at concurrency 1 and 8, time to
// the last byte of the result and documents per second. It writes its own instances (a fresh
// tenant of acme's, deleted afterwards).
//   npm run bench:jobs -- [documents=1000]      (figures go to BENCHMARKS.md, "Print jobs")
// Targets (issue 34): 10,000 documents as one ZIP in under 60 s on this 2-core machine, at least 5x the
// naive loop's documents per second.

import { randomBytes } from "node:crypto";
import { getFirestore } from "firebase-admin/firestore";
import { URLS } from "../stack/config";
import { DEMO_PASSWORD } from "../stack/examples";
import { signInToStack, stackAdminApp } from "../stack/seedStack";

const documents = Number(process.argv[2] ?? 1000);

async function call(method: string, url: string, token: string, body?: Record<string, unknown>) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body) headers["content-type"] = "application/json";
  const res = await fetch(url, { method, headers, body: body ? JSON.stringify(body) : undefined, signal: AbortSignal.timeout(300_000) });
  return { status: res.status, json: (await res.json()) as any };
}

async function main(): Promise<void> {
  const up = await fetch(`${URLS.print}/print/openapi.json`, { signal: AbortSignal.timeout(5_000) }).then((r) => r.ok, () => false);
  if (!up) throw new Error(`no local stack answers at ${URLS.print}: start one with \`npm start\` in another terminal`);
  const db = getFirestore(stackAdminApp());
  const tenant = `bench-jobs-${randomBytes(3).toString("hex")}`;
  const ids = Array.from({ length: documents }, (_, i) => `doc-${String(i).padStart(5, "0")}`);
  await db.doc(`tenants/${tenant}`).set({ name: "Bench jobs", organizationId: "acme", features: {} });
  for (let i = 0; i < ids.length; i += 400) {
    const batch = db.batch();
    for (const id of ids.slice(i, i + 400)) {
      batch.set(db.doc(`tenants/${tenant}/objectInstances/${id}`), { title: `Inspection ${id}`, objectTypeName: "Safety Inspection", updatedAt: new Date(0), sections: [{ title: "Readings", fields: [{ label: "Pressure (bar)", type: "number", value: 4.2 }, { label: "Result", type: "text", value: "Within limits" }, { label: "Checked", type: "boolean", value: true }] }] });
    }
    await batch.commit();
  }
  // The organization's ADMIN prints anywhere below it.
  const token = await signInToStack("org-admin@acme.test", DEMO_PASSWORD);
  const base = `${URLS.print}/print/organization/acme/tenant/${tenant}`;
  const rows: string[] = [];

  // One job: from the request to the archive's last byte.
  let started = performance.now();
  const created = await call("POST", `${base}/print-jobs`, token, { objectInstanceIds: ids });
  if (created.status !== 202) throw new Error(`POST print-jobs: ${created.status} ${JSON.stringify(created.json)}`);
  let job: any;
  for (;;) {
    job = (await call("GET", `${base}/print-jobs/${created.json.data.jobId}`, token)).json.data;
    if (job.finishedAt) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const zip = new Uint8Array(await (await fetch(job.result.downloadUrl)).arrayBuffer());
  let seconds = (performance.now() - started) / 1000;
  rows.push(`| one job (ZIP) | ${documents} | ${seconds.toFixed(1)} | ${(documents / seconds).toFixed(1)} | ${job.status}, ${job.done} printed, ${(zip.length / 1024 / 1024).toFixed(1)} MiB |`);

  // The naive loop: a print request per instance, its PDF fetched, at concurrency 1 and 8 (a sample of
  // 200 documents: its rate is the loop's, whatever the count).
  for (const concurrency of [1, 8]) {
    const sample = ids.slice(0, Math.min(200, documents));
    let next = 0;
    let errors = 0;
    started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < sample.length) {
          const id = sample[next++];
          const res = await call("POST", `${base}/print`, token, { objectInstanceId: id, timeZone: "+00:00" });
          if (res.status !== 201) errors++;
          else await (await fetch(res.json.data.downloadUrl)).arrayBuffer();
        }
      }),
    );
    seconds = (performance.now() - started) / 1000;
    rows.push(`| naive loop, concurrency ${concurrency} | ${sample.length} | ${seconds.toFixed(1)} | ${(sample.length / seconds).toFixed(1)} | ${errors} errors |`);
  }

  console.log("| how | documents | s to the last byte | documents/s | result |");
  console.log("| --- | ---: | ---: | ---: | --- |");
  for (const row of rows) console.log(row);
  for (let i = 0; i < ids.length; i += 400) {
    const batch = db.batch();
    for (const id of ids.slice(i, i + 400)) batch.delete(db.doc(`tenants/${tenant}/objectInstances/${id}`));
    await batch.commit();
  }
  await db.doc(`tenants/${tenant}`).delete();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
