// Print templates in the print function (issue 35): found by the instance's type or named, part of the
// stored PDF's name (an edit prints anew), in print, send-pdf and print jobs alike, and the preview
// route that renders an unsaved template and stores nothing. A tenant of this file's own, so that its
// templates never reach the demo's prints; read back with pdftotext.

import { getAuth } from "firebase-admin/auth";
import { getStorage } from "firebase-admin/storage";
import { beforeAll, describe, expect, it } from "vitest";
import { HOUR_MS } from "../../src/config";
import { BUCKET, URLS } from "../../stack/config";
import { stackAdminApp } from "../../stack/seedStack";
import { apiUrl, firestore, freshUid } from "../api/fixtures";
import { BASES, call, idTokenFor } from "../helpers";
import { layoutLines } from "./popplerText";

const TENANT = freshUid("tpl-print");
const TARGET = `/tenant/${TENANT}`;
const PASSWORD = "template-print-password";
const TYPE = "Template Print Inspection";
const INSTANCE = {
  title: "Pump P-7",
  objectTypeName: TYPE,
  sections: [
    { title: "Details", fields: [{ label: "Tag", type: "text", value: "P-7" }, { label: "Cost code", type: "text", value: "CC-1" }, { label: "Status", type: "choice", value: "Draft" }] },
    { title: "Internal", fields: [{ label: "Billing", type: "text", value: "Invoice 12" }] },
  ],
};
const TEMPLATE = {
  name: "Customer copy",
  objectTypeNames: [TYPE],
  header: { left: "Ref {field:Tag}", right: "{target}", firstPage: true },
  footer: { right: "Page {page} of {pages}" },
  sections: [{ title: "Details", fields: [{ label: "Tag" }, { label: "Status" }] }],
  others: "hide",
  watermark: { text: "DRAFT", when: { field: "Status", equals: "Draft" } },
};

const printUrl = (path: string) => `${BASES.print.functionUrl}${TARGET}${path}`;
const bucket = () => getStorage(stackAdminApp()).bucket(BUCKET);
const text = async (url: string) => layoutLines(Buffer.from(await (await fetch(url, { signal: AbortSignal.timeout(20_000) })).arrayBuffer())).join("\n");

