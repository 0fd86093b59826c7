// Print templates through the api function (issue 35): saved per target, found on the target's chain
// (its own first, then each target above it), read, listed and deleted by ADMINs of the target, each
// change on the audit trail. The fixture is this file's own: an organization with a tenant and its
// division, another organization's tenant, and their users (so that no template of this file ever
// reaches the demo's prints).

import { Timestamp } from "firebase-admin/firestore";
import { beforeAll, describe, expect, it } from "vitest";
import { seedStack } from "../../stack/seedStack";
import { call, idTokenFor } from "../helpers";
import { apiUrl, firestore, freshUid, readDoc } from "./fixtures";

const PASSWORD = "templates-password";
const ORG = freshUid("tpl-org");
const TENANT = freshUid("tpl-tenant");
const DIVISION = "ops";
const OTHER_ORG = freshUid("tpl-other-org");
const OTHER_TENANT = freshUid("tpl-other-tenant");
const USERS = { orgAdmin: freshUid("tpl-org-admin"), tenantAdmin: freshUid("tpl-tenant-admin"), reader: freshUid("tpl-reader"), otherAdmin: freshUid("tpl-other-admin") };

const ORG_DOC = `organizations/${ORG}`;
const TENANT_DOC = `tenants/${TENANT}`;
const DIVISION_DOC = `tenants/${TENANT}/divisions/${DIVISION}`;
const OTHER_DOC = `tenants/${OTHER_TENANT}`;

const PATHS = {
  org: `/organization/${ORG}`,
  tenant: `/organization/${ORG}/tenant/${TENANT}`,
  shortTenant: `/tenant/${TENANT}`,
  division: `/tenant/${TENANT}/division/${DIVISION}`,
  other: `/tenant/${OTHER_TENANT}`,
};

const INSPECTION = {
  name: "Inspection report",
  objectTypeNames: ["Template Test Inspection"],
  header: { left: "{title}", right: "{field:Site}" },
  footer: { left: "{instanceId}", right: "Page {page} of {pages}" },
  sections: [{ title: "Checks", displayTitle: "What was checked", fields: [{ label: "Result", width: "half" as const }, { label: "Notes", when: { field: "Result", equals: "Fail" } }], photosPerRow: 2 as const }],
  others: "hide" as const,
  hideEmptyFields: true,
  watermark: { text: "DRAFT", when: { field: "Status", notEquals: "Final" } },
  code: { kind: "qr" as const, value: "https://example.com/records/{instanceId}", position: "header-right" as const },
};
const LETTER = { name: "Letter", objectTypeNames: [] };

