import { getStorage } from "firebase-admin/storage";
import { PDFDocument, PDFName } from "pdf-lib";
import { beforeAll, describe, expect, it } from "vitest";
import { BUCKET, URLS } from "../../stack/config";
import { stackAdminApp } from "../../stack/seedStack";
import { firestore } from "../api/fixtures";
import { BASES, call, idTokenFor } from "../helpers";
import { pdfjsItems, pdfText } from "./pdfText";
import { logicalText } from "./popplerText";

const printUrl = (target: string) => `${BASES.print.functionUrl}${target}/print`;
const bucket = () => getStorage(stackAdminApp()).bucket(BUCKET);

async function download(url: string): Promise<{ status: number; bytes: Buffer; headers: Headers }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(20_000) });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

describe("POST /print/{target}/print", () => {
  let reader: string;
  beforeAll(async () => {
    reader = await idTokenFor("north-reader@acme.test");
  });
  const print = (target: string, objectInstanceId: unknown, token = reader) => call(printUrl(target), { method: "POST", auth: { bearer: token }, body: { objectInstanceId } });

  it("renders the instance, stores it under generated-pdfs/ and answers 201 with a working download URL", async () => {
    const instanceId = `print-${Date.now()}`;
    const source = (await firestore().doc("tenants/acme-north/objectInstances/inspection-short").get()).data()!;
    await firestore().doc(`tenants/acme-north/objectInstances/${instanceId}`).set(source);

    const res = await print("/tenant/acme-north", instanceId);
    expect(res.status).toBe(201);
    const data = res.json.data;
    expect(res.json).toEqual({ message: expect.any(String), data: expect.any(Object) });
    expect(data).toEqual({
      downloadUrl: expect.stringMatching(new RegExp(`^${URLS.storage}/v0/b/${BUCKET}/o/generated-pdfs%2F.*\\?alt=media&token=[0-9a-f-]{36}$`)),
      expiresAt: null,
      storagePath: expect.stringMatching(new RegExp(`^generated-pdfs/tenants/acme-north/${instanceId}/r\\d+-\\d+-[0-9a-f]{12}\\.pdf$`)),
      sizeBytes: expect.any(Number),
      pageCount: expect.any(Number),
      cached: false,
      locale: "en-GB",
      languageFromText: true,
      timeZone: "UTC",
      paperSize: "A4",
      conformance: "PDF/UA-1",
      sign: false,
      template: null,
    });

    const file = await download(data.downloadUrl);
    expect(file.status).toBe(200);
    expect(file.bytes.subarray(0, 5).toString()).toBe("%PDF-");
    expect(file.bytes.length).toBe(data.sizeBytes);
    const [stored] = await bucket().file(data.storagePath).download();
    expect(file.bytes.equals(stored)).toBe(true);
    const pdf = await PDFDocument.load(file.bytes);
    expect(pdf.getPageCount()).toBe(data.pageCount);
    expect(pdf.getTitle()).toBe(source.title);

    const [metadata] = await bucket().file(data.storagePath).getMetadata();
    expect(metadata.contentType).toBe("application/pdf");
    expect(metadata.contentDisposition).toMatch(/^attachment; filename="Boiler Inspection B-12\.pdf"; filename\*=UTF-8''/);
  });

  it("prints the demo's world-scripts instance through the deployed code (bundled fonts): every script reads back, nothing replaced", async () => {
    const res = await print("/tenant/acme-north", "world-scripts");
    expect(res.status).toBe(201);
    const file = await download(res.json.data.downloadUrl);
    const text = logicalText(new Uint8Array(file.bytes));
    expect(text).not.toContain("\uFFFD");
    for (const word of ["山田太郎", "张伟", "김민준", "فاطمة", "שרה", "प्रिया", "অমিত", "கார்த்திக்", "สมชาย", "ភ្នំពេញ", "👍🏽"]) expect(text).toContain(word);
  });

  it("renders again once the stored PDF is gone (the bucket's lifecycle rule deletes them after 30 days)", async () => {
    const first = await print("/tenant/acme-north", "inspection-short");
    expect(first.status).toBe(201);
    await bucket().file(first.json.data.storagePath).delete();
    const again = await print("/tenant/acme-north", "inspection-short");
    expect(again.json.data).toMatchObject({ cached: false, storagePath: first.json.data.storagePath });
    expect((await bucket().file(first.json.data.storagePath).exists())[0]).toBe(true);
  });

  it("reuses the stored PDF of the same version, and renders anew when the instance changes", async () => {
    const instanceId = `cache-${Date.now()}`;
    const ref = firestore().doc(`tenants/acme-north/objectInstances/${instanceId}`);
    await ref.set({ title: "Cache test", objectTypeName: "Test", sections: [{ title: "S", fields: [{ label: "A", type: "text", value: "one" }] }] });
    const first = await print("/tenant/acme-north", instanceId);
    const second = await print("/tenant/acme-north", instanceId);
    expect(second.status).toBe(201);
    expect(second.json.data).toMatchObject({ cached: true, storagePath: first.json.data.storagePath, sizeBytes: first.json.data.sizeBytes });
    await ref.update({ title: "Cache test, edited" });
    const third = await print("/tenant/acme-north", instanceId);
    expect(third.json.data.cached).toBe(false);
    expect(third.json.data.storagePath).not.toBe(first.json.data.storagePath);
    // The instance is read with the target and the grants (a path naming the organization needs no
    // lookup of it, whichever emulator worker answers); the instance's type's template is looked for
    // on each of the chain's two levels (two queries at once: one round trip of time); one Storage call
    // finds the stored PDF; the last Firestore call is the audit event of the PDF handed out. (The user's status is
    // cached 10 s from this file's first print, which a slow machine can outlast by now: auth=1 then.
    // test/http/pipeline.stack.test.ts pins that cache.)
    const fourth = await print("/organization/acme/tenant/acme-north", instanceId);
    expect(fourth.json.data).toMatchObject({ cached: true, storagePath: third.json.data.storagePath });
    expect(fourth.headers.get("x-backend-calls")).toMatch(/^firestore=4, auth=[01], storage=1$/);
  });

  it("renders long and non-Latin instances", async () => {
    const long = await print("/tenant/acme-north", "audit-long");
    expect(long.status).toBe(201);
    expect(long.json.data.pageCount).toBeGreaterThanOrEqual(10);
    const multilingual = await print("/tenant/acme-north", "multilingual");
    expect(multilingual.status).toBe(201);
  });

  it("with no locale set, takes a document's language and direction from its text: an Arabic one is laid out right to left; a locale asked for is kept", async () => {
    // acme-north and acme set no locale: dates and words in en-GB, the document's /Lang and direction from its text.
    const fromText = await print("/tenant/acme-north", "script-rtl");
    expect(fromText.status, fromText.text).toBe(201);
    expect(fromText.json.data).toMatchObject({ locale: "en-GB", languageFromText: true });
    const english = await call(printUrl("/tenant/acme-north"), { method: "POST", auth: { bearer: reader }, body: { objectInstanceId: "script-rtl", locale: "en-GB" } });
    expect(english.status, english.text).toBe(201);
    expect(english.json.data).toMatchObject({ locale: "en-GB", languageFromText: false });
    expect(english.json.data.storagePath).not.toBe(fromText.json.data.storagePath);
    const [arabic, asked] = await Promise.all([fromText, english].map(async (res) => (await bucket().file(res.json.data.storagePath).download())[0]));
    const lang = async (bytes: Buffer) => String((await PDFDocument.load(bytes, { updateMetadata: false })).catalog.get(PDFName.of("Lang")));
    expect(await lang(arabic)).toBe("(ar)");
    expect(await lang(asked)).toBe("(en-GB)");
    // Labels at the right margin and values to their left; with en-GB asked for, labels at the left margin.
    const label = async (bytes: Buffer) => (await pdfjsItems(bytes)).find((i) => i.str === "Object type")!;
    const width = (await PDFDocument.load(arabic)).getPage(0).getWidth();
    expect((await label(arabic)).right).toBeCloseTo(width - 50, 0);
    expect((await label(asked)).x).toBeCloseTo(50, 0);
  });

  it("prints a division's and a site's own instances", async () => {
    const ops = await print("/organization/acme/tenant/acme-north/division/ops", "ops-checklist", await idTokenFor("ops-reader@acme.test"));
    expect(ops.status).toBe(201);
    expect(ops.json.data.storagePath).toMatch(/^generated-pdfs\/tenants\/acme-north\/divisions\/ops\/ops-checklist\//);
    const harbor = await print("/site/harbor", "harbor-log", await idTokenFor("reader@harbor.test"));
    expect(harbor.status).toBe(201);
  });

  it.each([
    ["another tenant's instance", "/tenant/acme-north", "south-report"],
    ["a division's instance through its tenant", "/tenant/acme-north", "ops-checklist"],
    ["an instance that does not exist", "/tenant/acme-north", "no-such-instance"],
  ])("answers 404 for %s, revealing nothing of it", async (_name, target, id) => {
    const res = await print(target, id);
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ statusCode: 404, error: "Not Found", message: `Object instance '${id}' does not exist in this target.` });
    expect(res.text).not.toMatch(/CONFIDENTIAL|acme-south/);
  });

  it.each([["../audit-long"], ["a/b"], ["__name__"], [""], [42], [null], ["\ud800"]])("answers 400 for objectInstanceId %j", async (id) => {
    const res = await print("/tenant/acme-north", id);
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/objectInstanceId/);
  });

  it("prints Firestore references, GeoPoints, Bytes and Timestamps deliberately, and no client internals", async () => {
    const instanceId = `values-${Date.now()}`;
    const db = firestore();
    const { GeoPoint, Timestamp } = await import("firebase-admin/firestore");
    await db.doc(`tenants/acme-north/objectInstances/${instanceId}`).set({
      title: "Values",
      objectTypeName: "Test",
      sections: [
        {
          title: "S",
          fields: [
            { label: "Reference", type: "text", value: db.doc("tenants/acme-north/objectInstances/inspection-short") },
            { label: "Place", type: "text", value: new GeoPoint(52.52, 13.405) },
            { label: "Blob", type: "text", value: Buffer.from("secret-bytes") },
            { label: "When", type: "datetime", value: Timestamp.fromMillis(Date.UTC(2026, 4, 4, 13, 45)) },
            { label: "Nested", type: "text", value: { inner: [db.doc("sites/harbor")] } },
          ],
        },
      ],
    });
    const res = await print("/tenant/acme-north", instanceId);
    expect(res.status).toBe(201);
    const text = (await pdfText((await download(res.json.data.downloadUrl)).bytes)).replace(/\s+/g, " ");
    expect(text).toContain("tenants/acme-north/objectInstances/inspection-short");
    expect(text).toContain("52.52° N, 13.405° E");
    expect(text).toContain("(binary data, 12 bytes)");
    expect(text).toContain("4 May 2026 at 13:45 UTC");
    expect(text).toContain("sites/harbor");
    expect(text).not.toMatch(/secret-bytes|projectId|demo-print-admin|googleapis|_firestore|settings|version/i);
  });

  it("refuses a document past the renderer's limits with 422 naming the limit, stores nothing, and keeps serving", async () => {
    const instanceId = `huge-${Date.now()}`;
    const columns = Array.from({ length: 1_000 }, (_, i) => `C${i}`);
    // The review's 5 KB document: a table of 1,000 x 1,000 empty cells blocked the instance for seconds, 3,000 rows ran it out of memory.
    const rows = Array.from({ length: 3_000 }, () => ({ cells: [] as string[] }));
    rows[0].cells = columns.map(() => "");
    await firestore().doc(`tenants/acme-north/objectInstances/${instanceId}`).set({ title: "Huge", objectTypeName: "Grid", sections: [{ title: "S", fields: [{ label: "Grid", type: "table", value: { columns, rows } }] }] });
    const before = (await bucket().getFiles({ prefix: `generated-pdfs/tenants/acme-north/${instanceId}/` }))[0].length;
    for (let i = 0; i < 2; i++) {
      const res = await print("/tenant/acme-north", instanceId);
      expect(res.status).toBe(422);
      expect(res.json).toEqual({ statusCode: 422, error: "Unprocessable Entity", message: "The object instance is too large to print: it has 1,000 columns in one table; the limit is 100." });
    }
    expect((await bucket().getFiles({ prefix: `generated-pdfs/tenants/acme-north/${instanceId}/` }))[0].length).toBe(before);
    expect((await print("/tenant/acme-north", "inspection-short")).status).toBe(201);
  });

  it("prints a document at the renderer's limits (25,000 table cells of 39 characters: 1,000,000 characters)", async () => {
    const instanceId = `at-limits-${Date.now()}`;
    const columns = Array.from({ length: 25 }, (_, i) => `Column ${i}`);
    const rows = Array.from({ length: 1_000 }, () => ({ cells: columns.map(() => "abcdefghij abcdefghij abcdefghij abcdef") }));
    await firestore().doc(`tenants/acme-north/objectInstances/${instanceId}`).set({ title: "At the limits", objectTypeName: "Grid", sections: [{ title: "S", fields: [{ label: "Grid", type: "table", value: { columns, rows } }] }] });
    const res = await print("/tenant/acme-north", instanceId);
    expect(res.status).toBe(201);
    expect(res.json.data.pageCount).toBeGreaterThan(200);
  });

  it("refuses a table whose narrow columns wrap long cells a character to a line: 422 at the line limit, remembered for the version", async () => {
    // Within every input limit (25,000 cells, 975,000 characters), but 975,000 lines: refused at 450,000.
    const instanceId = `narrow-${Date.now()}`;
    const columns = Array.from({ length: 100 }, (_, i) => `C${i}`);
    const rows = Array.from({ length: 250 }, () => ({ cells: columns.map(() => "abcdefghij abcdefghij abcdefghij abcdef") }));
    await firestore().doc(`tenants/acme-north/objectInstances/${instanceId}`).set({ title: "Narrow", objectTypeName: "Grid", sections: [{ title: "S", fields: [{ label: "Grid", type: "table", value: { columns, rows } }] }] });
    const refused = await print("/tenant/acme-north", instanceId);
    expect(refused.json).toEqual({ statusCode: 422, error: "Unprocessable Entity", message: "The object instance is too large to print: it takes more than 450,000 lines of text; the limit is 450,000." });
    const again = await print("/tenant/acme-north", instanceId);
    expect(again.json).toEqual(refused.json);
    // Answered from memory: the instance and its type's templates read alone (the two levels of the chain), no render quota spent, nothing read from Storage (the first read the logo).
    expect(refused.headers.get("x-backend-calls")).toMatch(/^firestore=4, auth=[01], storage=\d+$/);
    expect(again.headers.get("x-backend-calls")).toMatch(/^firestore=3, auth=[01]$/);
    expect((await bucket().getFiles({ prefix: `generated-pdfs/tenants/acme-north/${instanceId}/` }))[0]).toEqual([]);
  });

  it("stores nothing readable without the token", async () => {
    const res = await print("/tenant/acme-north", "inspection-short");
    const withoutToken = res.json.data.downloadUrl.replace(/&token=.*$/, "");
    expect((await download(withoutToken)).status).toBe(403);
    expect((await download(withoutToken + "&token=not-the-token")).status).toBe(403);
  });

  it("needs one of READ, MANAGE_FORM, MANAGE_OBJECTS, ADMIN", async () => {
    for (const email of ["north-form@acme.test", "north-objects@acme.test", "north-admin@acme.test"]) {
      expect((await print("/tenant/acme-north", "inspection-short", await idTokenFor(email))).status).toBe(201);
    }
    for (const email of ["north-people@acme.test", "north-nobody@acme.test"]) {
      const res = await print("/tenant/acme-north", "inspection-short", await idTokenFor(email));
      expect(res.status).toBe(401);
      expect(res.json.message).toMatch(/READ, MANAGE_FORM, MANAGE_OBJECTS, ADMIN/);
    }
  });
});
