import { getFirestore } from "firebase-admin/firestore";
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PORTS, ROOT_DIR, URLS } from "../../stack/config";
import { EXAMPLES, EXAMPLE_USER, JOB_ZIP, PREVIEW_PDF, curlCommand, jobExample, previewExample } from "../../stack/examples";
import { readFixture } from "../../stack/seed";
import { seedStack, stackAdminApp } from "../../stack/seedStack";
import { BASES, basicHeader, call, idTokenFor } from "../helpers";

const execFileAsync = promisify(execFile);

/** Listening TCP sockets of this machine, from /proc (IPv4 and IPv6), without sending any traffic. */
function listeningSockets(): { address: string; port: number }[] {
  const sockets: { address: string; port: number }[] = [];
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(file, "utf8").split("\n").slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state !== "0A" || !local) continue; // 0A = LISTEN
      const [hex, port] = local.split(":");
      const address = hex.length === 8 ? hex.match(/../g)!.reverse().map((b) => parseInt(b, 16)).join(".") : hex === "0".repeat(32) ? "::" : `ipv6:${hex}`;
      sockets.push({ address, port: parseInt(port, 16) });
    }
  }
  return sockets;
}

const ERROR_SHAPE = { statusCode: expect.any(Number), error: expect.any(String), message: expect.any(String) };

describe("every part of the stack answers", () => {
  it("auth emulator", async () => {
    const res = await call(`${URLS.auth}/`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ authEmulator: { ready: true } });
  });

  it("Firestore emulator, through the real Admin SDK, with the demo data loaded", async () => {
    const db = getFirestore(stackAdminApp());
    const org = await db.doc("organizations/acme").get();
    expect(org.get("name")).toBe("Acme Corporation");
    const ref = db.doc(`stackTests/${Date.now()}`);
    await ref.set({ answered: true });
    expect((await ref.get()).data()).toEqual({ answered: true });
    await ref.delete();
  });

  it("Cloud Storage emulator", async () => {
    const res = await call(`${URLS.storage}/v0/b/some-bucket/o/missing.txt`);
    expect([403, 404]).toContain(res.status);
  });

  it("mail sink", async () => {
    const res = await call(`${URLS.mailSink}/messages`);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.json)).toBe(true);
  });

  it("binds every part to 127.0.0.1 only", () => {
    const listening = listeningSockets();
    for (const [part, port] of Object.entries(PORTS)) {
      const addresses = listening.filter((l) => l.port === port).map((l) => l.address);
      expect(addresses, `${part} (${port})`).not.toHaveLength(0);
      expect(new Set(addresses), `${part} (${port})`).toEqual(new Set(["127.0.0.1"]));
    }
  });
});

describe.each([
  ["function URL", "functionUrl"],
  ["hosting rewrite", "hosting"],
] as const)("both functions load and answer through the %s", (_name, via) => {
  it.each(["api", "print"] as const)("%s answers an unknown path with a JSON 404", async (fn) => {
    const res = await call(`${BASES[fn][via]}/no/such/route`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.json).toEqual({ statusCode: 404, error: "Not Found", message: expect.stringContaining("/no/such/route") });
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("api refuses an unauthenticated call with 401 and a challenge", async () => {
    const res = await call(`${BASES.api[via]}/tenant/acme-north/roles`);
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject(ERROR_SHAPE);
    expect(res.headers.get("www-authenticate")).toMatch(/Bearer/);
  });

  it("print refuses a non-JSON body with 415", async () => {
    const res = await call(`${BASES.print[via]}/tenant/acme-north/print`, {
      method: "POST",
      auth: { basic: EXAMPLE_USER },
      body: "objectInstanceId=inspection-short",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(415);
    expect(res.json).toEqual({ statusCode: 415, error: "Unsupported Media Type", message: expect.any(String) });
  });

  it("print refuses a body over the limit with 413", async () => {
    const res = await call(`${BASES.print[via]}/tenant/acme-north/print`, {
      method: "POST",
      auth: { basic: EXAMPLE_USER },
      body: { objectInstanceId: "x".repeat(200 * 1024) },
    });
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ statusCode: 413, error: "Payload Too Large" });
  });

  it("every request gets its own request id", async () => {
    const [a, b] = await Promise.all([call(`${BASES.api[via]}/x`), call(`${BASES.api[via]}/x`)]);
    expect(a.headers.get("x-request-id")).not.toBe(b.headers.get("x-request-id"));
  });
});

describe("credentials from the auth emulator reach the functions", () => {
  it("a Bearer ID token is verified by the function", async () => {
    const token = await idTokenFor(EXAMPLE_USER);
    const ok = await call(`${BASES.api.hosting}/tenant/acme-north/roles`, { auth: { bearer: token } });
    expect(ok.status, ok.text).toBe(200);
    // The auth emulator signs nothing, so a tampered payload is what a forgery looks like here.
    const tampered = token.split(".");
    tampered[1] = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(tampered[1], "base64url").toString()), aud: "another-project" })).toString("base64url");
    const wrongAudience = await call(`${BASES.api.hosting}/tenant/acme-north/roles`, { auth: { bearer: tampered.join(".") } });
    expect(wrongAudience.status).toBe(401);
    expect(wrongAudience.json).toMatchObject(ERROR_SHAPE);
  });

  it("Basic email:password is checked against the auth emulator", async () => {
    const ok = await call(`${BASES.print.functionUrl}/tenant/acme-north/print`, { method: "POST", auth: { basic: EXAMPLE_USER }, body: { objectInstanceId: "inspection-short" } });
    expect(ok.status, ok.text).toBe(201);
    const wrong = await call(`${BASES.print.functionUrl}/tenant/acme-north/print`, {
      method: "POST",
      auth: { header: basicHeader(EXAMPLE_USER, "not-the-password") },
      body: { objectInstanceId: "inspection-short" },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.json.message).not.toContain("not-the-password");
  });
});