describe("print templates: /api/{target}/print-templates", () => {
  const tokens = {} as Record<keyof typeof USERS, string>;

  beforeAll(async () => {
    const grant = (target: string, uid: string, permissions: string[]) => [`${target}/members/${uid}`, { permissions }] as const;
    await seedStack({
      users: Object.values(USERS).map((uid) => ({ uid, email: `${uid}@templates.test`, password: PASSWORD })),
      documents: Object.fromEntries([
        [ORG_DOC, { name: "Templates org", features: {} }],
        [TENANT_DOC, { name: "Templates tenant", organizationId: ORG, features: {} }],
        [DIVISION_DOC, { name: "Ops", features: {} }],
        [`organizations/${OTHER_ORG}`, { name: "Other org", features: {} }],
        [OTHER_DOC, { name: "Other tenant", organizationId: OTHER_ORG, features: {} }],
        grant(ORG_DOC, USERS.orgAdmin, ["ADMIN"]),
        grant(TENANT_DOC, USERS.tenantAdmin, ["ADMIN"]),
        grant(TENANT_DOC, USERS.reader, ["READ", "MANAGE_FORM", "MANAGE_OBJECTS", "MANAGE_PEOPLE"]),
        grant(OTHER_DOC, USERS.otherAdmin, ["ADMIN", "READ", "MANAGE_FORM", "MANAGE_OBJECTS", "MANAGE_PEOPLE"]),
      ]),
    });
    await Promise.all((Object.keys(USERS) as (keyof typeof USERS)[]).map(async (key) => (tokens[key] = await idTokenFor(`${USERS[key]}@templates.test`, PASSWORD))));
  });

  const as = (who: keyof typeof USERS) => ({ bearer: tokens[who] });
  const list = (target: string, who: keyof typeof USERS = "tenantAdmin") => call(apiUrl(`${target}/print-templates`), { auth: as(who) });
  const get = (target: string, id: string, who: keyof typeof USERS = "tenantAdmin") => call(apiUrl(`${target}/print-templates/${id}`), { auth: as(who) });
  const put = (target: string, id: string, body: unknown, who: keyof typeof USERS = "tenantAdmin") => call(apiUrl(`${target}/print-templates/${id}`), { method: "PUT", auth: as(who), body });
  const remove = (target: string, id: string, who: keyof typeof USERS = "tenantAdmin") => call(apiUrl(`${target}/print-templates/${id}`), { method: "DELETE", auth: as(who) });
  const events = async (target: string, action: string, subject: string, who: keyof typeof USERS = "orgAdmin") =>
    (await call(apiUrl(`${target}/audit-events?action=${action}&subject=${subject}`), { auth: as(who) })).json.data as { action: string; target: string; subject: string; actor: { uid: string }; details: Record<string, unknown> }[];

  it("creates a template (version 1), answering it whole as saved; the document holds it with its version, time and author", async () => {
    const before = Date.now();
    const res = await put(PATHS.tenant, "inspection", INSPECTION);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      statusCode: 200,
      message: "Print template created.",
      data: { templateId: "inspection", ...INSPECTION, version: 1, updatedAt: expect.any(String), source: TENANT_DOC, own: true },
    });
    expect(Date.parse(res.json.data.updatedAt)).toBeGreaterThanOrEqual(before - 5_000);
    expect(Date.parse(res.json.data.updatedAt)).toBeLessThanOrEqual(Date.now() + 5_000);
    const stored = await readDoc(`${TENANT_DOC}/printTemplates/inspection`);
    expect(stored).toEqual({ ...INSPECTION, version: 1, updatedAt: expect.any(Timestamp), updatedBy: USERS.tenantAdmin });
    expect((stored!.updatedAt as Timestamp).toDate().toISOString()).toBe(res.json.data.updatedAt);
  });

  it("replaces it on the next save (version 2): what the body leaves out is gone", async () => {
    const { watermark: _w, code: _c, ...changed } = { ...INSPECTION, name: "Inspection report (2)" };
    const res = await put(PATHS.tenant, "inspection", changed);
    expect(res.status).toBe(200);
    expect(res.json.message).toBe("Print template saved.");
    expect(res.json.data).toEqual({ templateId: "inspection", ...changed, version: 2, updatedAt: expect.any(String), source: TENANT_DOC, own: true });
    const stored = await readDoc(`${TENANT_DOC}/printTemplates/inspection`);
    expect(stored).toEqual({ ...changed, version: 2, updatedAt: expect.any(Timestamp), updatedBy: USERS.tenantAdmin });
    // A save costs the pipeline's read (target, grants and the template, in the transaction) and the commit.
    expect(res.headers.get("x-backend-calls")).toMatch(/^firestore=2\b/);
  });

  it("reads it: the whole template, its version and where it comes from", async () => {
    const res = await get(PATHS.shortTenant, "inspection");
    expect(res.status).toBe(200);
    const { watermark: _w, code: _c, ...saved } = { ...INSPECTION, name: "Inspection report (2)" };
    expect(res.json).toEqual({ statusCode: 200, message: expect.any(String), data: { templateId: "inspection", ...saved, version: 2, updatedAt: expect.any(String), source: TENANT_DOC, own: true } });
  });

  it("lists a target's own templates and those it inherits, nearest first, each with its source; a division below sees them all", async () => {
    expect((await put(PATHS.org, "letter", LETTER, "orgAdmin")).status).toBe(200);
    expect((await put(PATHS.org, "inspection", { ...LETTER, name: "Organization inspection" }, "orgAdmin")).status).toBe(200);
    const summary = (templateId: string, name: string, objectTypeNames: string[], version: number, source: string, own: boolean) => ({ templateId, name, objectTypeNames, version, updatedAt: expect.any(String), source, own });
    const tenantOwn = summary("inspection", "Inspection report (2)", INSPECTION.objectTypeNames, 2, TENANT_DOC, true);
    const orgs = [summary("inspection", "Organization inspection", [], 1, ORG_DOC, false), summary("letter", "Letter", [], 1, ORG_DOC, false)];

    const fromTenant = await list(PATHS.tenant);
    expect(fromTenant.status).toBe(200);
    expect(fromTenant.json).toEqual({ statusCode: 200, message: "3 print template(s).", data: [tenantOwn, ...orgs] });
    const fromDivision = await list(PATHS.division);
    expect(fromDivision.json.data).toEqual([{ ...tenantOwn, own: false }, ...orgs]);
    const fromOrg = await list(PATHS.org, "orgAdmin");
    expect(fromOrg.json.data).toEqual(orgs.map((t) => ({ ...t, own: true })));

    // One of an id: the nearest. The division inherits the tenant's, the tenant has its own, the organization its own.
    expect((await get(PATHS.division, "inspection")).json.data).toMatchObject({ name: "Inspection report (2)", source: TENANT_DOC, own: false });
    expect((await get(PATHS.division, "letter")).json.data).toMatchObject({ name: "Letter", source: ORG_DOC, own: false });
    expect((await get(PATHS.org, "inspection", "orgAdmin")).json.data).toMatchObject({ name: "Organization inspection", source: ORG_DOC, own: true });
  });

  it("deletes the target's own only: an inherited one is 404 (saying where it is held), one nowhere on the chain too", async () => {
    const inherited = await remove(PATHS.division, "letter");
    expect(inherited.status).toBe(404);
    expect(inherited.json.message).toBe(`Print template 'letter' is not this target's own: it is inherited from ${ORG_DOC}, where it can be deleted.`);
    expect(await readDoc(`${ORG_DOC}/printTemplates/letter`)).toBeDefined();
    const nowhere = await remove(PATHS.tenant, "nowhere");
    expect([nowhere.status, nowhere.json.message]).toEqual([404, "Print template 'nowhere' is not on this target's chain."]);

    const deleted = await remove(PATHS.tenant, "inspection");
    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({ statusCode: 200, message: "Print template deleted.", data: { templateId: "inspection", version: 2 } });
    expect(await readDoc(`${TENANT_DOC}/printTemplates/inspection`)).toBeUndefined();
    // What the tenant inherits of that id serves now.
    expect((await get(PATHS.tenant, "inspection")).json.data).toMatchObject({ name: "Organization inspection", source: ORG_DOC, own: false });
    expect((await remove(PATHS.tenant, "inspection")).status).toBe(404);
  });

  it("puts every save and deletion on the audit trail of the target and the targets above it, without the template itself", async () => {
    const saved = await events(PATHS.tenant, "print_template.saved", "inspection");
    const own = saved.filter((e) => e.target === TENANT_DOC);
    expect(own.map((e) => e.details)).toEqual([
      { templateId: "inspection", version: 2, name: "Inspection report (2)", objectTypeNames: INSPECTION.objectTypeNames },
      { templateId: "inspection", version: 1, name: "Inspection report", objectTypeNames: INSPECTION.objectTypeNames },
    ]);
    expect(own[0]).toMatchObject({ action: "print_template.saved", subject: "inspection", actor: { uid: USERS.tenantAdmin } });
    // The organization's trail holds the tenant's events and its own.
    const onOrg = await events(PATHS.org, "print_template.saved", "inspection");
    expect(onOrg.map((e) => [e.target, e.details.version])).toEqual([
      [ORG_DOC, 1],
      [TENANT_DOC, 2],
      [TENANT_DOC, 1],
    ]);
    const deleted = await events(PATHS.tenant, "print_template.deleted", "inspection");
    expect(deleted.map((e) => [e.target, e.details])).toEqual([[TENANT_DOC, { templateId: "inspection", version: 2, name: "Inspection report (2)" }]]);
  });

  it("refuses a malformed template id with 400 naming it, before any read of it", async () => {
    for (const [id, problem] of [
      ["__x__", "is reserved (__...__)"],
      ["a%2Fb", "contains a slash"],
      ["a".repeat(129), "is longer than 128 characters"],
      ["%E2%80%AEevil", "contains a line separator or a bidi control"],
      ["tab%09id", "contains a control character"],
    ]) {
      for (const res of [await get(PATHS.tenant, id), await put(PATHS.tenant, id, LETTER), await remove(PATHS.tenant, id)]) {
        expect([res.status, res.json?.message], id).toEqual([400, `Invalid template id: it ${problem}.`]);
      }
    }
  });

  it("refuses a bad template with 400 naming the JSON path of each problem, and writes nothing", async () => {
    expect((await put(PATHS.tenant, "kept", LETTER)).status).toBe(200);
    const kept = await readDoc(`${TENANT_DOC}/printTemplates/kept`);
    for (const [body, message] of [
      [{ ...LETTER, colour: "red" }, "Invalid body: unknown field 'colour'."],
      [{ ...LETTER, sections: [{ title: "S", feilds: [] }] }, "Invalid body: 'sections.0': unknown field 'feilds'."],
      [{ ...LETTER, sections: [{ title: "S", fields: [{ label: "A" }, { label: "B", width: "third" }] }] }, `Invalid body: 'sections.0.fields.1.width': Invalid option: expected one of "full"|"half".`],
      [{ ...LETTER, footer: { right: "{page} / {total}" } }, "Invalid body: 'footer.right': has an unknown placeholder {total}"],
      [{ ...LETTER, sections: Array.from({ length: 201 }, (_, i) => ({ title: `S${i}` })) }, "Invalid body: 'sections': Too big: expected array to have <=200 items."],
      [{ objectTypeNames: [] }, "Invalid body: 'name': Invalid input: expected string, received undefined."],
      // Over 64 KiB of JSON, under the pipeline's 100 KiB.
      [{ ...LETTER, sections: Array.from({ length: 170 }, (_, i) => ({ title: `S${i}`, displayTitle: "x".repeat(190), fields: [{ label: "y".repeat(190) }] })) }, /^Invalid body: the template is \d+ bytes of JSON; at most 65536\.$/],
      [[LETTER], "Invalid body: Invalid input: expected object, received array."],
    ] as const) {
      for (const id of ["kept", "fresh"]) {
        const res = await put(PATHS.tenant, id, body);
        expect(res.status, JSON.stringify(body).slice(0, 100)).toBe(400);
        if (typeof message === "string") expect(res.json.message.startsWith(message), res.json.message).toBe(true);
        else expect(res.json.message).toMatch(message);
      }
    }
    // Over the pipeline's body limit: 413 before any check.
    const huge = await put(PATHS.tenant, "kept", { ...LETTER, name: "x".repeat(110 * 1024) });
    expect(huge.status).toBe(413);
    expect(await readDoc(`${TENANT_DOC}/printTemplates/kept`)).toEqual(kept);
    expect(await readDoc(`${TENANT_DOC}/printTemplates/fresh`)).toBeUndefined();
  });

  it("is for ADMIN only: every other permission gets 401, and nothing is written", async () => {
    for (const res of [await list(PATHS.tenant, "reader"), await get(PATHS.tenant, "kept", "reader"), await put(PATHS.tenant, "kept", { ...LETTER, name: "Reader's" }, "reader"), await remove(PATHS.tenant, "kept", "reader")]) {
      expect([res.status, res.json.message]).toEqual([401, "This route needs the ADMIN permission on the target."]);
    }
    expect(await readDoc(`${TENANT_DOC}/printTemplates/kept`)).toMatchObject({ name: "Letter", version: 1 });
  });

  it("keeps tenants apart: another tenant's admin can neither read, save nor delete them, nor learn that they exist", async () => {
    for (const target of [PATHS.tenant, PATHS.shortTenant, PATHS.division]) {
      for (const res of [await list(target, "otherAdmin"), await get(target, "kept", "otherAdmin"), await put(target, "kept", LETTER, "otherAdmin"), await remove(target, "kept", "otherAdmin")]) {
        expect([res.status, res.json.message], target).toEqual([401, "This route needs the ADMIN permission on the target."]);
      }
    }
    // Through the other tenant's own path: a template of this tenant is not on its chain, answered
    // exactly as an id that exists nowhere.
    const theirs = await get(PATHS.other, "kept", "otherAdmin");
    const nowhere = await get(PATHS.other, "nowhere-at-all", "otherAdmin");
    expect([theirs.status, theirs.json.message]).toEqual([404, "Print template 'kept' is not on this target's chain."]);
    expect([nowhere.status, nowhere.json.message]).toEqual([404, "Print template 'nowhere-at-all' is not on this target's chain."]);
    expect((await remove(PATHS.other, "kept", "otherAdmin")).status).toBe(404);
    expect((await list(PATHS.other, "otherAdmin")).json.data).toEqual([]);
    // The other tenant under this organization's path: 404 (they hold a grant on it), naming nothing of this tenant.
    const crossed = await get(`/organization/${ORG}/tenant/${OTHER_TENANT}`, "kept", "otherAdmin");
    expect(crossed.status).toBe(404);
    expect(crossed.text).not.toContain(TENANT);
    // Their save makes a template of their own, and changes nothing here.
    expect((await put(PATHS.other, "kept", { ...LETTER, name: "Theirs" }, "otherAdmin")).json.data).toMatchObject({ source: OTHER_DOC, version: 1 });
    expect(await readDoc(`${TENANT_DOC}/printTemplates/kept`)).toMatchObject({ name: "Letter", version: 1 });
    expect((await get(PATHS.tenant, "kept")).json.data).toMatchObject({ name: "Letter", source: TENANT_DOC });
  });

  it("holds at most 100 templates of a target's own: the 101st is 409 and writes nothing; a save of an existing one, or a new one after a deletion, goes through", async () => {
    const held = `${DIVISION_DOC}/printTemplates`;
    const batch = firestore().batch();
    for (let i = 0; i < 100; i++) batch.set(firestore().doc(`${held}/t${String(i).padStart(3, "0")}`), { ...LETTER, name: `Letter ${i}`, version: 1 });
    await batch.commit();
    try {
      const refused = await put(PATHS.division, "one-more", LETTER);
      expect(refused.status).toBe(409);
      expect(refused.json.message).toContain("holds 100 print templates");
      expect(await readDoc(`${held}/one-more`)).toBeUndefined();
      expect(await events(PATHS.division, "print_template.saved", "one-more")).toEqual([]);
      // Replacing one of the hundred is a save like any other.
      expect((await put(PATHS.division, "t007", { ...LETTER, name: "Letter 7 (2)" })).json.data).toMatchObject({ version: 2, own: true });
      expect((await remove(PATHS.division, "t042")).status).toBe(200);
      expect((await put(PATHS.division, "one-more", LETTER)).json.data).toMatchObject({ version: 1, source: DIVISION_DOC });
    } finally {
      const all = await firestore().collection(held).get();
      const cleanup = firestore().batch();
      for (const doc of all.docs) cleanup.delete(doc.ref);
      await cleanup.commit();
    }
  });

  it("answers 405 for a method the routes do not take", async () => {
    const res = await call(apiUrl(`${PATHS.tenant}/print-templates`), { method: "POST", auth: as("tenantAdmin"), body: LETTER });
    expect([res.status, res.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
    const one = await call(apiUrl(`${PATHS.tenant}/print-templates/kept`), { method: "POST", auth: as("tenantAdmin"), body: LETTER });
    expect([one.status, one.headers.get("allow")]).toEqual([405, "GET, PUT, DELETE, HEAD"]);
  });
});
