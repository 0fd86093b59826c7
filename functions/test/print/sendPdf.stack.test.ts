import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { URLS } from "../../stack/config";
import { firestore, freshUid } from "../api/fixtures";
import { BASES, call, idTokenFor } from "../helpers";
import { pdfText } from "./pdfText";

const sendUrl = (target: string) => `${BASES.print.functionUrl}${target}/send-pdf`;
const sink = (path: string, options: Parameters<typeof call>[1] = {}) => call(`${URLS.mailSink}${path}`, options);
const captured = async () => (await sink("/messages")).json as { body: Record<string, any> }[];  

describe("POST /print/{target}/send-pdf", () => {
  let reader: string;
  beforeAll(async () => {
    reader = await idTokenFor("north-reader@acme.test");
  });
  beforeEach(async () => {
    await sink("/messages", { method: "DELETE" });
  });
  afterEach(async () => {
    await sink("/behaviour", { method: "PUT", body: {} });
  });
  const send = (body: unknown, target = "/tenant/acme-north", token = reader) => call(sendUrl(target), { method: "POST", auth: { bearer: token }, body });

  it("emails the PDF as an attachment to every recipient, with the subject and message given", async () => {
    const res = await send({
      objectInstanceId: "inspection-short",
      to: ["one@example.com", "two@example.com"],
      cc: "boss@example.com",
      subject: "Inspection B-12",
      message: "Here is the report.",
      fileName: "Boiler report",
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      message: expect.any(String),
      data: { recipients: 3, storagePath: expect.stringMatching(/^generated-pdfs\/tenants\/acme-north\/inspection-short\//), messageId: expect.any(String) },
    });

    const messages = await captured();
    expect(messages).toHaveLength(1);
    const mail = messages[0].body;
    expect(mail.personalizations[0].to.map((t: { email: string }) => t.email)).toEqual(["one@example.com", "two@example.com"]);
    expect(mail.personalizations[0].cc.map((t: { email: string }) => t.email)).toEqual(["boss@example.com"]);
    expect(mail.from).toEqual({ email: "print@demo-print-admin.test", name: "Demo print service" });
    expect(mail.subject).toBe("Inspection B-12");
    expect(mail.content).toEqual([{ type: "text/plain", value: "Here is the report." }]);
    expect(mail.attachments).toHaveLength(1);
    expect(mail.attachments[0]).toMatchObject({ filename: "Boiler report.pdf", type: "application/pdf", disposition: "attachment" });
    const text = await pdfText(Buffer.from(mail.attachments[0].content, "base64"));
    expect(text).toContain("Boiler Inspection B-12");
    expect(text).toContain("Safety Inspection");
  });

  it("builds the subject, message and file name from the instance title by default", async () => {
    const res = await send({ objectInstanceId: "multilingual", to: "someone@example.com" });
    expect(res.status).toBe(200);
    const [{ body: mail }] = await captured();
    expect(mail.subject).toBe("Προδιαγραφή / Спецификация / Spécification (PDF)");
    expect(mail.content[0].value).toContain("Προδιαγραφή / Спецификация / Spécification");
    expect(mail.attachments[0].filename).toMatch(/^[A-Za-z0-9 ._-]+\.pdf$/);
    expect(await pdfText(Buffer.from(mail.attachments[0].content, "base64"))).toContain("Спецификация");
  });

  it.each([
    ["no recipient", { objectInstanceId: "inspection-short" }, /'to'/],
    ["an invalid address", { objectInstanceId: "inspection-short", to: "not-an-address" }, /'to'/],
    ["a header injection in an address", { objectInstanceId: "inspection-short", to: "a@example.com\r\nBcc: victim@example.com" }, /'to'/],
    ["a header injection in the subject", { objectInstanceId: "inspection-short", to: "a@example.com", subject: "Hi\r\nBcc: victim@example.com" }, /'subject': must be a single line/],
    ["an empty list", { objectInstanceId: "inspection-short", to: [] }, /'to'/],
    ["11 recipients", { objectInstanceId: "inspection-short", to: Array.from({ length: 6 }, (_, i) => `t${i}@example.com`), cc: Array.from({ length: 5 }, (_, i) => `c${i}@example.com`) }, /at most 10 recipients/],
    ["a subject over 200 characters", { objectInstanceId: "inspection-short", to: "a@example.com", subject: "x".repeat(201) }, /'subject'/],
    ["a message over 10,000 characters", { objectInstanceId: "inspection-short", to: "a@example.com", message: "x".repeat(10_001) }, /'message'/],
    ["a file name with a slash", { objectInstanceId: "inspection-short", to: "a@example.com", fileName: "../../etc/passwd" }, /'fileName'/],
    ["an unknown field", { objectInstanceId: "inspection-short", to: "a@example.com", bcc: "x@example.com" }, /unknown field 'bcc'/],
    ["a bad instance id", { objectInstanceId: "../x", to: "a@example.com" }, /'objectInstanceId'/],
    ["a number as the address", { objectInstanceId: "inspection-short", to: 42 }, /'to'/],
  ])("answers 400 for %s and sends nothing", async (_name, body, message) => {
    const res = await send(body);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ statusCode: 400, error: "Bad Request", message: expect.stringMatching(message) });
    expect(await captured()).toEqual([]);
  });

  it("answers 404 for another target's instance and sends nothing", async () => {
    const res = await send({ objectInstanceId: "south-report", to: "a@example.com" });
    expect(res.status).toBe(404);
    expect(await captured()).toEqual([]);
  });

  it("answers 502 with SendGrid's reason when it refuses, and 502 when it fails", async () => {
    await sink("/behaviour", { method: "PUT", body: { status: 400 } });
    const refused = await send({ objectInstanceId: "inspection-short", to: "a@example.com" });
    expect(refused.status).toBe(502);
    expect(refused.json.message).toMatch(/SendGrid refused the email \(400\): Failure requested/);
    await sink("/behaviour", { method: "PUT", body: { status: 500 } });
    const failed = await send({ objectInstanceId: "inspection-short", to: "a@example.com" });
    expect(failed.status).toBe(502);
    expect(failed.json.message).toMatch(/SendGrid failed/);
    await sink("/behaviour", { method: "PUT", body: {} });
    expect((await send({ objectInstanceId: "inspection-short", to: "a@example.com" })).status).toBe(200);
  });

  it("answers 504 when SendGrid does not answer within the timeout", async () => {
    await sink("/behaviour", { method: "PUT", body: { delayMs: 12_000 } });
    const res = await send({ objectInstanceId: "inspection-short", to: "a@example.com" });
    expect(res.status).toBe(504);
    expect(res.json.message).toMatch(/did not answer within 10 s/);
  });

  it("limits sends per user and target: the 21st within the hour is 429 with Retry-After", async () => {
    const tenant = freshUid("quota");
    const db = firestore();
    await db.doc(`tenants/${tenant}`).set({ name: "Quota tenant", organizationId: null, features: {} });
    await db.doc(`tenants/${tenant}/members/north-reader`).set({ permissions: ["READ"] });
    await db.doc(`tenants/${tenant}/objectInstances/short`).set({ title: "Short", objectTypeName: "Test", sections: [{ title: "S", fields: [{ label: "A", type: "text", value: "x" }] }] });
    const body = { objectInstanceId: "short", to: `${tenant}@example.com` };
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await send(body, `/tenant/${tenant}`)).status);
    expect(statuses).toEqual(Array(20).fill(200));
    const limited = await send(body, `/tenant/${tenant}`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(3000);
    expect(limited.json.message).toMatch(/At most 20 emails per 60 minutes/);
    const delivered = (await captured()).filter((m) => m.body.personalizations[0].to[0].email === body.to);
    expect(delivered).toHaveLength(20);
    // Another user on the same target still may.
    await db.doc(`tenants/${tenant}/members/north-admin`).set({ permissions: ["ADMIN"] });
    expect((await send(body, `/tenant/${tenant}`, await idTokenFor("north-admin@acme.test"))).status).toBe(200);
  });
});