describe("the ready block's examples, in order, on freshly seeded demo data", () => {
  const seedDemo = async () => {
    await seedStack(readFixture(join(ROOT_DIR, "emulator-data", "demo.json")));
  };
  // Other tests change demo users; the examples change them too (north-nobody soft-deleted, the ops
  // division on Letter paper): the files after this one get the demo data as seeded.
  beforeAll(seedDemo);
  afterAll(seedDemo);

  it.each(EXAMPLES.map((e) => [e.title, e] as const))("%s succeeds", async (_title, example) => {
    const token = await idTokenFor(EXAMPLE_USER);
    // The command exactly as the ready block prints it, with the token the block's first line puts in $TOKEN.
    // (Run asynchronously: a synchronous child blocks this process's event loop, and an idle keep-alive
    // connection to the emulators can be closed under it.)
    const { stdout: out } = await execFileAsync("bash", ["-c", curlCommand(example)], { env: { ...process.env, TOKEN: token }, encoding: "utf8", timeout: 30_000 });
    const res = JSON.parse(out) as { statusCode?: number; message?: string };
    expect(res.message, out).toBeTypeOf("string");
    expect(res.statusCode ?? 200, out).toBeLessThan(300);
  });

  it("the preview example saves the PDF of an unsaved template: its German page numbers and its watermark", async () => {
    const token = await idTokenFor(EXAMPLE_USER);
    const dir = mkdtempSync(join(tmpdir(), "preview-example-"));
    try {
      const script = ["set -eo pipefail", ...previewExample().flatMap((e) => e.lines)].join("\n");
      const { stdout: out } = await execFileAsync("bash", ["-c", script], { cwd: dir, env: { ...process.env, TOKEN: token }, encoding: "utf8", timeout: 30_000 });
      expect(out).toMatch(/^200 application\/pdf \d+ bytes\n$/);
      const text = execFileSync("pdftotext", [PREVIEW_PDF, "-"], { cwd: dir, encoding: "utf8" });
      expect(text).toContain("Seite 1 von 2");
      expect(text).toContain("ENTWURF");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the print-job example starts a job by filter, shows its status and saves its ZIP", async () => {
    const token = await idTokenFor(EXAMPLE_USER);
    const dir = mkdtempSync(join(tmpdir(), "job-example-"));
    try {
      // The block's lines as printed, pasted into one shell (that stops at the first that fails).
      const script = ["set -eo pipefail", ...jobExample().flatMap((e) => e.lines)].join("\n");
      const { stdout: out } = await execFileAsync("bash", ["-c", script], { cwd: dir, env: { ...process.env, TOKEN: token }, encoding: "utf8", timeout: 90_000 });
      // The status (curl prints no newline after it), then unzip's listing.
      // What the filter matches: the demo's two Safety Inspections of May 2026, and any copy of them
      // other test files left in acme-north (seeding sets the demo's documents, it deletes no others).
      const matching = await getFirestore(stackAdminApp())
        .collection("tenants/acme-north/objectInstances")
        .where("objectTypeName", "==", "Safety Inspection")
        .where("updatedAt", ">=", new Date("2026-05-01T00:00:00Z"))
        .where("updatedAt", "<", new Date("2026-06-01T00:00:00Z"))
        .get();
      const expected = matching.docs.sort((a, b) => a.get("updatedAt").toMillis() - b.get("updatedAt").toMillis() || (a.id < b.id ? -1 : 1)).map((d) => d.id);
      expect(expected).toEqual(expect.arrayContaining(["inspection-short", "inspection-photos"]));
      const status = JSON.parse(out.slice(0, out.indexOf("Archive:"))) as { data: { jobId: string; total: number } };
      expect(status.data, out).toMatchObject({ jobId: expect.stringMatching(/^[0-9a-f]{24}$/), total: expected.length });
      // Every one printed, the earlier update first.
      const manifest = JSON.parse(execFileSync("unzip", ["-p", JOB_ZIP, "manifest.json"], { cwd: dir, encoding: "utf8" })) as { documents: { objectInstanceId: string; file?: string }[] };
      expect(manifest.documents.map((d) => [d.objectInstanceId, d.file?.endsWith(".pdf")])).toEqual(expected.map((id) => [id, true]));
      expect(out).toContain("manifest.json");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
