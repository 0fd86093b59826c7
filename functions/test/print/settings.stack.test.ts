// Print settings through the functions: a target's `print` (inherited down the hierarchy), the
// request's overrides, what the response says, and the stored PDF per settings.

import { createHash } from "node:crypto";
import { getAuth } from "firebase-admin/auth";
import { PDFDocument, PDFName } from "pdf-lib";
import { beforeAll, describe, expect, it } from "vitest";
import { firestore, freshUid } from "../api/fixtures";
import { URLS } from "../../stack/config";
import { stackAdminApp } from "../../stack/seedStack";
import { BASES, call, idTokenFor } from "../helpers";
import { popplerLines } from "./popplerText";

const url = (target: string, route: "print" | "send-pdf") => `${BASES.print.functionUrl}${target}/${route}`;
const INSTANCE = { title: "Settings", objectTypeName: "Test", sections: [{ title: "S", fields: [{ label: "When", type: "datetime", value: "2026-03-05T23:30:00Z" }, { label: "Done", type: "boolean", value: true }] }] };

/** A fresh organization with a tenant and a division, the demo reader granted on the tenant, one instance on the division and one on the tenant. */
async function hierarchy(print: { organization?: object; tenant?: object; division?: object } = {}) {
  const [org, tenant, division] = [freshUid("settings-org"), freshUid("settings-tenant"), "ops"];
  const db = firestore();
  await db.doc(`organizations/${org}`).set({ name: "Settings org", features: {}, ...(print.organization && { print: print.organization }) });
  await db.doc(`tenants/${tenant}`).set({ name: "Settings tenant", organizationId: org, features: {}, ...(print.tenant && { print: print.tenant }) });
  await db.doc(`tenants/${tenant}/divisions/${division}`).set({ name: "Ops", features: {}, ...(print.division && { print: print.division }) });
  await db.doc(`tenants/${tenant}/members/north-reader`).set({ permissions: ["READ"] });
  await db.doc(`tenants/${tenant}/objectInstances/doc`).set(INSTANCE);
  await db.doc(`tenants/${tenant}/divisions/${division}/objectInstances/doc`).set(INSTANCE);
  return { tenantPath: `/tenant/${tenant}`, divisionPath: `/tenant/${tenant}/division/${division}` };
}

