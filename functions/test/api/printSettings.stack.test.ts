import { beforeAll, describe, expect, it } from "vitest";
import { BASES, call, idTokenFor } from "../helpers";
import { popplerLines } from "../print/popplerText";
import { apiUrl, firestore, freshUid } from "./fixtures";

/** The demo organization's logo, which its tenants inherit. */
const ACME_LOGO = "uploads/organizations/acme/print-settings/logo.png";

describe("GET and PUT /api/{target}/print-settings", () => {
  let orgAdmin: string;
  let reader: string;
  let org: string;
  let tenant: string;
  beforeAll(async () => {
    [orgAdmin, reader] = await Promise.all([idTokenFor("org-admin@acme.test"), idTokenFor("north-reader@acme.test")]);
    // A fresh tenant of the demo organization (whose admin is ADMIN on it through the organization).
    tenant = freshUid("settings-api");
    org = "acme";
    await firestore().doc(`tenants/${tenant}`).set({ name: "Settings API", organizationId: org, features: {}, print: { paperSize: "Letter" } });
    await firestore().doc(`tenants/${tenant}/divisions/ops`).set({ name: "Ops", features: {} });
    await firestore().doc(`tenants/${tenant}/members/north-reader`).set({ permissions: ["READ"] });
    await firestore().doc(`tenants/${tenant}/divisions/ops/objectInstances/doc`).set({ title: "Doc", objectTypeName: "T", sections: [{ title: "S", fields: [{ label: "Done", type: "boolean", value: true }] }] });
  });
  const target = () => `/organization/${org}/tenant/${tenant}`;
  const get = (path = target(), token = orgAdmin) => call(apiUrl(`${path}/print-settings`), { auth: { bearer: token } });
  const put = (body: unknown, path = target(), token = orgAdmin) => call(apiUrl(`${path}/print-settings`), { method: "PUT", auth: { bearer: token }, body });
  const patch = (body: unknown, path = target(), token = orgAdmin) => call(apiUrl(`${path}/print-settings`), { method: "PATCH", auth: { bearer: token }, body });

  it("reads the effective settings, where each comes from, and the target's own", async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      statusCode: 200,
      message: expect.any(String),
      data: {
        effective: { locale: "en-GB", timeZone: "UTC", paperSize: "Letter", conformance: "PDF/UA-1", accentColor: "#1c4073", footerText: "", logo: ACME_LOGO, sign: false, jobWebhookUrl: null },
        sources: { locale: "default", timeZone: "default", paperSize: `tenants/${tenant}`, conformance: "default", accentColor: "default", footerText: "default", logo: "organizations/acme", sign: "default", jobWebhookUrl: "default" },
        own: { paperSize: "Letter" },
      },
    });
  });

  it("sets the target's own settings (ADMIN), inherited below it and used by print; a key left out is inherited again", async () => {
    const saved = await put({ locale: "de-de", timeZone: "Europe/Berlin", accentColor: "#1F4E79", footerText: "Acme Nord GmbH · Geschäftsführung: E. Muster" });
    expect(saved.status).toBe(200);
    const t = `tenants/${tenant}`;
    expect(saved.json.data).toEqual({
      effective: { locale: "de-DE", timeZone: "Europe/Berlin", paperSize: "A4", conformance: "PDF/UA-1", accentColor: "#1f4e79", footerText: "Acme Nord GmbH · Geschäftsführung: E. Muster", logo: ACME_LOGO, sign: false, jobWebhookUrl: null },
      sources: { locale: t, timeZone: t, paperSize: "default", conformance: "default", accentColor: t, footerText: t, logo: "organizations/acme", sign: "default", jobWebhookUrl: "default" },
      own: { locale: "de-DE", timeZone: "Europe/Berlin", accentColor: "#1f4e79", footerText: "Acme Nord GmbH · Geschäftsführung: E. Muster" },
    });
    expect((await get()).json.data).toEqual(saved.json.data);
    const division = await get(`${target()}/division/ops`);
    expect(division.json.data.effective).toMatchObject({ locale: "de-DE", timeZone: "Europe/Berlin", paperSize: "A4", accentColor: "#1f4e79" });
    expect(division.json.data.own).toEqual({});
    const printed = await call(`${BASES.print.functionUrl}${target()}/division/ops/print`, { method: "POST", auth: { bearer: reader }, body: { objectInstanceId: "doc" } });
    expect(printed.status).toBe(201);
    expect(printed.json.data).toMatchObject({ locale: "de-DE", timeZone: "Europe/Berlin", paperSize: "A4" });
    const pdf = new Uint8Array(await (await fetch(printed.json.data.downloadUrl)).arrayBuffer());
    expect(popplerLines(pdf).join("\n")).toContain("Acme Nord GmbH · Geschäftsführung: E. Muster");
    // The change is on the audit trail of the tenant and of the organization above it.
    const events = await call(apiUrl(`${target()}/audit-events?action=printSettings.updated`), { auth: { bearer: orgAdmin } });
    expect(events.json.data[0]).toMatchObject({ action: "printSettings.updated", subject: "print-settings", target: `tenants/${tenant}`, details: { locale: "de-DE", timeZone: "Europe/Berlin" } });
  });

  it("refuses unusable values with 400 naming the field, and changes nothing", async () => {
    const before = (await get()).json.data;
    for (const [body, field] of [
      [{ locale: "klingon!" }, "locale"],
      [{ timeZone: "Europe/Atlantis" }, "timeZone"],
      [{ paperSize: "A3" }, "paperSize"],
      [{ accentColor: "blue" }, "accentColor"],
      // Headings in white on the white page: unreadable.
      [{ accentColor: "#FFFFFF" }, "'accentColor': must be dark enough to read on the white page: its contrast against white is 1.00:1, at least 4.5:1 is needed"],
      [{ accentColor: "#777777" }, "'accentColor': must be dark enough to read on the white page: its contrast against white is 4.47:1, at least 4.5:1 is needed"],
      [{ footerText: "two\nlines" }, "footerText"],
      [{ footerText: "bell\u0007 and escape\u001b[31m" }, "'footerText': must be a single line without control characters"],
      [{ footerText: "next\u0085line" }, "'footerText': must be a single line without control characters"],
      [{ footerText: "line\u2028separator" }, "'footerText': must be a single line without control characters"],
      // A lone surrogate: JSON carries it, UTF-8 cannot (Firestore failed on it: a 500).
      [{ footerText: "half an emoji \ud83d" }, "'footerText': is not well-formed Unicode"],
      [{ logo: "uploads/x\udc00.png" }, "'logo': is not well-formed Unicode"],
      [{ logo: `uploads/tenants/${tenant}/print-settings/logo.png\u0000` }, "'logo': must be a storage path without control characters"],
      [{ accent: "#fff" }, "accent"],
    ] as const) {
      const res = await put(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.message).toContain(field);
    }
    expect((await get()).json.data).toEqual(before);
  });

  it("PATCH changes the body's keys only: the others stay as the target set them; a refused value or a reader changes nothing", async () => {
    const before = (await get()).json.data.own;
    expect(before).toMatchObject({ locale: "de-DE", timeZone: "Europe/Berlin" });
    const res = await patch({ paperSize: "Legal", footerText: "Patched" });
    expect(res.status, res.text).toBe(200);
    const after = { ...before, paperSize: "Legal", footerText: "Patched" };
    expect(res.json.data.own).toEqual(after);
    expect(res.json.data.effective).toMatchObject({ locale: "de-DE", paperSize: "Legal", footerText: "Patched" });
    expect((await get()).json.data.own).toEqual(after);
    // An empty PATCH changes nothing (a PUT of {} clears every key).
    expect((await patch({})).json.data.own).toEqual(after);
    const refused = await patch({ paperSize: "A3", footerText: "Not saved" });
    expect(refused.status).toBe(400);
    expect(refused.json.message).toContain("paperSize");
    expect((await patch({ footerText: "By a reader" }, `/tenant/${tenant}`, reader)).status).toBe(401);
    expect((await get()).json.data.own).toEqual(after);
    const trail = await call(apiUrl(`${target()}/audit-events?action=printSettings.updated`), { auth: { bearer: orgAdmin } });
    expect(trail.json.data[0]).toMatchObject({ details: { paperSize: "Legal", footerText: "Patched" } });
    expect(await put(before)).toMatchObject({ status: 200 }); // as the tests after this one find it
  });

  it("takes a new accent colour of 4.5:1 against white or more, and the target's own lighter one sent back as it is", async () => {
    expect((await put({ accentColor: "#767676" })).status).toBe(200); // 4.54:1
    // Stored before the rule (written here directly): a PUT that sends it back with another change keeps it.
    await firestore().doc(`tenants/${tenant}`).update({ "print.accentColor": "#ff8000" });
    const kept = await put({ accentColor: "#FF8000", footerText: "Kept" });
    expect(kept.status, kept.text).toBe(200);
    expect((await get()).json.data.own).toMatchObject({ accentColor: "#ff8000", footerText: "Kept" });
    // Another light one is a new colour: refused, and nothing changes.
    const other = await put({ accentColor: "#ff8800" });
    expect(other.status).toBe(400);
    expect(other.json.message).toMatch(/'accentColor': must be dark enough/);
    expect((await get()).json.data.own).toMatchObject({ accentColor: "#ff8000", footerText: "Kept" });
    await put({ locale: "de-DE", timeZone: "Europe/Berlin" }); // as the test after this one finds it
  });

  it("is for ADMIN only: a reader gets 401 and changes nothing", async () => {
    const readerTarget = `/tenant/${tenant}`;
    expect((await get(readerTarget, reader)).status).toBe(401);
    expect((await put({ locale: "fr-FR" }, readerTarget, reader)).status).toBe(401);
    expect((await get()).json.data.effective.locale).toBe("de-DE");
  });
});
