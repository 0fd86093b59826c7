// Signed PDFs (issue 36, PAdES baseline B-B): the signature field the renderer writes, the CMS
// (src/print/signing/cms.ts), the signers, the verifier and the local stack's test CA
// (stack/signingCa.ts), read back with poppler's pdfsig (trusting the CA through an NSS database made
// with certutil), qpdf and pkijs.
//
// No test depends on the calendar: every CA is made while the test runs. The ones that pdfsig reads
// are made at the real time, not Date's: pdfsig, another process, checks certificates against the
// real clock, and the "a year ahead" project moves Date 400 days on (a certificate from then is not
// yet valid now). The verifier takes its time from the signature, so its tests also run on an
// injected date years away.

import { spawnSync, execFileSync } from "node:child_process";
import { createHash, generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as asn1js from "asn1js";
import fc from "fast-check";
import * as pkijs from "pkijs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderInstancePdf, type PrintableInstance, type RenderOptions } from "../../src/print/render";
import { mergePdfs, type MergeDocument, type MergeOptions } from "../../src/print/render/merge";
import { OIDS, parseSignedData, signedData } from "../../src/print/signing/cms";
import { certificatesOfPem, kmsSigner, localSigner, SignerConfigurationError, type PdfSigner } from "../../src/print/signing/signer";
import { MalformedPdfSignature, pdfDateToIso, verifyPdfSignature } from "../../src/print/signing/verify";
import { ensureSigningIdentity, RENEW_BEFORE_DAYS, SIGNING_CA_NAME, SIGNING_FILES, type SigningIdentity } from "../../stack/signingCa";
import { catalogOf, pdfInfo, qpdfCheck, qpdfObjects, resolve, structText } from "./pdfChecks";

const DAY = 24 * 60 * 60 * 1000;
/** The real time, whatever Date says (vitest fakes Date alone; performance's clock is the process's). */
const realNow = (): Date => new Date(Math.floor(performance.timeOrigin + performance.now()));

const onePage: PrintableInstance = {
  title: "Pressure test PT-7",
  objectTypeName: "Certificate of test",
  sections: [
    { title: "Vessel", fields: [{ label: "Serial", type: "text", value: "V-2031-88" }, { label: "Test pressure (bar)", type: "number", value: 16.5 }] },
    { title: "Result", fields: [{ label: "Held for 10 minutes", type: "boolean", value: true }, { label: "Tested on", type: "date", value: "2026-11-20" }] },
  ],
};

const work = mkdtempSync(join(tmpdir(), "signing-test-"));
let now: Date;
let identity: SigningIdentity;
let signer: PdfSigner;
let chain: Uint8Array[];
/** A second, unrelated identity: another CA's signer. */
let other: SigningIdentity;
/** NSS databases: one that trusts the test CA, one that trusts nothing. */
let trusting: string;
let empty: string;
let signed: Uint8Array;

const options = (extra: Partial<RenderOptions> = {}): RenderOptions => ({ instanceId: "signed-1", targetName: "Acme North", generatedAt: now, conformance: "PDF/A-2u", ...extra });
const signedOptions = (by: PdfSigner, extra: Partial<RenderOptions> = {}): RenderOptions =>
  options({ signature: { signer: by, signedAt: now, reason: "Issued by the print service", name: "Acme print service" }, ...extra });

function nssDatabase(name: string, caPem?: string): string {
  const dir = join(work, name);
  execFileSync("mkdir", ["-p", dir]);
  execFileSync("certutil", ["-N", "-d", `sql:${dir}`, "--empty-password"]);
  if (caPem) {
    writeFileSync(join(work, `${name}.pem`), caPem);
    execFileSync("certutil", ["-A", "-d", `sql:${dir}`, "-n", SIGNING_CA_NAME, "-t", "C,C,C", "-a", "-i", join(work, `${name}.pem`)]);
  }
  return dir;
}

/** pdfsig's report of a PDF, with the certificates that `nss` trusts. */
function pdfsig(bytes: Uint8Array, nss: string): string {
  const file = join(work, `pdfsig-${process.hrtime.bigint()}.pdf`);
  writeFileSync(file, bytes);
  try {
    const run = spawnSync("pdfsig", ["-nssdir", `sql:${nss}`, file], { encoding: "utf8", timeout: 30_000 });
    return `${run.stdout}${run.stderr}`;
  } finally {
    unlinkSync(file);
  }
}

/** The CMS in a signed PDF's /Contents (the hex without its zero padding, as DER says where it ends). */
function cmsOf(bytes: Uint8Array): Uint8Array {
  const text = Buffer.from(bytes).toString("latin1");
  const [, start, end] = /\/ByteRange \[ 0 (\d+) (\d+) \d+ *\]/.exec(text)!.map(Number);
  const der = Buffer.from(text.slice(start + 1, end - 1), "hex");
  const length = der[1] & 0x80 ? der.readUIntBE(2, der[1] & 0x7f) + 2 + (der[1] & 0x7f) : der[1] + 2;
  return new Uint8Array(der.subarray(0, length));
}

/** `bytes` with the byte at `at` changed. */
function changed(bytes: Uint8Array, at: number): Uint8Array {
  const copy = new Uint8Array(bytes);
  copy[at] = copy[at] === 0x41 ? 0x42 : 0x41;
  return copy;
}

beforeAll(async () => {
  now = realNow();
  identity = ensureSigningIdentity(join(work, "ca"), now);
  other = ensureSigningIdentity(join(work, "other-ca"), now);
  signer = localSigner(identity.keyPem, identity.chainPem);
  chain = certificatesOfPem(identity.chainPem);
  trusting = nssDatabase("trusting", identity.caPem);
  empty = nssDatabase("empty");
  signed = (await renderInstancePdf(onePage, signedOptions(signer))).bytes;
}, 60_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("a signed PDF", () => {
  it("is one page that pdfsig calls valid, whole, and trusted once the test CA is", async () => {
    const { pageCount } = await renderInstancePdf(onePage, options());
    expect(pageCount).toBe(1);
    const report = pdfsig(signed, trusting);
    expect(report).toContain("Signature Field Name: Signature1");
    expect(report).toContain("Signer Certificate Common Name: print-admin local test signer");
    expect(report).toContain("Signing Hash Algorithm: SHA-256");
    expect(report).toContain("Signature Type: ETSI.CAdES.detached");
    expect(report).toContain("Total document signed");
    expect(report).toContain("Signature is Valid.");
    expect(report).toContain("Certificate is Trusted.");
    // Without the CA, the signature holds but its issuer is nobody pdfsig knows.
    const untrusted = pdfsig(signed, empty);
    expect(untrusted).toContain("Signature is Valid.");
    expect(untrusted).not.toContain("Certificate is Trusted.");
  });

  it("is what verifyPdfSignature calls valid, with its time and signer", async () => {
    const report = await verifyPdfSignature(signed, [chain]);
    expect(report).toEqual({
      signed: true,
      valid: true,
      coversWholeDocument: true,
      signedAt: new Date(Math.floor(now.getTime() / 1000) * 1000).toISOString(),
      signer: { subject: "CN=print-admin local test signer, O=print-admin (local stack)", issuer: "CN=print-admin local test CA, O=print-admin (local stack)", serialNumber: expect.stringMatching(/^[0-9A-F]{32}$/) },
    });
  });

  it("is invalid, for pdfsig and the verifier, once one signed byte changes", async () => {
    const text = Buffer.from(signed).toString("latin1");
    // A letter of the title in the XMP metadata (uncompressed), and the first page object's number.
    for (const at of [text.indexOf("Pressure test PT-7</rdf:li>"), text.indexOf(" 0 obj") - 1]) {
      const tampered = changed(signed, at);
      expect(pdfsig(tampered, trusting)).not.toContain("Signature is Valid.");
      expect(await verifyPdfSignature(tampered, [chain])).toMatchObject({ signed: true, valid: false, coversWholeDocument: true });
    }
  });

  it("is invalid when signed by a key of no trusted chain, and valid again once its chain is trusted (key rotation: the current chain and the previous ones)", async () => {
    const otherChain = certificatesOfPem(other.chainPem);
    const bytes = (await renderInstancePdf(onePage, signedOptions(localSigner(other.keyPem, other.chainPem)))).bytes;
    expect(pdfsig(bytes, trusting)).not.toContain("Certificate is Trusted.");
    const report = await verifyPdfSignature(bytes, [chain]);
    expect(report).toMatchObject({ signed: true, valid: false, coversWholeDocument: true });
    expect(report.signer?.serialNumber).toBe(new (await import("node:crypto")).X509Certificate(otherChain[0]).serialNumber.toUpperCase());
    expect((await verifyPdfSignature(bytes, [chain, otherChain])).valid).toBe(true);
    expect((await verifyPdfSignature(signed, [otherChain, chain])).valid).toBe(true);
    expect((await verifyPdfSignature(signed, [])).valid).toBe(false);
    // A chain that names the signer but not its real issuer does not hold.
    expect((await verifyPdfSignature(signed, [[chain[0], otherChain[1]]])).valid).toBe(false);
  });

  it("is unsigned without the option: signed: false, and pdfsig finds no signature", async () => {
    const bytes = (await renderInstancePdf(onePage, options())).bytes;
    expect(await verifyPdfSignature(bytes, [chain])).toEqual({ signed: false, valid: false, coversWholeDocument: false });
    expect(pdfsig(bytes, trusting)).toContain("does not contain any signatures");
  });

  it("stays PDF/A-2u and tagged (PDF/UA-1): the invisible widget's flags, rectangle and appearance, SigFlags, tab order, the Form element", () => {
    expect(qpdfCheck(signed)).toContain("No syntax or stream encoding errors found");
    const info = pdfInfo(signed);
    expect(info.Tagged).toBe("yes");
    expect(info.Form).toBe("AcroForm");
    const objects = qpdfObjects(signed);
    const { catalog } = catalogOf(objects);
    expect(catalog["/AcroForm"]["/SigFlags"]).toBe(3);
    expect(catalog["/AcroForm"]["/NeedAppearances"]).toBeUndefined();
    expect(catalog["/AcroForm"]["/Fields"]).toHaveLength(1);
    const widgetRef = catalog["/AcroForm"]["/Fields"][0];
    const widget = resolve(objects, widgetRef);
    const firstPageRef = resolve(objects, catalog["/Pages"])["/Kids"][0];
    expect(widget).toMatchObject({
      "/Type": "/Annot",
      "/Subtype": "/Widget",
      "/FT": "/Sig",
      "/T": "u:Signature1",
      "/TU": "u:Digital signature: Acme print service",
      "/Rect": [0, 0, 0, 0],
      "/F": 132,
      "/P": firstPageRef,
    });
    // PDF/A-2 6.3.2: Print set; Hidden (2), Invisible (1), NoView (32), ToggleNoView (256) clear.
    expect(widget["/F"] & 4).toBe(4);
    expect(widget["/F"] & (1 | 2 | 32 | 256)).toBe(0);
    const appearance = resolve(objects, widget["/AP"]["/N"]);
    expect(appearance).toMatchObject({ "/Type": "/XObject", "/Subtype": "/Form", "/BBox": [0, 0, 0, 0] });
    const page = resolve(objects, firstPageRef);
    expect(page["/Annots"]).toEqual([widgetRef]);
    expect(page["/Tabs"]).toBe("/S");
    // PDF/UA-1 7.18.4: the widget under a Form element, found from it and from its /StructParent.
    const root = resolve(objects, catalog["/StructTreeRoot"]);
    const nums = resolve(objects, root["/ParentTree"])["/Nums"] as unknown[];
    const key = widget["/StructParent"];
    expect(key).toBe(1); // after the one page's key
    expect(root["/ParentTreeNextKey"]).toBe(key + 1);
    const formRef = nums[nums.indexOf(key) + 1];
    const form = resolve(objects, formRef);
    expect(form["/S"]).toBe("/Form");
    expect(form["/K"]).toEqual({ "/Type": "/OBJR", "/Obj": widgetRef, "/Pg": firstPageRef });
    expect(resolve(objects, resolve(objects, root["/K"])["/K"].at(-1))).toEqual(form);
    expect(structText(signed)).toMatch(/\n\s*Form\n\s*Object \d+ 0\n/);
    // The PDF/A and PDF/UA claims are still made.
    const xmp = Buffer.from(signed).toString("latin1");
    expect(xmp).toContain("<pdfaid:part>2</pdfaid:part><pdfaid:conformance>U</pdfaid:conformance>");
    expect(xmp).toContain("<pdfuaid:part>1</pdfuaid:part>");
  });

  it("has its signature dictionary as a plain object (not in an object stream), a byte range of the whole file but /Contents, and a PAdES B-B CMS", () => {
    const text = Buffer.from(signed).toString("latin1");
    const dictionary = /\n(\d+) 0 obj\n<<\n\/Type \/Sig\n\/Filter \/Adobe\.PPKLite\n\/SubFilter \/ETSI\.CAdES\.detached\n\/M \(D:\d{14}Z\)\n\/Reason <FEFF[0-9A-F]+>\n\/Name <FEFF[0-9A-F]+>\n\/ByteRange \[ 0 (\d+) (\d+) (\d+) *\]\n\/Contents <([0-9A-F]+)>\n>>\nendobj\n/.exec(text);
    expect(dictionary).not.toBeNull();
    const [, , length1, holeEnd, length2, hex] = dictionary!;
    expect(text[Number(length1)]).toBe("<");
    expect(Number(holeEnd) - Number(length1)).toBe(hex.length + 2);
    expect(Number(holeEnd) + Number(length2)).toBe(signed.length);
    // Room for the chain and 2 KiB more; zeros after the CMS.
    expect(hex.length).toBe(2 * (chain.reduce((n, c) => n + c.length, 0) + 2048));
    const cms = cmsOf(signed);
    expect(hex.slice(2 * cms.length)).toMatch(/^0+$/);

    const signedData = parseSignedData(cms);
    expect(signedData.encapContentInfo.eContentType).toBe(OIDS.data);
    expect(signedData.encapContentInfo.eContent).toBeUndefined(); // detached
    expect(signedData.digestAlgorithms.map((a) => a.algorithmId)).toEqual([OIDS.sha256]);
    const embedded = (signedData.certificates ?? []).map((c) => Buffer.from((c as pkijs.Certificate).toSchema().toBER(false)));
    expect(embedded.map((c) => c.toString("hex")).sort()).toEqual(chain.map((c) => Buffer.from(c).toString("hex")).sort());
    expect(signedData.signerInfos).toHaveLength(1);
    const [info] = signedData.signerInfos;
    expect(info.digestAlgorithm.algorithmId).toBe(OIDS.sha256);
    expect(info.signatureAlgorithm.algorithmId).toBe(OIDS.ecdsaWithSha256);
    expect(info.unsignedAttrs).toBeUndefined();
    const types = info.signedAttrs!.attributes.map((a) => a.type);
    expect(types.sort()).toEqual([OIDS.contentType, OIDS.messageDigest, OIDS.signingCertificateV2].sort());
    expect(types).not.toContain(OIDS.signingTime);
    // message-digest: the SHA-256 of the two byte ranges.
    const ranges = [signed.subarray(0, Number(length1)), signed.subarray(Number(holeEnd))];
    const digest = createHash("sha256").update(ranges[0]).update(ranges[1]).digest("hex");
    const messageDigest = info.signedAttrs!.attributes.find((a) => a.type === OIDS.messageDigest)!.values[0] as asn1js.OctetString;
    expect(Buffer.from(messageDigest.valueBlock.valueHexView).toString("hex")).toBe(digest);
    // signing-certificate-v2: one ESSCertIDv2, the SHA-256 of the signer's certificate (no hashAlgorithm: SHA-256 is its default), its issuer and serial.
    const v2 = info.signedAttrs!.attributes.find((a) => a.type === OIDS.signingCertificateV2)!.values[0] as asn1js.Sequence;
    const [certs] = v2.valueBlock.value as asn1js.Sequence[];
    expect(certs.valueBlock.value).toHaveLength(1);
    const [certHash, issuerSerial] = (certs.valueBlock.value[0] as asn1js.Sequence).valueBlock.value as [asn1js.OctetString, asn1js.Sequence];
    expect(certHash).toBeInstanceOf(asn1js.OctetString);
    expect(Buffer.from(certHash.valueBlock.valueHexView).toString("hex")).toBe(createHash("sha256").update(chain[0]).digest("hex"));
    const signerCertificate = pkijs.Certificate.fromBER(chain[0]);
    const [generalNames, serial] = issuerSerial.valueBlock.value as [asn1js.Sequence, asn1js.Integer];
    expect(new pkijs.GeneralNames({ schema: generalNames }).names[0].value.isEqual(signerCertificate.issuer)).toBe(true);
    expect(serial.isEqual(signerCertificate.serialNumber)).toBe(true);
    // The signer: by issuer and serial number.
    const sid = info.sid as pkijs.IssuerAndSerialNumber;
    expect(sid.serialNumber.isEqual(signerCertificate.serialNumber)).toBe(true);
  });

  it("signs untagged output too (no structure: no /StructParent), and any page count: the field is on the first page", async () => {
    const long: PrintableInstance = { ...onePage, sections: [{ title: "Readings", fields: [{ label: "Readings", type: "table", value: { columns: ["#", "Value"], rows: Array.from({ length: 120 }, (_, i) => ({ cells: [i, `v${i}`] })) } }] }] };
    for (const extra of [{ tagged: false }, {}, { conformance: undefined }]) {
      const { bytes, pageCount } = await renderInstancePdf(long, signedOptions(signer, extra));
      expect(pageCount).toBeGreaterThan(1);
      expect(await verifyPdfSignature(bytes, [chain])).toMatchObject({ signed: true, valid: true, coversWholeDocument: true });
      expect(qpdfCheck(bytes)).toContain("No syntax or stream encoding errors found");
      const objects = qpdfObjects(bytes);
      const { catalog } = catalogOf(objects);
      const widget = resolve(objects, catalog["/AcroForm"]["/Fields"][0]);
      expect(widget["/P"]).toBe(resolve(objects, catalog["/Pages"])["/Kids"][0]);
      if (extra.tagged === false) expect(widget["/StructParent"]).toBeUndefined();
      else expect(widget["/StructParent"]).toBe(pageCount);
    }
  });

  it("names its field for assistive technology in the document's words (/TU)", async () => {
    for (const [locale, description] of [["de-DE", "Digitale Signatur"], ["ja-JP", "デジタル署名"]]) {
      const bytes = (await renderInstancePdf(onePage, signedOptions(signer, { locale }))).bytes;
      const objects = qpdfObjects(bytes);
      const widget = resolve(objects, catalogOf(objects).catalog["/AcroForm"]["/Fields"][0]);
      expect(widget["/TU"]).toBe(`u:${description}: Acme print service`);
    }
    const anonymous = (await renderInstancePdf(onePage, options({ signature: { signer, signedAt: now } }))).bytes;
    const objects = qpdfObjects(anonymous);
    expect(resolve(objects, catalogOf(objects).catalog["/AcroForm"]["/Fields"][0])["/TU"]).toBe("u:Digital signature");
    expect(Buffer.from(anonymous).toString("latin1")).not.toMatch(/\/Reason|\/Name </);
  });

  it("is everything but its CMS the same bytes each time (the ECDSA signature is not deterministic)", async () => {
    const again = (await renderInstancePdf(onePage, signedOptions(signer))).bytes;
    expect(again.length).toBe(signed.length);
    const text = Buffer.from(signed).toString("latin1");
    const [, start, end] = /\/ByteRange \[ 0 (\d+) (\d+)/.exec(text)!.map(Number);
    expect(Buffer.compare(again.subarray(0, start), signed.subarray(0, start))).toBe(0);
    expect(Buffer.compare(again.subarray(end), signed.subarray(end))).toBe(0);
  });

  it("is an error, not a broken file, when the CMS outgrows the room made for it, or when the signer fails", async () => {
    const huge: PdfSigner = { chain, sign: async () => new Uint8Array(64 * 1024).fill(1) };
    await expect(renderInstancePdf(onePage, signedOptions(huge))).rejects.toThrow(/larger than the \d+ bytes made room for/);
    // A chain too long for /Contents (PDF/A-2: strings of 32767 bytes at most).
    const longChain: PdfSigner = { chain: [...chain, new Uint8Array(31 * 1024)], sign: signer.sign };
    await expect(renderInstancePdf(onePage, signedOptions(longChain))).rejects.toThrow(/more than a PDF string may hold/);
    const failing: PdfSigner = { chain, sign: async () => Promise.reject(new Error("KMS: permission denied")) };
    await expect(renderInstancePdf(onePage, signedOptions(failing))).rejects.toThrow("KMS: permission denied");
    await expect(renderInstancePdf(onePage, options({ signature: { signer, signedAt: new Date(NaN) } }))).rejects.toThrow(TypeError);
    await expect(renderInstancePdf(onePage, options({ signature: { signer: { chain: [], sign: signer.sign }, signedAt: now } }))).rejects.toThrow(TypeError);
  });
});

describe("a signed merged PDF (a print job's merged output)", () => {
  const long: PrintableInstance = { ...onePage, title: "Readings", sections: [{ title: "Readings", fields: [{ label: "Readings", type: "table", value: { columns: ["#", "Value"], rows: Array.from({ length: 120 }, (_, i) => ({ cells: [i, `v${i}`] })) } }] }] };
  let documents: MergeDocument[];
  let chunks: Buffer[];
  let merged: Buffer;
  let pages: number[];
  const mergeOptions = (extra: Partial<MergeOptions> = {}): MergeOptions => ({
    title: "Acme North",
    subject: "Print job j1: 3 documents",
    keywords: ["j1"],
    date: now,
    conformance: "PDF/A-2u",
    signature: { signer, signedAt: now, reason: "Issued by the print service", name: "Acme print service" },
    ...extra,
  });
  const mergeAll = async (options: MergeOptions): Promise<Buffer[]> => {
    const out: Buffer[] = [];
    for await (const chunk of mergePdfs(documents, options)) out.push(chunk);
    return out;
  };
  beforeAll(async () => {
    const rendered = await Promise.all([onePage, long, onePage].map((instance, i) => renderInstancePdf(instance, options({ instanceId: `doc-${i}` }))));
    documents = rendered.map((r, i) => ({ objectInstanceId: `doc-${i}`, title: `Document ${i}`, bytes: r.bytes }));
    pages = rendered.map((r) => r.pageCount);
    chunks = await mergeAll(mergeOptions());
    merged = Buffer.concat(chunks);
  }, 60_000);

  it("is valid, whole and trusted for pdfsig and the verifier, signed as one; one changed byte of any document makes it invalid", async () => {
    const report = pdfsig(merged, trusting);
    expect(report).toContain("Signature is Valid.");
    expect(report).toContain("Total document signed");
    expect(report).toContain("Certificate is Trusted.");
    expect(report.match(/Signature #/g)).toHaveLength(1);
    expect(await verifyPdfSignature(merged, [chain])).toMatchObject({ signed: true, valid: true, coversWholeDocument: true, signedAt: new Date(Math.floor(now.getTime() / 1000) * 1000).toISOString() });
    // A byte of the first document and one of the last (streamed out before the signature was made),
    // and one of the file's tail after the signature (its cross-reference stream).
    const first = merged.toString("latin1").indexOf(" 0 obj", 20) - 1;
    const tail = merged.length - chunks.at(-1)!.length;
    for (const at of [first, tail - 3, merged.length - 40]) {
      expect(at).toBeGreaterThan(20);
      const tampered = changed(merged, at);
      expect(await verifyPdfSignature(tampered, [chain])).toMatchObject({ signed: true, valid: false });
      expect(pdfsig(tampered, trusting)).not.toContain("Signature is Valid.");
    }
  });

  it("streams as the unsigned merge does: only its last piece, the one with the signature dictionary, is held for the signature", () => {
    expect(chunks.length).toBe(documents.length + 2);
    const last = chunks.at(-1)!.toString("latin1");
    expect(last).toMatch(/\/Type \/Sig\n/);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.toString("latin1")).not.toContain("/Type /Sig");
  });

  it("stays PDF/A-2u and tagged: the widget on the first page under a Form element of the Document, keyed after every document's pages", () => {
    expect(qpdfCheck(merged)).toContain("No syntax or stream encoding errors found");
    const info = pdfInfo(merged);
    expect(info.Tagged).toBe("yes");
    expect(info.Form).toBe("AcroForm");
    expect(Number(info.Pages)).toBe(pages.reduce((a, b) => a + b, 0));
    const objects = qpdfObjects(merged);
    const { catalog } = catalogOf(objects);
    expect(catalog["/AcroForm"]["/SigFlags"]).toBe(3);
    const widgetRef = catalog["/AcroForm"]["/Fields"][0];
    const widget = resolve(objects, widgetRef);
    const firstDocument = resolve(objects, resolve(objects, catalog["/Pages"])["/Kids"][0]);
    const firstPageRef = firstDocument["/Kids"][0];
    expect(widget).toMatchObject({ "/FT": "/Sig", "/TU": "u:Digital signature: Acme print service", "/Rect": [0, 0, 0, 0], "/F": 132, "/P": firstPageRef });
    expect(resolve(objects, widget["/AP"]["/N"])).toMatchObject({ "/Subtype": "/Form", "/BBox": [0, 0, 0, 0] });
    const page = resolve(objects, firstPageRef);
    expect(page["/Annots"]).toEqual([widgetRef]);
    expect(page["/Tabs"]).toBe("/S");
    // Every other page: no annotation.
    for (const ref of firstDocument["/Kids"].slice(1)) expect(resolve(objects, ref)["/Annots"]).toBeUndefined();
    const root = resolve(objects, catalog["/StructTreeRoot"]);
    const key = widget["/StructParent"];
    expect(key).toBe(pages.reduce((a, b) => a + b, 0));
    expect(root["/ParentTreeNextKey"]).toBe(key + 1);
    const leaves = resolve(objects, root["/ParentTree"])["/Kids"] as string[];
    const leaf = resolve(objects, leaves.at(-1)!);
    expect(leaf["/Limits"]).toEqual([key, key]);
    const form = resolve(objects, leaf["/Nums"][1]);
    expect(form).toMatchObject({ "/S": "/Form", "/K": { "/Type": "/OBJR", "/Obj": widgetRef, "/Pg": firstPageRef } });
    const documentKids = resolve(objects, root["/K"])["/K"] as string[];
    expect(documentKids).toHaveLength(documents.length + 1);
    expect(resolve(objects, documentKids.at(-1)!)).toEqual(form);
    expect(merged.toString("latin1")).toContain("<pdfaid:part>2</pdfaid:part><pdfaid:conformance>U</pdfaid:conformance>");
  });

  it("is everything but its CMS the same bytes each time; unsigned, the merge is what it was", async () => {
    const again = Buffer.concat(await mergeAll(mergeOptions()));
    const [, start, end] = /\/ByteRange \[ 0 (\d+) (\d+)/.exec(merged.toString("latin1"))!.map(Number);
    expect(again.length).toBe(merged.length);
    expect(Buffer.compare(again.subarray(0, start), merged.subarray(0, start))).toBe(0);
    expect(Buffer.compare(again.subarray(end), merged.subarray(end))).toBe(0);
    const unsigned = Buffer.concat(await mergeAll(mergeOptions({ signature: undefined })));
    expect(await verifyPdfSignature(unsigned, [chain])).toEqual({ signed: false, valid: false, coversWholeDocument: false });
    expect(unsigned.toString("latin1")).not.toContain("/AcroForm");
  });

  it("refuses documents that are signed themselves (their signatures would not survive), and fails with the signer", async () => {
    await expect(mergeAll(mergeOptions({ signature: undefined }))).resolves.toBeDefined();
    const signedDocument = { objectInstanceId: "signed", title: "Signed", bytes: signed };
    const all = async (options: MergeOptions) => {
      for await (const chunk of mergePdfs([documents[0], signedDocument], options)) void chunk;
    };
    await expect(all(mergeOptions())).rejects.toThrow(/document signed: the catalog's \/AcroForm cannot be merged/);
    const failing: PdfSigner = { chain, sign: async () => Promise.reject(new Error("KMS: permission denied")) };
    await expect(mergeAll(mergeOptions({ signature: { signer: failing, signedAt: now } }))).rejects.toThrow("KMS: permission denied");
  });
});

describe("verifyPdfSignature on an injected date", () => {
  it("checks certificates at the signature's time, not the calendar's: a PDF signed in 2031 by a CA of 2031 is valid, one signed after its certificate's end is not", async () => {
    const then = new Date("2031-03-04T05:06:07Z");
    const future = ensureSigningIdentity(join(work, "ca-2031"), then);
    const futureSigner = localSigner(future.keyPem, future.chainPem);
    const futureChain = certificatesOfPem(future.chainPem);
    const at = async (signedAt: Date) => (await renderInstancePdf(onePage, options({ generatedAt: signedAt, signature: { signer: futureSigner, signedAt } }))).bytes;
    expect(await verifyPdfSignature(await at(then), [futureChain])).toMatchObject({ valid: true, signedAt: "2031-03-04T05:06:07.000Z" });
    expect((await verifyPdfSignature(await at(new Date(then.getTime() + 400 * DAY)), [futureChain])).valid).toBe(false);
    expect((await verifyPdfSignature(await at(new Date(then.getTime() - 2 * DAY)), [futureChain])).valid).toBe(false);
  });

  it("reads PDF dates with and without their parts and offsets", () => {
    expect(pdfDateToIso("D:20261126170458Z")).toBe("2026-11-26T17:04:58.000Z");
    expect(pdfDateToIso("D:20261126170458+01'00'")).toBe("2026-11-26T16:04:58.000Z");
    expect(pdfDateToIso("D:20261126170458-05'30")).toBe("2026-11-26T22:34:58.000Z");
    expect(pdfDateToIso("D:2026")).toBe("2026-01-01T00:00:00.000Z");
    expect(pdfDateToIso("D:20261399000000Z")).toBeUndefined();
    expect(pdfDateToIso("yesterday")).toBeUndefined();
  });
});

describe("verifyPdfSignature on malformed input", () => {
  /**
   * "answered", or the message of the MalformedPdfSignature it threw (anything else fails). A parse
   * that ran away on such input would meet the test's timeout (its cost is the bench's, not a test's).
   */
  const outcome = async (bytes: Uint8Array): Promise<string> => {
    try {
      await verifyPdfSignature(bytes, [chain]);
      return "answered";
    } catch (error) {
      expect(error).toBeInstanceOf(MalformedPdfSignature);
      return (error as Error).message;
    }
  };
  /** A small file with a signature dictionary whose /Contents is `contents`, its byte range exact. */
  const withContents = (contents: string): Uint8Array => {
    const file = (range: string) => `%PDF-1.7\n1 0 obj\n<< /Type /Sig /ByteRange [${range}] /Contents ${contents} >>\nendobj\n%%EOF\n`;
    const blank = file(" ".repeat(48));
    const holeStart = blank.indexOf("/Contents ") + 10;
    const holeEnd = holeStart + contents.length;
    return new Uint8Array(Buffer.from(file(` 0 ${holeStart} ${holeEnd} ${blank.length - holeEnd}`.padEnd(48)), "latin1"));
  };
  let text: string;
  let holeStart: number;
  let holeEnd: number;
  beforeAll(() => {
    text = Buffer.from(signed).toString("latin1");
    [holeStart, holeEnd] = /\/ByteRange \[ 0 (\d+) (\d+)/.exec(text)!.slice(1).map(Number);
  });
  /** The signed file with its /ByteRange's numbers replaced (the same width). */
  const withRange = (range: string): Uint8Array => {
    const current = /\/ByteRange \[[^\]]*\]/.exec(text)![0];
    return new Uint8Array(Buffer.from(text.replace(current, `/ByteRange [${range}]`.padEnd(current.length)), "latin1"));
  };

  it("answers or throws MalformedPdfSignature, quickly: random bytes, truncated files, a byte range out of bounds, a huge /Contents, a hole that is not /Contents", async () => {
    expect(await outcome(new Uint8Array(Buffer.from("not a pdf at all")))).toMatch(/not a PDF/);
    expect(await outcome(new Uint8Array(0))).toMatch(/not a PDF/);
    expect(await outcome(new Uint8Array(Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(1 << 20, 0x5b)])))).toBe("answered");
    for (const cut of [signed.length - 1, holeEnd + 10, Math.floor((holeStart + holeEnd) / 2), holeStart + 1, holeStart - 1]) {
      expect(await outcome(signed.subarray(0, cut)), `cut at ${cut}`).toMatch(/out of the file/);
    }
    expect(await outcome(withRange(" 0 10 20 999999999999"))).toMatch(/out of the file/);
    expect(await outcome(withRange(" 0 999999999999999 20 30"))).toMatch(/out of the file/);
    expect(await outcome(withRange(" 0 a b c"))).toMatch(/not four numbers/);
    expect(await outcome(withRange(` 0 ${holeStart - 20} ${holeEnd} ${signed.length - holeEnd}`))).toMatch(/not a hex string/);
    expect(await outcome(withContents(`<${"0".repeat(600 * 1024)}>`))).toMatch(/larger than/);
    expect(await outcome(withContents("<ZZ>"))).toMatch(/not hex/);
    expect(await outcome(withContents("<>"))).toMatch(/no CMS/);
    expect(await outcome(withContents("<3003020100>"))).toMatch(/CMS cannot be read/);
    expect(await outcome(withContents("<30FF>"))).toMatch(/length cannot be read/);
    expect(await outcome(withContents("<3084FFFFFFFF00>"))).toMatch(/cut short/);
    // A hole at the file's very start (the header may come later).
    const head = "<>%PDF-1.7\n/ByteRange [0 0 2 ";
    const tail = "]\n";
    const rest = `${head}0000${tail}`.length - 2;
    expect(await outcome(new Uint8Array(Buffer.from(`${head}${String(rest).padStart(4, "0")}${tail}`, "latin1")))).toMatch(/not the signature's \/Contents/);
    // The hole of another key than /Contents.
    expect(await outcome(new Uint8Array(Buffer.from(Buffer.from(withContents("<3003020100>")).toString("latin1").replace("/Contents", "/Contentx"), "latin1")))).toMatch(/not the signature's \/Contents/);
    // A /Contents of hex that is no CMS.
    const garbage = new Uint8Array(signed);
    Buffer.from(garbage.buffer).write("30820102DEADBEEF", holeStart + 1, "latin1");
    expect(await outcome(garbage)).toMatch(/CMS cannot be read/);
  });

  it("says a file with bytes added after its signature is validly signed but not as a whole", async () => {
    const appended = new Uint8Array(Buffer.concat([signed, Buffer.from("\n1 0 obj\n<< /Type /Catalog >>\nendobj\n%%EOF\n", "latin1")]));
    expect(await verifyPdfSignature(appended, [chain])).toMatchObject({ signed: true, valid: true, coversWholeDocument: false });
  });

  it("never throws anything but MalformedPdfSignature on a signed file with random bytes changed or cut, and is valid only when no signed byte changed", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.nat({ max: signed.length - 1 }), fc.nat({ max: 255 })), { maxLength: 8 }), fc.option(fc.nat({ max: signed.length })), async (changes, cut) => {
        const bytes = new Uint8Array(signed);
        for (const [at, value] of changes) bytes[at] = value;
        const report = await verifyPdfSignature(cut === null ? bytes : bytes.subarray(0, cut), [chain]).catch((error: unknown) => {
          if (!(error instanceof MalformedPdfSignature)) throw error;
          return undefined;
        });
        if (report?.valid) expect(changes.every(([at, value]) => signed[at] === value || (at > holeStart && at < holeEnd - 1))).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});

describe("the signers", () => {
  it("localSigner: refuses a key that is not the certificate's, one that is not P-256, and a chain without certificates", () => {
    expect(() => localSigner(other.keyPem, identity.chainPem)).toThrow(SignerConfigurationError);
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({ type: "pkcs8", format: "pem" }) as string;
    expect(() => localSigner(rsa, identity.chainPem)).toThrow(/not an ECDSA P-256 key/);
    expect(() => localSigner(identity.keyPem, "no certificates")).toThrow(SignerConfigurationError);
    expect(() => localSigner("not a key", identity.chainPem)).toThrow(SignerConfigurationError);
    expect(() => certificatesOfPem("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")).toThrow(/cannot be read/);
  });

  it("signedData: a CMS that the signer's key verifies, for any signer of the interface", async () => {
    const digest = createHash("sha256").update("a document").digest();
    const cms = await signedData(digest, signer);
    const [info] = parseSignedData(cms).signerInfos;
    const { verify, X509Certificate } = await import("node:crypto");
    expect(verify("sha256", new Uint8Array(info.signedAttrs!.encodedValue), { key: new X509Certificate(chain[0]).publicKey, dsaEncoding: "der" }, info.signature.valueBlock.valueHexView)).toBe(true);
    await expect(signedData(new Uint8Array(20), signer)).rejects.toThrow(RangeError);
  });

  it("kmsSigner: the KMS client's module loads; the signer is made without a call to KMS, and refuses a name that is not a key version's or a chain whose key is not P-256", async () => {
    const kms = await import("@google-cloud/kms");
    expect(typeof kms.KeyManagementServiceClient).toBe("function");
    const name = "projects/p/locations/europe-west1/keyRings/print/cryptoKeys/pdf-signing/cryptoKeyVersions/1";
    const made = kmsSigner(name, identity.chainPem);
    expect(made.chain).toEqual(chain);
    expect(() => kmsSigner("projects/p/keyRings/print", identity.chainPem)).toThrow(SignerConfigurationError);
    expect(() => kmsSigner(name, "")).toThrow(SignerConfigurationError);
  });
});

describe("the local stack's test CA (ensureSigningIdentity)", () => {
  it("keeps its files while they last, makes the signing certificate again under the same CA near its end, and the CA near its own, or when a file is missing", async () => {
    const { X509Certificate } = await import("node:crypto");
    const dir = join(work, "renewal");
    const first = ensureSigningIdentity(dir, now);
    const leaf = (id: SigningIdentity) => new X509Certificate(certificatesOfPem(id.chainPem)[0]);
    expect(new X509Certificate(first.caPem).subject).toContain(`CN=${SIGNING_CA_NAME}`);
    expect(leaf(first).checkIssued(new X509Certificate(first.caPem))).toBe(true);
    expect(new Date(leaf(first).validFrom).getTime()).toBeLessThanOrEqual(now.getTime() - DAY + 1000);
    expect(leaf(first).keyUsage).toEqual(expect.arrayContaining(["1.3.6.1.5.5.7.3.4", "1.3.6.1.5.5.7.3.36"]));
    expect(ensureSigningIdentity(dir, new Date(now.getTime() + 200 * DAY))).toEqual(first);
    // Within RENEW_BEFORE_DAYS of the signing certificate's end: a new one, from the same CA.
    const renewed = ensureSigningIdentity(dir, new Date(now.getTime() + (365 - RENEW_BEFORE_DAYS) * DAY));
    expect(renewed.caPem).toBe(first.caPem);
    expect(renewed.keyPem).not.toBe(first.keyPem);
    expect(leaf(renewed).checkIssued(new X509Certificate(first.caPem))).toBe(true);
    // Near the CA's end, both; before the certificates' start (a clock set back), both too.
    const late = ensureSigningIdentity(dir, new Date(now.getTime() + (5 * 365 - 10) * DAY));
    expect(late.caPem).not.toBe(first.caPem);
    expect(ensureSigningIdentity(dir, now).caPem).not.toBe(late.caPem);
    // A missing file.
    const current = ensureSigningIdentity(dir, now);
    unlinkSync(join(dir, SIGNING_FILES.key));
    const remade = ensureSigningIdentity(dir, now);
    expect(remade.keyPem).not.toBe(current.keyPem);
    expect(remade.caPem).toBe(current.caPem);
    expect(readFileSync(join(dir, SIGNING_FILES.chain), "utf8")).toBe(remade.chainPem);
    expect(new X509Certificate(readFileSync(join(dir, SIGNING_FILES.caDer))).raw.equals(new X509Certificate(remade.caPem).raw)).toBe(true);
    // Whatever it made signs.
    expect(localSigner(remade.keyPem, remade.chainPem).chain).toHaveLength(2);
  });
});
