import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { URLS } from "../../stack/config";
import { getAuth } from "firebase-admin/auth";
import { stackAdminApp } from "../../stack/seedStack";
import { firestore, freshUid } from "../api/fixtures";
import { BASES, basicHeader, call, idTokenFor } from "../helpers";
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
  const send = (body: unknown, target = "/tenant/acme-north", token = reader, timeoutMs?: number) => call(sendUrl(target), { method: "POST", auth: { bearer: token }, body, timeoutMs });

  it("emails the PDF as an attachment to every recipient, with the subject and message given", async () => {
    const res = await send({
      objectInstanceId: "inspection-short",
      to: ["one@example.com", "two@example.com"],
      cc: "boss@example.com",
      subject: "Inspection B-12",
      message: "Here is the report.\n\tTwo lines, the second indented.",
      fileName: "Boiler report",
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      message: expect.any(String),
      data: {
        recipients: 3,
        storagePath: expect.stringMatching(/^generated-pdfs\/tenants\/acme-north\/inspection-short\//),
        messageId: expect.any(String),
        locale: "en-GB",
        languageFromText: true,
        timeZone: "UTC",
        paperSize: "A4",
        conformance: "PDF/UA-1",
        sign: false,
        template: null,
      },
    });

    const messages = await captured();
    expect(messages).toHaveLength(1);
    const mail = messages[0].body;
    expect(mail.personalizations[0].to.map((t: { email: string }) => t.email)).toEqual(["one@example.com", "two@example.com"]);
    expect(mail.personalizations[0].cc.map((t: { email: string }) => t.email)).toEqual(["boss@example.com"]);
    expect(mail.from).toEqual({ email: "print@demo-print-admin.test", name: "Demo print service" });
    expect(mail.subject).toBe("Inspection B-12");
    // The caller's message, then the service's note of who sent it and from where, which the caller cannot replace.
    expect(mail.content).toEqual([
      {
        type: "text/plain",
        value: "Here is the report.\n\tTwo lines, the second indented.\n\n--\nSent by north-reader@acme.test from Acme Corporation / Acme North with Demo print service. This note is added by the service; the text above is the sender's.",
      },
    ]);
    expect(mail.attachments).toHaveLength(1);
    expect(mail.attachments[0]).toMatchObject({ filename: "Boiler report.pdf", type: "application/pdf", disposition: "attachment" });
    const text = await pdfText(Buffer.from(mail.attachments[0].content, "base64"));
    expect(text).toContain("Boiler Inspection B-12");
    expect(text).toContain("Safety Inspection");
  });

  it("mails each address once, in to before cc, whatever its case, and counts the addresses mailed", async () => {
    const res = await send({ objectInstanceId: "inspection-short", to: ["one@example.com", "One@Example.com", "two@example.com"], cc: ["TWO@example.com", "boss@example.com", "boss@example.com"] });
    expect(res.status).toBe(200);
    expect(res.json.data.recipients).toBe(3);
    const [message] = await captured();
    expect(message.body.personalizations[0].to.map((t: { email: string }) => t.email)).toEqual(["one@example.com", "two@example.com"]);
    expect(message.body.personalizations[0].cc.map((t: { email: string }) => t.email)).toEqual(["boss@example.com"]);
    // Every cc already in to: no cc at all.
    await sink("/messages", { method: "DELETE" });
    expect((await send({ objectInstanceId: "inspection-short", to: "one@example.com", cc: "ONE@EXAMPLE.COM" })).json.data.recipients).toBe(1);
    expect((await captured())[0].body.personalizations[0].cc ?? []).toEqual([]);
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

  it("names the title in the default subject and message as the PDF prints it: no bidi controls, one line", async () => {
    const id = `bidi-title-${Date.now()}`;
    const source = (await firestore().doc("tenants/acme-north/objectInstances/inspection-short").get()).data()!;
    await firestore().doc(`tenants/acme-north/objectInstances/${id}`).set({ ...source, title: "Invoice \u202egnp.exe\u202c\nBcc: x" });
    try {
      const res = await send({ objectInstanceId: id, to: "someone@example.com" });
      expect(res.status, res.text).toBe(200);
      const [{ body: mail }] = await captured();
      expect(mail.subject).toBe("Invoice gnp.exe Bcc: x (PDF)");
      expect(mail.content[0].value).toContain("Invoice gnp.exe Bcc: x");
      expect(mail.content[0].value).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    } finally {
      await firestore().doc(`tenants/acme-north/objectInstances/${id}`).delete();
    }
  });

  it.each([
    ["no recipient", { objectInstanceId: "inspection-short" }, /'to': must be an email address or a list of 1 to 10/],
    ["an invalid address", { objectInstanceId: "inspection-short", to: "not-an-address" }, /^Invalid body: 'to': Invalid email address\.$/],
    // Only the real problem: a string's characters are not recipients (the count once said "at most 10 recipients" too).
    ["an invalid cc address", { objectInstanceId: "inspection-short", to: "a@example.com", cc: "not-an-address-at-all" }, /^Invalid body: 'cc': Invalid email address\.$/],
    ["an invalid address in a list", { objectInstanceId: "inspection-short", to: ["a@example.com", "not-an-address"] }, /^Invalid body: 'to\.1': Invalid email address\.$/],
    ["a header injection in an address", { objectInstanceId: "inspection-short", to: "a@example.com\r\nBcc: victim@example.com" }, /'to'/],
    ["a header injection in the subject", { objectInstanceId: "inspection-short", to: "a@example.com", subject: "Hi\r\nBcc: victim@example.com" }, /'subject': must be a single line/],
    ["an empty list", { objectInstanceId: "inspection-short", to: [] }, /'to': must be an email address or a list of 1 to 10/],
    ["11 addresses in to", { objectInstanceId: "inspection-short", to: Array.from({ length: 11 }, (_, i) => `t${i}@example.com`) }, /'to': must be an email address or a list of 1 to 10/],
    ["11 recipients", { objectInstanceId: "inspection-short", to: Array.from({ length: 6 }, (_, i) => `t${i}@example.com`), cc: Array.from({ length: 5 }, (_, i) => `c${i}@example.com`) }, /at most 10 recipients/],
    ["a subject over 200 characters", { objectInstanceId: "inspection-short", to: "a@example.com", subject: "x".repeat(201) }, /'subject'/],
    ["a message over 10,000 characters", { objectInstanceId: "inspection-short", to: "a@example.com", message: "x".repeat(10_001) }, /'message'/],
    ["a right-to-left override in the subject", { objectInstanceId: "inspection-short", to: "a@example.com", subject: "Invoice \u202egpj.exe" }, /'subject': must not contain bidi embedding, override or isolate characters/],
    ["a NUL or an escape in the message", { objectInstanceId: "inspection-short", to: "a@example.com", message: "Hi\u0000 \u001b[2J" }, /'message': must not contain control characters other than line breaks and tabs/],
    ["a file name with a slash", { objectInstanceId: "inspection-short", to: "a@example.com", fileName: "../../etc/passwd" }, /'fileName'/],
    ["an unknown field", { objectInstanceId: "inspection-short", to: "a@example.com", bcc: "x@example.com" }, /unknown field 'bcc'/],
    ["a bad instance id", { objectInstanceId: "../x", to: "a@example.com" }, /'objectInstanceId'/],
    // SMTP's limits (RFC 5321): SendGrid would refuse them after the quota was spent.
    ["a local part over 64 characters", { objectInstanceId: "inspection-short", to: `${"a".repeat(65)}@example.com` }, /^Invalid body: 'to': must have at most 64 characters before the @/],
    ["an invalid address with a long part (one message)", { objectInstanceId: "inspection-short", to: `${"a".repeat(70)}@@example.com` }, /^Invalid body: 'to': Invalid email address\.$/],
    ["a domain label over 63 characters", { objectInstanceId: "inspection-short", to: "a@example.com", cc: [`b@${"b".repeat(64)}.example.com`] }, /^Invalid body: 'cc\.0': must have at most 64 characters before the @ and 63 in each part of the domain\.$/],
    ["a number as the address", { objectInstanceId: "inspection-short", to: 42 }, /'to': must be an email address or a list of 1 to 10/],
  ])("answers 400 for %s and sends nothing", async (_name, body, message) => {
    const res = await send(body);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ statusCode: 400, error: "Bad Request", message: expect.stringMatching(message) });
    expect(await captured()).toEqual([]);
  });

  it("takes addresses at SMTP's limits: 64 characters before the @, 63 in a part of the domain", async () => {
    const res = await send({ objectInstanceId: "inspection-short", to: `${"a".repeat(64)}@${"b".repeat(63)}.example.com` });
    expect(res.status, res.text).toBe(200);
    expect(await captured()).toHaveLength(1);
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
    expect(refused.json.message).toBe("SendGrid refused the email (400): Failure requested through PUT /behaviour.");
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
    expect(limited.json.message).toMatch(/At most 20 emails per hour per user and target; try again in \d+ s/);
    const delivered = (await captured()).filter((m) => m.body.personalizations[0].to[0].email === body.to);
    expect(delivered).toHaveLength(20);
    // Another user on the same target still may.
    await db.doc(`tenants/${tenant}/members/north-admin`).set({ permissions: ["ADMIN"] });
    expect((await send(body, `/tenant/${tenant}`, await idTokenFor("north-admin@acme.test"))).status).toBe(200);
  });

  describe("relay protections", () => {
    /** A fresh tenant with `readers` fresh READ users (their tokens), an instance `short`, and `tenantData` merged in. */
    async function freshTenant(readers: number, tenantData: Record<string, unknown> = {}): Promise<{ path: string; tokens: string[] }> {
      const tenant = freshUid("relay");
      const db = firestore();
      await db.doc(`tenants/${tenant}`).set({ name: "Relay tenant", organizationId: null, features: {}, ...tenantData });
      await db.doc(`tenants/${tenant}/objectInstances/short`).set({ title: "Short", objectTypeName: "Test", sections: [{ title: "S", fields: [{ label: "A", type: "text", value: "x" }] }] });
      const tokens = await Promise.all(
        Array.from({ length: readers }, async (_, i) => {
          const uid = `${tenant}-reader-${i}`;
          await getAuth(stackAdminApp()).createUser({ uid, email: `${uid}@relay.test`, password: "relay-password" });
          await db.doc(`tenants/${tenant}/members/${uid}`).set({ permissions: ["READ"] });
          return idTokenFor(`${uid}@relay.test`, "relay-password");
        }),
      );
      return { path: `/tenant/${tenant}`, tokens };
    }
    const tenRecipients = (tag: string) => Array.from({ length: 10 }, (_, i) => `r${i}-${tag}@example.com`);

    it("sends only to the domains a target allows (and their subdomains), inherited; others are 400 and nothing is sent or counted", async () => {
      const { path, tokens } = await freshTenant(1, { mail: { allowedRecipientDomains: ["allowed.example"] } });
      const refused = await send({ objectInstanceId: "short", to: ["a@allowed.example", "b@elsewhere.example"] }, path, tokens[0]);
      expect(refused.status).toBe(400);
      expect(refused.json.message).toBe("'to'/'cc': this target sends PDFs only to addresses at allowed.example, not at elsewhere.example.");
      expect(await captured()).toHaveLength(0);
      const ok = await send({ objectInstanceId: "short", to: "a@allowed.example", cc: "b@Mail.Allowed.Example" }, path, tokens[0]);
      expect(ok.status).toBe(200);
      // An organization's list applies to its tenants.
      const org = freshUid("relay-org");
      await firestore().doc(`organizations/${org}`).set({ name: "Relay org", features: {}, mail: { allowedRecipientDomains: ["org.example"] } });
      await firestore().doc(`tenants/${path.split("/")[2]}`).update({ organizationId: org, mail: {} });
      const inherited = await send({ objectInstanceId: "short", to: "a@allowed.example" }, `/organization/${org}${path}`, tokens[0]);
      expect(inherited.status).toBe(400);
      expect(inherited.json.message).toMatch(/only to addresses at org\.example/);
    });

    it("spends no quota on a send that cannot happen: a missing instance or a template not on the chain is 404", async () => {
      const { path, tokens } = await freshTenant(1);
      const statuses: number[] = [];
      // More than the 20 sends an hour a user has on a target, each naming ten recipients.
      for (let i = 0; i < 11; i++) statuses.push((await send({ objectInstanceId: "no-such-instance", to: tenRecipients(`missing-${i}`) }, path, tokens[0])).status);
      for (let i = 0; i < 11; i++) statuses.push((await send({ objectInstanceId: "short", templateId: "no-such-template", to: tenRecipients(`template-${i}`) }, path, tokens[0])).status);
      // With an Idempotency-Key too: the quota untouched, and the key free again (the corrected request
      // with it is sent, not a 422 for another request).
      const key = `typo-${freshUid("k")}`;
      const keyed = (body: unknown) => call(sendUrl(path), { method: "POST", auth: { bearer: tokens[0] }, body, headers: { "idempotency-key": key } });
      statuses.push((await keyed({ objectInstanceId: "no-such-instance", to: "k@example.com" })).status);
      expect(statuses).toEqual(Array(23).fill(404));
      expect(await captured()).toHaveLength(0);
      const sent = await keyed({ objectInstanceId: "short", to: tenRecipients("after") });
      expect(sent.status, sent.text).toBe(200);
    });

    it("spends no send quota on a PDF that cannot be made: an instance past the renderer's limits is 422 every time", async () => {
      const { path, tokens } = await freshTenant(1);
      const columns = Array.from({ length: 101 }, (_, i) => `C${i}`);
      await firestore().doc(`tenants/${path.split("/")[2]}/objectInstances/wide`).set({ title: "Wide", objectTypeName: "Grid", sections: [{ title: "S", fields: [{ label: "Grid", type: "table", value: { columns, rows: [{ cells: columns.map(() => "x") }] } }] }] });
      // More than the 20 sends an hour a user has on a target (the first renders and fails, the rest are answered from memory).
      const refused: unknown[] = [];
      for (let i = 0; i < 21; i++) refused.push((await send({ objectInstanceId: "wide", to: tenRecipients(`wide-${i}`) }, path, tokens[0])).json);
      expect(new Set(refused.map((r) => JSON.stringify(r)))).toEqual(new Set([JSON.stringify({ statusCode: 422, error: "Unprocessable Entity", message: "The object instance is too large to print: it has 101 columns in one table; the limit is 100." })]));
      expect(await captured()).toHaveLength(0);
      const sent = await send({ objectInstanceId: "short", to: tenRecipients("after-wide") }, path, tokens[0]);
      expect(sent.status, sent.text).toBe(200);
    });

    it("names the sender by an address only once it is verified: a user who changed their email unverified is named by uid, by Bearer and Basic alike", async () => {
      const { path } = await freshTenant(0);
      const uid = freshUid("relay-user");
      const email = `${uid}@relay.test`;
      await getAuth(stackAdminApp()).createUser({ uid, email, password: "relay-password", emailVerified: true });
      await firestore().doc(`tenants/${path.split("/")[2]}/members/${uid}`).set({ permissions: ["READ"] });
      const note = async () => String((await captured()).at(-1)?.body.content[0].value).split("\n--\n")[1];

      expect((await send({ objectInstanceId: "short", to: "someone@example.com" }, path, await idTokenFor(email, "relay-password"))).status).toBe(200);
      expect(await note()).toContain(`Sent by ${email} from Relay tenant with `);

      // The user makes their own account claim an address they do not own (Identity Toolkit, as any client can); nobody verifies it.
      const claimed = `cfo-${uid}@bank.example`;
      const update = await call(`${URLS.auth}/identitytoolkit.googleapis.com/v1/accounts:update?key=local-stack`, {
        method: "POST",
        body: { idToken: await idTokenFor(email, "relay-password"), email: claimed, returnSecureToken: true },
      });
      expect(update.status).toBe(200);
      expect(update.json).toMatchObject({ email: claimed, emailVerified: false });
      for (const auth of [{ bearer: await idTokenFor(claimed, "relay-password") }, { header: basicHeader(claimed, "relay-password") }]) {
        await sink("/messages", { method: "DELETE" });
        const res = await call(sendUrl(path), { method: "POST", auth, body: { objectInstanceId: "short", to: "someone@example.com" } });
        expect(res.status).toBe(200);
        expect(await note()).toContain(`Sent by user ${uid} from Relay tenant with `);
        expect(JSON.stringify(await captured())).not.toContain("bank.example");
      }
    });

    it("counts recipients per user over every target: 100 an hour, however many targets the user may send from", async () => {
      const targets = await Promise.all(Array.from({ length: 2 }, () => freshTenant(0)));
      const uid = freshUid("relay-user");
      await getAuth(stackAdminApp()).createUser({ uid, email: `${uid}@relay.test`, password: "relay-password" });
      for (const t of targets) await firestore().doc(`tenants/${t.path.split("/")[2]}/members/${uid}`).set({ permissions: ["READ"] });
      const token = await idTokenFor(`${uid}@relay.test`, "relay-password");
      for (let i = 0; i < 10; i++) expect((await send({ objectInstanceId: "short", to: tenRecipients(`${i}`) }, targets[i % 2].path, token)).status).toBe(200);
      const limited = await send({ objectInstanceId: "short", to: "one-more@example.com" }, targets[0].path, token);
      expect(limited.status).toBe(429);
      expect(limited.json.message).toMatch(/At most 100 recipients per hour per user, over every target; try again in \d+ s/);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await captured()).length).toBe(10);
    });

    it("counts recipients per tenant: 1,000 a day, whoever sends", async () => {
      const { path, tokens } = await freshTenant(11);
      // Ten senders of 100 recipients each (each within their own hourly 100), then an eleventh. Each
      // burst of ten makes the emulator start a worker per request, cold on the first (hence 60 s).
      for (const token of tokens.slice(0, 10)) {
        const statuses = await Promise.all(Array.from({ length: 10 }, (_, i) => send({ objectInstanceId: "short", to: tenRecipients(`${i}`) }, path, token, 60_000).then((r) => r.status)));
        expect(statuses).toEqual(Array(10).fill(200));
      }
      const limited = await send({ objectInstanceId: "short", to: "one-more@example.com" }, path, tokens[10]);
      expect(limited.status).toBe(429);
      expect(limited.json.message).toMatch(/At most 1000 recipients per day for this tenant/);
    }, 300_000);

    it("mails once per Idempotency-Key and answers the first answer again; another request with the key is 422; a bad key 400", async () => {
      const { path, tokens } = await freshTenant(1);
      const withKey = (key: string, body: unknown) => call(sendUrl(path), { method: "POST", auth: { bearer: tokens[0] }, body, headers: { "idempotency-key": key } });
      const key = `order-${freshUid("k")}`;
      const body = { objectInstanceId: "short", to: "once@example.com" };
      const first = await withKey(key, body);
      const again = await withKey(key, body);
      expect(first.status).toBe(200);
      expect(again.status).toBe(200);
      expect(again.json).toEqual(first.json);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(first.headers.get("idempotent-replayed")).toBeNull();
      expect(await captured()).toHaveLength(1);
      // The same request serialized another way (keys in another order, the address as a list): a replay too.
      const reordered = await withKey(key, { to: ["once@example.com"], objectInstanceId: "short" });
      expect(reordered.status).toBe(200);
      expect(reordered.headers.get("idempotent-replayed")).toBe("true");
      expect(await captured()).toHaveLength(1);

      expect((await withKey(key, { ...body, to: "other@example.com" })).status).toBe(422);
      expect((await withKey("bad key with spaces", body)).status).toBe(400);
      expect(await captured()).toHaveLength(1);
      // The mail went out: a repeat says so even once the instance is gone (a 404 would say it had not).
      await firestore().doc(`tenants/${path.split("/")[2]}/objectInstances/short`).delete();
      const afterDelete = await withKey(key, body);
      expect([afterDelete.status, afterDelete.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
      expect(afterDelete.json).toEqual(first.json);
    });

    it("frees the key when nothing was sent (SendGrid failed), so the retry sends", async () => {
      const { path, tokens } = await freshTenant(1);
      const withKey = () => call(sendUrl(path), { method: "POST", auth: { bearer: tokens[0] }, body: { objectInstanceId: "short", to: "retry@example.com" }, headers: { "idempotency-key": "retry-1" } });
      await sink("/behaviour", { method: "PUT", body: { status: 500 } });
      expect((await withKey()).status).toBe(502);
      await sink("/behaviour", { method: "PUT", body: {} });
      const retried = await withKey();
      expect(retried.status).toBe(200);
      expect(retried.headers.get("idempotent-replayed")).toBeNull();
      expect(await captured()).toHaveLength(1);
    });
  });
});
