// Signed PDFs through the stack (issue 36): a target whose print setting `sign` is on gets PDFs
// signed with the stack's throwaway key (stack/signingCa.ts, which the launcher makes at start in
// .cache/signing and hands to the functions through functions/.secret.local), checked with poppler's
// pdfsig trusting the stack's test CA in an NSS database; and the record of each signed PDF printed.
//
// The tests use fresh tenants of their own: the demo's targets print unsigned, as before.

import { spawnSync, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SIGNING_DIR, URLS } from "../../stack/config";
import { ensureDebianPackage } from "../../stack/debianPackages";
import { SIGNING_CA_NAME, SIGNING_FILES } from "../../stack/signingCa";
import { apiUrl, firestore, freshUid } from "../api/fixtures";
import { BASES, call, idTokenFor } from "../helpers";
import { renderInstancePdf } from "../../src/print/render";
import { localSigner } from "../../src/print/signing/signer";
import { ensureSigningIdentity } from "../../stack/signingCa";
import { pdfInfo, qpdfCheck } from "./pdfChecks";

const work = mkdtempSync(join(tmpdir(), "signed-pdfs-"));
/** An NSS database that trusts the stack's test CA (as the README tells a reader to make one). */
let trusting: string;

function pdfsig(bytes: Uint8Array): string {
  const file = join(work, `pdfsig-${process.hrtime.bigint()}.pdf`);
  writeFileSync(file, bytes);
  const run = spawnSync("pdfsig", ["-nssdir", `sql:${trusting}`, file], { encoding: "utf8", timeout: 30_000 });
  return `${run.stdout}${run.stderr}`;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const download = async (url: string) => new Uint8Array(await (await fetch(url, { signal: AbortSignal.timeout(20_000) })).arrayBuffer());
/** POST verify with `bytes` as the body. */
async function verify(bytes: Uint8Array | string, target = tenant.target, contentType = "application/pdf", token = reader) {
  const res = await fetch(`${BASES.print.functionUrl}${target}/verify`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": contentType }, body: typeof bytes === "string" ? bytes : Buffer.from(bytes), signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) as { message: string; data: Record<string, any>; statusCode?: number } };
}
const sink = (path: string, options: Parameters<typeof call>[1] = {}) => call(`${URLS.mailSink}${path}`, options);

/** A fresh tenant of the demo organization (its admin is ADMIN there), with one instance and a READ member. */
async function freshTenant(label: string): Promise<{ id: string; target: string }> {
  const id = freshUid(label);
  await firestore().doc(`tenants/${id}`).set({ name: `Signed ${label}`, organizationId: "acme", features: {} });
  await firestore().doc(`tenants/${id}/members/north-reader`).set({ permissions: ["READ"] });
  await firestore()
    .doc(`tenants/${id}/objectInstances/report`)
    .set({
      title: "Pressure test PT-7",
      objectTypeName: "Certificate of test",
      sections: [{ title: "Vessel", fields: [{ label: "Serial", type: "text", value: "V-2031-88" }, { label: "Held", type: "boolean", value: true }] }],
    });
  return { id, target: `/organization/acme/tenant/${id}` };
}

let orgAdmin: string;
let reader: string;
let tenant: { id: string; target: string };
const settings = (body: unknown, target = tenant.target) => call(apiUrl(`${target}/print-settings`), { method: "PUT", auth: { bearer: orgAdmin }, body });
const print = (target = tenant.target, body: Record<string, unknown> = {}) =>
  call(`${BASES.print.functionUrl}${target}/print`, { method: "POST", auth: { bearer: reader }, body: { objectInstanceId: "report", ...body }, timeoutMs: 30_000 });

beforeAll(async () => {
  for (const [pkg, binary] of [
    ["poppler-utils", "/usr/bin/pdfsig"],
    ["qpdf", "/usr/bin/qpdf"],
    ["libnss3-tools", "/usr/bin/certutil"],
  ]) {
    const reason = ensureDebianPackage(pkg, binary, (line) => console.log(line));
    if (reason) throw new Error(`${pkg} is needed to check signed PDFs: ${reason}`);
  }
  // The launcher made the identity before the functions started; its CA is what a reader trusts.
  trusting = join(work, "nss");
  execFileSync("mkdir", ["-p", trusting]);
  execFileSync("certutil", ["-N", "-d", `sql:${trusting}`, "--empty-password"]);
  execFileSync("certutil", ["-A", "-d", `sql:${trusting}`, "-n", SIGNING_CA_NAME, "-t", "C,C,C", "-a", "-i", join(SIGNING_DIR, SIGNING_FILES.ca)]);
  [orgAdmin, reader] = await Promise.all([idTokenFor("org-admin@acme.test"), idTokenFor("north-reader@acme.test")]);
  tenant = await freshTenant("signed");
}, 60_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("print setting sign (PUT print-settings, ADMIN)", () => {
  it("is off by default, set by ADMIN only, and refused when not a boolean", async () => {
    const current = await call(apiUrl(`${tenant.target}/print-settings`), { auth: { bearer: orgAdmin } });
    expect(current.json.data.effective.sign).toBe(false);
    expect(current.json.data.sources.sign).toBe("default");
    const refused = await settings({ sign: "yes" });
    expect(refused.status).toBe(400);
    expect(refused.json.message).toContain("sign");
    // READ cannot set it; nor can a print request (not a field of its body).
    const byReader = await call(apiUrl(`${tenant.target}/print-settings`), { method: "PUT", auth: { bearer: reader }, body: { sign: true } });
    expect(byReader.status).toBe(401);
    expect((await print(tenant.target, { sign: true })).status).toBe(400);
  });
});

describe("a target with sign on", () => {
  let unsigned: { storagePath: string };
  let signed: { storagePath: string; downloadUrl: string; sign: boolean; cached: boolean };
  let bytes: Uint8Array;
  beforeAll(async () => {
    const before = await print(tenant.target, { conformance: "PDF/A-2u" });
    expect(before.status).toBe(201);
    unsigned = before.json.data;
    const saved = await settings({ sign: true, conformance: "PDF/A-2u" });
    expect(saved.status).toBe(200);
    expect(saved.json.data.effective).toMatchObject({ sign: true, conformance: "PDF/A-2u" });
    const res = await print();
    expect(res.status).toBe(201);
    signed = res.json.data;
    bytes = await download(signed.downloadUrl);
  }, 60_000);

  it("is inherited by the target's divisions", async () => {
    await firestore().doc(`tenants/${tenant.id}/divisions/ops`).set({ name: "Ops", features: {} });
    const division = await call(apiUrl(`${tenant.target}/division/ops/print-settings`), { auth: { bearer: orgAdmin } });
    expect(division.json.data.effective.sign).toBe(true);
    expect(division.json.data.sources.sign).toBe(`tenants/${tenant.id}`);
  });

  it("prints a signed PDF, says so, and stores it under another name than the unsigned one", () => {
    expect(signed.sign).toBe(true);
    expect(signed.cached).toBe(false);
    expect(signed.storagePath).not.toBe(unsigned.storagePath);
    expect(signed.storagePath).toMatch(new RegExp(`^generated-pdfs/tenants/${tenant.id}/report/`));
  });

  it("is one pdfsig calls valid, whole, and trusted with the stack's test CA", () => {
    const report = pdfsig(bytes);
    expect(report).toContain("Signer Certificate Common Name: print-admin local test signer");
    expect(report).toContain("Signature Type: ETSI.CAdES.detached");
    expect(report).toContain("Signature is Valid.");
    expect(report).toContain("Total document signed");
    expect(report).toContain("Certificate is Trusted.");
  });

  it("stays PDF/A-2u and tagged: qpdf --check clean, pdfinfo Tagged", () => {
    const check = qpdfCheck(bytes);
    expect(check).toContain("No syntax or stream encoding errors found");
    expect(check).not.toMatch(/WARNING/i);
    const info = pdfInfo(bytes);
    expect(info.Tagged).toBe("yes");
    expect(Buffer.from(bytes).toString("latin1")).toContain("pdfaid:part");
  });

  it("records the signed file's SHA-256 for the target: where it is stored, which instance, until when", async () => {
    const record = (await firestore().doc(`tenants/${tenant.id}/printedPdfs/${sha256(bytes)}`).get()).data();
    expect(record).toMatchObject({ storagePath: signed.storagePath, objectInstanceId: "report" });
    const printedAt = record!.printedAt.toMillis();
    expect(Math.abs(printedAt - Date.now())).toBeLessThan(5 * 60_000);
    expect(record!.expireAt.toMillis() - printedAt).toBe(400 * 24 * 60 * 60 * 1000);
  });

  it("answers the stored signed PDF again, unchanged, without signing anew", async () => {
    const again = await print();
    expect(again.json.data).toMatchObject({ storagePath: signed.storagePath, cached: true, sign: true });
    expect(sha256(await download(again.json.data.downloadUrl))).toBe(sha256(bytes));
  });

  describe("send-pdf", () => {
    beforeEach(async () => {
      await sink("/messages", { method: "DELETE" });
    });

    it("attaches the signed file", async () => {
      const res = await call(`${BASES.print.functionUrl}${tenant.target}/send-pdf`, { method: "POST", auth: { bearer: reader }, body: { objectInstanceId: "report", to: "signed@example.com" }, timeoutMs: 30_000 });
      expect(res.status).toBe(200);
      expect(res.json.data).toMatchObject({ storagePath: signed.storagePath, sign: true });
      const [message] = (await sink("/messages")).json as { body: { attachments: { content: string }[] } }[];
      const attached = new Uint8Array(Buffer.from(message.body.attachments[0].content, "base64"));
      expect(sha256(attached)).toBe(sha256(bytes));
      expect(pdfsig(attached)).toContain("Signature is Valid.");
    });
  });
});

describe("POST /print/{target}/verify", () => {
  let signedBytes: Uint8Array;
  let signedPath: string;
  let unsignedBytes: Uint8Array;
  let other: { id: string; target: string };
  let otherBytes: Uint8Array;
  beforeAll(async () => {
    // The tenant signs since the tests above; its PDF again (stored), and one unsigned of the demo's.
    const printed = await print();
    expect(printed.json.data.sign).toBe(true);
    signedPath = printed.json.data.storagePath;
    signedBytes = await download(printed.json.data.downloadUrl);
    const demo = await call(`${BASES.print.functionUrl}/tenant/acme-north/print`, { method: "POST", auth: { bearer: reader }, body: { objectInstanceId: "inspection-short" }, timeoutMs: 30_000 });
    unsignedBytes = await download(demo.json.data.downloadUrl);
    // Another tenant that signs: its PDF is the service's, but not this tenant's.
    other = await freshTenant("signed-other");
    expect((await settings({ sign: true }, other.target)).status).toBe(200);
    const printedThere = await print(other.target);
    expect(printedThere.status).toBe(201);
    otherBytes = await download(printedThere.json.data.downloadUrl);
  }, 60_000);

  it("says a signed PDF of this target is valid, whole, by the stack's signer, and names what it printed", async () => {
    const res = await verify(signedBytes);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      message: expect.stringContaining("valid"),
      data: {
        signed: true,
        valid: true,
        coversWholeDocument: true,
        signedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/),
        signer: { subject: "CN=print-admin local test signer, O=print-admin (local stack)", issuer: "CN=print-admin local test CA, O=print-admin (local stack)", serialNumber: expect.stringMatching(/^[0-9A-F]+$/) },
        issuedHere: true,
        objectInstanceId: "report",
        storagePath: signedPath,
      },
    });
  });

  it("says a PDF with one signed byte changed is not valid, and not one it printed; so does pdfsig", async () => {
    const text = Buffer.from(signedBytes).toString("latin1");
    const [, holeStart] = /\/ByteRange \[ ?0 (\d+)/.exec(text)!.map(Number);
    const tampered = new Uint8Array(signedBytes);
    const at = Math.floor(holeStart / 2);
    tampered[at] = tampered[at] === 0x41 ? 0x42 : 0x41;
    const res = await verify(tampered);
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ signed: true, valid: false, coversWholeDocument: true, issuedHere: false });
    expect(res.json.data.storagePath).toBeUndefined();
    expect(pdfsig(tampered)).not.toContain("Signature is Valid.");
  });

  it("says another tenant's signed PDF is valid (the service's key) but not issued here, and names nothing of it", async () => {
    const res = await verify(otherBytes);
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ signed: true, valid: true, coversWholeDocument: true, signedAt: expect.any(String), signer: expect.any(Object), issuedHere: false });
    expect(res.text).not.toContain(other.id);
    // Where it was printed, it is that tenant's.
    const there = await verify(otherBytes, other.target);
    expect(there.json.data).toMatchObject({ issuedHere: true, objectInstanceId: "report", storagePath: expect.stringContaining(`tenants/${other.id}/`) });
  });

  it("says a PDF signed by another key is signed but not valid, naming its signer", async () => {
    const stranger = ensureSigningIdentity(join(work, "stranger"), new Date());
    const now = new Date();
    const { bytes } = await renderInstancePdf(
      { title: "Forged", objectTypeName: "T", sections: [{ title: "S", fields: [{ label: "A", type: "text", value: "b" }] }] },
      { instanceId: "forged", targetName: "Acme", generatedAt: now, signature: { signer: localSigner(stranger.keyPem, stranger.chainPem), signedAt: now } },
    );
    const res = await verify(bytes);
    expect(res.json.data).toMatchObject({ signed: true, valid: false, coversWholeDocument: true, issuedHere: false, signer: { subject: expect.stringContaining("print-admin local test signer") } });
  });

  it("says an unsigned PDF is not signed", async () => {
    const res = await verify(unsignedBytes);
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ signed: false, valid: false, coversWholeDocument: false, signedAt: null, signer: null, issuedHere: false });
  });

  it("refuses what is not a PDF (400), a broken signature (400), a JSON or other body (415), no body (400), and callers without a print permission (401)", async () => {
    expect((await verify("not a pdf at all")).status).toBe(400);
    const broken = Buffer.from(signedBytes).toString("latin1").replace(/\/Contents <30/, "/Contents <31");
    const brokenRes = await verify(new Uint8Array(Buffer.from(broken, "latin1")));
    expect(brokenRes.status).toBe(400);
    expect(brokenRes.json).toEqual({ statusCode: 400, error: "Bad Request", message: expect.stringContaining("signature") });
    expect((await verify(JSON.stringify({ pdf: "x" }), tenant.target, "application/json")).status).toBe(415);
    expect((await verify("%PDF-1.7", tenant.target, "text/plain")).status).toBe(415);
    expect((await verify("", tenant.target)).status).toBe(400);
    // ADMIN of another tenant only.
    expect((await verify(signedBytes, tenant.target, "application/pdf", await idTokenFor("south-admin@acme.test"))).status).toBe(401);
  });
});