describe("print settings", () => {
  let token: string;
  beforeAll(async () => {
    token = await idTokenFor("north-reader@acme.test");
  });
  const print = (target: string, body: object) => call(url(target, "print"), { method: "POST", auth: { bearer: token }, body: { objectInstanceId: "doc", ...body } });
  const pdfOf = async (res: { json: { data: { downloadUrl: string } } }) => new Uint8Array(await (await fetch(res.json.data.downloadUrl)).arrayBuffer());

  it("prints with the defaults when no target sets anything, and says so", async () => {
    const { tenantPath } = await hierarchy();
    const res = await print(tenantPath, {});
    expect(res.status).toBe(201);
    expect(res.json.data).toMatchObject({ locale: "en-GB", timeZone: "UTC", paperSize: "A4" });
    const pdf = await PDFDocument.load(await pdfOf(res));
    expect([pdf.getPage(0).getWidth(), pdf.getPage(0).getHeight()]).toEqual([595.28, 841.89]);
  });

  it("inherits each setting from the nearest target that sets it: organization, tenant, division", async () => {
    const { tenantPath, divisionPath } = await hierarchy({ organization: { locale: "de-DE", timeZone: "Europe/Berlin" }, tenant: { paperSize: "Letter" }, division: { timeZone: "Asia/Tokyo" } });
    const onTenant = await print(tenantPath, {});
    expect(onTenant.json.data).toMatchObject({ locale: "de-DE", timeZone: "Europe/Berlin", paperSize: "Letter" });
    const text = popplerLines(await pdfOf(onTenant)).join("\n");
    expect(text).toContain("6. März 2026 um 00:30 MEZ");
    expect(text).toContain("Seite 1 von 1");
    const onDivision = await print(divisionPath, {});
    expect(onDivision.json.data).toMatchObject({ locale: "de-DE", timeZone: "Asia/Tokyo", paperSize: "Letter" });
    const pdf = await pdfOf(onDivision);
    expect((await PDFDocument.load(pdf)).getPage(0).getWidth()).toBe(612);
    expect(popplerLines(pdf).join("\n")).toMatch(/6\. März 2026 um 08:30 (JST|GMT\+9)/); // German names Tokyo's zone by its offset
  });

  it("takes the request's overrides for this PDF only, each stored apart from the others", async () => {
    const { tenantPath } = await hierarchy({ tenant: { locale: "fr-FR" } });
    const japanese = await print(tenantPath, { locale: "ja-JP", timeZone: "Asia/Tokyo", paperSize: "Legal" });
    expect(japanese.status).toBe(201);
    expect(japanese.json.data).toMatchObject({ locale: "ja-JP", timeZone: "Asia/Tokyo", paperSize: "Legal", cached: false });
    const pdf = await pdfOf(japanese);
    expect((await PDFDocument.load(pdf)).getPage(0).getHeight()).toBe(1008);
    expect(popplerLines(pdf).join("\n")).toContain("2026年3月6日 8:30 JST");
    const french = await print(tenantPath, {});
    expect(french.json.data).toMatchObject({ locale: "fr-FR", cached: false });
    expect(french.json.data.storagePath).not.toBe(japanese.json.data.storagePath);
    // The same settings again: the stored PDF.
    expect((await print(tenantPath, { locale: "ja-JP", timeZone: "Asia/Tokyo", paperSize: "Legal" })).json.data).toMatchObject({ cached: true, storagePath: japanese.json.data.storagePath });
    expect((await print(tenantPath, {})).json.data).toMatchObject({ cached: true, storagePath: french.json.data.storagePath });
  });

  it("refuses unusable overrides with 400 naming the field, in print and send-pdf", async () => {
    const { tenantPath } = await hierarchy();
    for (const [body, field] of [
      [{ locale: "no such locale!" }, "locale"],
      [{ locale: 42 }, "locale"],
      [{ timeZone: "Mars/Olympus" }, "timeZone"],
      [{ paperSize: "A0" }, "paperSize"],
    ] as const) {
      const res = await print(tenantPath, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.message).toContain(field);
      const mail = await call(url(tenantPath, "send-pdf"), { method: "POST", auth: { bearer: token }, body: { objectInstanceId: "doc", to: "a@example.com", ...body } });
      expect(mail.status).toBe(400);
      expect(mail.json.message).toContain(field);
    }
  });

  it("prints tagged (PDF/UA-1) by default and PDF/A-2u on request or by the target's setting, each its own stored PDF", async () => {
    const { tenantPath, divisionPath } = await hierarchy({ division: { conformance: "PDF/A-2u" } });
    const plain = await print(tenantPath, {});
    expect(plain.json.data.conformance).toBe("PDF/UA-1");
    const archival = await print(tenantPath, { conformance: "PDF/A-2u" });
    expect(archival.json.data).toMatchObject({ conformance: "PDF/A-2u", cached: false });
    expect(archival.json.data.storagePath).not.toBe(plain.json.data.storagePath);
    const outputIntents = async (res: typeof plain) => (await PDFDocument.load(await pdfOf(res))).catalog.get(PDFName.of("OutputIntents"));
    expect(await outputIntents(plain)).toBeUndefined();
    expect(await outputIntents(archival)).toBeDefined();
    expect((await print(divisionPath, {})).json.data.conformance).toBe("PDF/A-2u");
    const refused = await print(tenantPath, { conformance: "PDF/A-1b" });
    expect(refused.status).toBe(400);
    expect(refused.json.message).toContain("conformance");
  });

  it("prints with the inherited or default value when a stored setting cannot be used (never a 500)", async () => {
    const { tenantPath } = await hierarchy({ organization: { locale: "de-DE" }, tenant: { locale: "xx-not-real-!", timeZone: 7, paperSize: "Tabloid" } });
    const res = await print(tenantPath, {});
    expect(res.status).toBe(201);
    expect(res.json.data).toMatchObject({ locale: "de-DE", timeZone: "UTC", paperSize: "A4" });
  });

  it("sends the PDF printed with the settings, says which, and writes the fixed lines of the email in its language", async () => {
    const { tenantPath } = await hierarchy({ tenant: { locale: "de-DE", paperSize: "Letter" } });
    const to = `${freshUid("settings")}@example.com`;
    const res = await call(url(tenantPath, "send-pdf"), { method: "POST", auth: { bearer: token }, body: { objectInstanceId: "doc", to, timeZone: "Europe/Berlin" } });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ locale: "de-DE", timeZone: "Europe/Berlin", paperSize: "Letter" });
    const messages = (await call(`${URLS.mailSink}/messages`)).json as { body: { subject: string; personalizations: { to: { email: string }[] }[]; content: { value: string }[] } }[];
    const mail = messages.find((m) => m.body.personalizations[0].to[0].email === to)!.body;
    expect(mail.subject).toBe("Settings (PDF)");
    expect(mail.content[0].value).toContain("Im Anhang finden Sie \u201eSettings\u201c als PDF.");
    expect(mail.content[0].value).toContain("Gesendet von north-reader@acme.test aus Settings org / Settings tenant mit");
  });

  it("counts the renders a user causes, not their requests: a spent quota is 429, a stored PDF still served", async () => {
    const { tenantPath } = await hierarchy();
    const uid = freshUid("render-quota");
    await getAuth(stackAdminApp()).createUser({ uid, email: `${uid}@quota.test`, password: "quota-password" });
    await firestore().doc(`tenants/${tenantPath.split("/")[2]}/members/${uid}`).set({ permissions: ["READ"] });
    const user = await idTokenFor(`${uid}@quota.test`, "quota-password");
    const printAs = (body: object) => call(url(tenantPath, "print"), { method: "POST", auth: { bearer: user }, body: { objectInstanceId: "doc", ...body } });
    expect((await printAs({})).json.data.cached).toBe(false);
    // Spend the user's hour (whatever the configured maximum): the counter as consumeQuotas names it.
    const counter = createHash("sha256").update(`render|${uid}`).digest("hex");
    await firestore().doc(`rateLimits/${counter}`).update({ count: 1e9 });
    const refused = await printAs({ paperSize: "Legal" });
    expect(refused.status).toBe(429);
    expect(refused.json.message).toMatch(/new PDFs per hour per user/);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await printAs({})).json.data.cached).toBe(true); // the stored one: no render, no count
  });
});