describe("print templates in print, send-pdf, print jobs and the preview", () => {
  let admin: string;
  let reader: string;
  let stranger: string;
  beforeAll(async () => {
    const db = firestore();
    await db.doc(`tenants/${TENANT}`).set({ name: "Template tenant", organizationId: null, features: {}, mail: { allowedRecipientDomains: ["example.com"] } });
    await db.doc(`tenants/${TENANT}/objectInstances/pump`).set(INSTANCE);
    const user = async (role: string, permissions: string[]) => {
      const uid = `${TENANT}-${role}`;
      await getAuth(stackAdminApp()).createUser({ uid, email: `${uid}@templates.test`, password: PASSWORD });
      await db.doc(`tenants/${TENANT}/members/${uid}`).set({ permissions });
      return idTokenFor(`${uid}@templates.test`, PASSWORD);
    };
    [admin, reader] = await Promise.all([user("admin", ["ADMIN"]), user("reader", ["READ"])]);
    stranger = await idTokenFor("south-admin@acme.test");
  });
  const print = (body: object, token = reader) => call(printUrl("/print"), { method: "POST", auth: { bearer: token }, body: { objectInstanceId: "pump", ...body } });
  const save = (id: string, template: object) => call(apiUrl(`${TARGET}/print-templates/${id}`), { method: "PUT", auth: { bearer: admin }, body: template });
  const preview = (body: object, token = reader) => fetch(printUrl("/preview"), { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ objectInstanceId: "pump", ...body }), signal: AbortSignal.timeout(20_000) });

  it("prints the default layout while no template lists the type, then the type's template once one does, and anew when it is edited", async () => {
    const plain = await print({});
    expect(plain.status, plain.text).toBe(201);
    expect(plain.json.data.template).toBeNull();
    expect(plain.json.data.storagePath).not.toMatch(/-t[0-9a-f]{10}v\d+\.pdf$/);
    expect(await text(plain.json.data.downloadUrl)).toContain("Invoice 12");

    expect((await save("customer", TEMPLATE)).status).toBe(200);
    const templated = await print({});
    expect(templated.status).toBe(201);
    expect(templated.json.data).toMatchObject({ cached: false, template: { templateId: "customer", version: 1, source: `tenants/${TENANT}` } });
    expect(templated.json.data.storagePath).toMatch(/-t[0-9a-f]{10}v1\.pdf$/);
    const page = await text(templated.json.data.downloadUrl);
    expect(page).toMatch(/Ref P-7\s+Template tenant/);
    expect(page).toContain("Page 1 of 1");
    expect(page).toContain("DRAFT");
    for (const hidden of ["Invoice 12", "Cost code", "Internal"]) expect(page).not.toContain(hidden);
    // The same template again: the stored PDF.
    expect((await print({})).json.data).toMatchObject({ cached: true, storagePath: templated.json.data.storagePath });

    expect((await save("customer", { ...TEMPLATE, watermark: undefined })).status).toBe(200);
    const edited = await print({});
    expect(edited.json.data).toMatchObject({ cached: false, template: { templateId: "customer", version: 2 } });
    expect(edited.json.data.storagePath).toMatch(/-t[0-9a-f]{10}v2\.pdf$/);
    expect(await text(edited.json.data.downloadUrl)).not.toContain("DRAFT");
  });

  it("prints with a template named in the body; one that is not on the target's chain is 404, whether it exists elsewhere or not, and a malformed id is 400", async () => {
    expect((await save("letter", { name: "Letter", objectTypeNames: [], footer: { left: "Letter of {title}" } })).status).toBe(200);
    const named = await print({ templateId: "letter" });
    expect(named.json.data.template).toMatchObject({ templateId: "letter", version: 1 });
    expect(await text(named.json.data.downloadUrl)).toContain("Letter of Pump P-7");

    // acme-north's demo template, named from this tenant: not on its chain.
    for (const templateId of ["safety-inspection-customer", "nowhere"]) {
      const res = await print({ templateId });
      expect([res.status, res.json.message]).toEqual([404, `Print template '${templateId}' is not on this target's chain.`]);
    }
    expect((await print({ templateId: "a/b" })).status).toBe(400);
  });

  it("takes templateId in send-pdf (the answer names it; one not on the chain sends nothing)", async () => {
    const messages = async () => ((await call(`${URLS.mailSink}/messages`)).json as unknown[]).length;
    const before = await messages();
    const missing = await call(printUrl("/send-pdf"), { method: "POST", auth: { bearer: reader }, body: { objectInstanceId: "pump", to: "a@example.com", templateId: "nowhere" } });
    expect(missing.status).toBe(404);
    expect(await messages()).toBe(before);
    const sent = await call(printUrl("/send-pdf"), { method: "POST", auth: { bearer: reader }, body: { objectInstanceId: "pump", to: "a@example.com", templateId: "letter" } });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.json.data.template).toMatchObject({ templateId: "letter" });
  });

  it("prints a job's documents with the template it names (checked when the job is created: 404 when not on the chain)", async () => {
    const jobs = printUrl("/print-jobs");
    expect((await call(jobs, { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: ["pump"], templateId: "nowhere" } })).status).toBe(404);
    const started = await call(jobs, { method: "POST", auth: { bearer: reader }, body: { objectInstanceIds: ["pump"], output: "merged", templateId: "letter" } });
    expect(started.status, started.text).toBe(202);
    const deadline = Date.now() + 90_000;
    let job;
    do {
      await new Promise((resolve) => setTimeout(resolve, 300));
      job = (await call(`${jobs}/${started.json.data.jobId}`, { auth: { bearer: reader } })).json.data;
    } while (job.finishedAt === null && Date.now() < deadline);
    expect(job.status).toBe("succeeded");
    expect(await text(job.result.downloadUrl)).toContain("Letter of Pump P-7");
  });

  it("previews an unsaved template: the PDF itself, its warnings in a header, nothing stored", async () => {
    const [before] = await bucket().getFiles({ prefix: `generated-pdfs/tenants/${TENANT}/` });
    const hours = new Set([Math.floor(Date.now() / HOUR_MS)]); // the hours of the clock the previews ran in
    const res = await preview({ template: { ...TEMPLATE, header: { left: "Preview of {field:Tag}{field:Nope}", firstPage: true }, sections: [{ title: "Details" }, { title: "Gone" }] } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const warnings = JSON.parse(decodeURIComponent(res.headers.get("print-warnings")!));
    expect(warnings).toEqual(["section 'Gone' is not in the instance", expect.stringMatching(/^\{field:Nope\} has no value here/)]);
    const lines = layoutLines(Buffer.from(await res.arrayBuffer())).join("\n");
    expect(lines).toContain("Preview of P-7");
    expect(lines).toContain("Cost code");
    const [after] = await bucket().getFiles({ prefix: `generated-pdfs/tenants/${TENANT}/` });
    expect(after.map((f) => f.name).sort()).toEqual(before.map((f) => f.name).sort());

    // On the trail as a PDF that left the service, once per user, instance and hour: a second preview replaces the event.
    const previewed = async () => (await call(apiUrl(`${TARGET}/audit-events?action=pdf.previewed&subject=pump`), { auth: { bearer: admin } })).json.data as { actor: { uid: string }; details: { template: string } }[];
    const first = await previewed();
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ actor: { uid: `${TENANT}-reader` }, details: { template: "unsaved", pageCount: 1 } });
    expect((await preview({ templateId: "letter" })).status).toBe(200);
    hours.add(Math.floor(Date.now() / HOUR_MS));
    const second = await previewed();
    // Replaced (two only when the hour turned between the two previews).
    if (hours.size === 1) expect(second).toHaveLength(1);
    else expect(second.length).toBeLessThanOrEqual(2);
    expect(second[0].details.template).toBe("letter");
  });

  it("previews a saved template by id, or the type's; refuses a bad template with its paths, and both template and templateId", async () => {
    const byId = await preview({ templateId: "letter" });
    expect(byId.status).toBe(200);
    expect(layoutLines(Buffer.from(await byId.arrayBuffer())).join("\n")).toContain("Letter of Pump P-7");
    expect((await preview({})).status).toBe(200);

    const bad = await call(printUrl("/preview"), { method: "POST", auth: { bearer: reader }, body: { objectInstanceId: "pump", template: { ...TEMPLATE, sections: [{ title: "Details", fields: [{ label: "Tag", width: "third" }] }], footer: { right: "{pagecount}" } } } });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/'template\.sections\.0\.fields\.0\.width': Invalid option/);
    expect(bad.json.message).toMatch(/'template\.footer\.right': has an unknown placeholder \{pagecount\}/);
    const both = await call(printUrl("/preview"), { method: "POST", auth: { bearer: reader }, body: { objectInstanceId: "pump", template: TEMPLATE, templateId: "letter" } });
    expect([both.status, both.json.message]).toEqual([400, "Invalid body: 'templateId': give template or templateId, not both."]);
  });

  it("lets no other tenant preview, print or read this target's templates", async () => {
    const asStranger = await preview({ templateId: "letter" }, stranger);
    expect(asStranger.status).toBe(401);
    expect(await asStranger.json()).toMatchObject({ statusCode: 401, message: expect.stringMatching(/needs one of the permissions/) });
    expect((await print({ templateId: "letter" }, stranger)).status).toBe(401);
    expect((await call(apiUrl(`${TARGET}/print-templates/letter`), { auth: { bearer: stranger } })).status).toBe(401);
    // Through their own target, the id is not on their chain.
    const own = await call(`${BASES.print.functionUrl}/tenant/acme-south/preview`, { method: "POST", auth: { bearer: stranger }, body: { objectInstanceId: "south-report", templateId: "letter" } });
    expect([own.status, own.json.message]).toEqual([404, "Print template 'letter' is not on this target's chain."]);
  });
});