describe("print jobs of a target with sign on", () => {
  /** Creates a job of the tenant's instance and waits for its end (the stack's Cloud Tasks emulator runs it in seconds). */
  async function job(output: "zip" | "merged") {
    const res = await call(`${BASES.print.functionUrl}${tenant.target}/print-jobs`, { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: ["report"], output } });
    expect(res.status, res.text).toBe(202);
    const deadline = Date.now() + 90_000;
    for (;;) {
      const status = await call(`${BASES.print.functionUrl}${tenant.target}/print-jobs/${res.json.data.jobId}`, { auth: { bearer: reader } });
      if (status.json.data.finishedAt !== null) return status.json.data;
      if (Date.now() > deadline) throw new Error(`job still ${status.json.data.status}: ${status.text}`);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  }

  it("sign each PDF of a ZIP as print does, and record it: verify says valid and names the job's archive", async () => {
    const done = await job("zip");
    expect(done.status).toBe("succeeded");
    const dir = join(work, `zip-${done.jobId}`);
    execFileSync("mkdir", ["-p", dir]);
    writeFileSync(join(dir, "out.zip"), await download(done.result.downloadUrl));
    execFileSync("unzip", ["-q", "out.zip", "-d", "x"], { cwd: dir });
    const pdfName = readdirSync(join(dir, "x")).find((name) => name.endsWith(".pdf"))!;
    const pdf = new Uint8Array(readFileSync(join(dir, "x", pdfName)));
    const report = pdfsig(pdf);
    expect(report).toContain("Signature is Valid.");
    expect(report).toContain("Total document signed");
    expect(report).toContain("Certificate is Trusted.");
    const res = await verify(pdf);
    expect(res.json.data).toMatchObject({ signed: true, valid: true, issuedHere: true, objectInstanceId: "report", storagePath: `generated-pdfs/tenants/${tenant.id}/jobs/${done.jobId}/${done.jobId}.zip`, printJobId: done.jobId });
  }, 120_000);

  it("sign a merged PDF as a whole, and record it: pdfsig and verify say valid, verify names the job and its output", async () => {
    const done = await job("merged");
    expect(done.status).toBe("succeeded");
    const merged = await download(done.result.downloadUrl);
    const report = pdfsig(merged);
    expect(report.match(/Signature #/g)).toHaveLength(1);
    expect(report).toContain("Signature is Valid.");
    expect(report).toContain("Total document signed");
    expect(report).toContain("Certificate is Trusted.");
    expect(pdfInfo(merged).Tagged).toBe("yes");
    const res = await verify(merged);
    expect(res.json.data).toMatchObject({ signed: true, valid: true, coversWholeDocument: true, issuedHere: true, storagePath: `generated-pdfs/tenants/${tenant.id}/jobs/${done.jobId}/${done.jobId}.pdf`, printJobId: done.jobId });
    expect(res.json.data.objectInstanceId).toBeUndefined();
  }, 120_000);

  // A finishing task that runs again once the signed output is stored (a duplicate delivery, or the
  // reaper finishing a job whose final update was lost) keeps it: signed anew it would be other bytes
  // than those recorded, served after the job said it was ready. Here the job is put back to running,
  // its chunks done and its parts already deleted, and the status read that reaps it runs the finish again.
  it("keep a stored signed merged PDF when the finish runs again: the same bytes, still recorded", async () => {
    const done = await job("merged");
    expect(done.status).toBe("succeeded");
    const first = await download(done.result.downloadUrl);
    const { FieldValue, Timestamp } = await import("firebase-admin/firestore");
    const gone = FieldValue.delete();
    await firestore()
      .doc(`tenants/${tenant.id}/printJobs/${done.jobId}`)
      .update({ status: "running", active: true, createdAt: Timestamp.fromMillis(Date.now() - 3_600_000), done: gone, failed: gone, failures: gone, result: gone, finishedAt: gone, finishEnqueuedAt: gone });
    const deadline = Date.now() + 60_000;
    let again;
    for (;;) {
      again = (await call(`${BASES.print.functionUrl}${tenant.target}/print-jobs/${done.jobId}`, { auth: { bearer: reader } })).json.data;
      if (again.finishedAt !== null || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(again).toMatchObject({ status: "succeeded", result: { storagePath: done.result.storagePath, sizeBytes: done.result.sizeBytes } });
    expect(Buffer.compare(Buffer.from(await download(again.result.downloadUrl)), Buffer.from(first))).toBe(0);
    expect((await verify(first)).json.data).toMatchObject({ valid: true, issuedHere: true, printJobId: done.jobId });
  }, 120_000);

  // The finishing task is delivered at least once: an upload that fails makes the queue run it again,
  // which merges and signs anew (another ECDSA signature); what is stored is signed, valid and recorded.
  it("sign the merged PDF again when its upload fails once and the queue retries the finish", async (context) => {
    if ((await sink("/faults")).status !== 200) return context.skip("needs the stack's JavaScript Storage emulator and its fault switch: skipped, not passed");
    // The merged output is the only .pdf the job uploads (its parts are .pack).
    expect((await sink("/faults", { method: "PUT", body: { storage: { mode: "unavailable", only: "uploads", match: ".pdf", times: 1 } } })).status).toBe(200);
    try {
      const done = await job("merged");
      expect(done.status).toBe("succeeded");
      expect((await sink("/faults")).json.storage).toBeNull(); // the fault acted
      const merged = await download(done.result.downloadUrl);
      expect(pdfsig(merged)).toContain("Signature is Valid.");
      expect((await verify(merged)).json.data).toMatchObject({ valid: true, issuedHere: true, printJobId: done.jobId });
    } finally {
      await sink("/faults", { method: "PUT", body: {} });
    }
  }, 120_000);
});

describe("the demo's targets", () => {
  it("still print unsigned", async () => {
    const res = await call(`${BASES.print.functionUrl}/tenant/acme-north/print`, { method: "POST", auth: { bearer: reader }, body: { objectInstanceId: "inspection-short" }, timeoutMs: 30_000 });
    expect(res.status).toBe(201);
    expect(res.json.data.sign).toBe(false);
    expect(pdfsig(await download(res.json.data.downloadUrl))).toContain("does not contain any signatures");
  });
});

// The stack's identity files are the launcher's: the CA a reader trusts is the one in .cache/signing.
it("the launcher's identity is in .cache/signing", () => {
  expect(readFileSync(join(SIGNING_DIR, SIGNING_FILES.ca), "utf8")).toContain("BEGIN CERTIFICATE");
});
