// print/templates/store.ts against the stack's Firestore: which template an instance prints with
// (templateFor), and what a target's chain holds (templatesOnChain). The chains are built here as the
// pipeline builds them (root first; a site alone), over this file's own documents.

import { logger } from "firebase-functions/logger";
import { Timestamp, type DocumentData } from "firebase-admin/firestore";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "../../src/firebase";
import type { TargetNode } from "../../src/http/access";
import { HttpError } from "../../src/http/errors";
import { templateDocument, templateFor, templateOnChain, templatesOnChain } from "../../src/print/templates/store";
import type { PrintTemplate } from "../../src/print/templates/schema";
import { stackAdminApp } from "../../stack/seedStack";
import { firestore, freshUid } from "../api/fixtures";

const ORG = `organizations/${freshUid("store-org")}`;
const TENANT = `tenants/${freshUid("store-tenant")}`;
const DIVISION = `${TENANT}/divisions/ops`;
const OTHER_TENANT = `tenants/${freshUid("store-other")}`;
const SITE = `sites/${freshUid("store-site")}`;

const node = (path: string): TargetNode => ({ path, data: {} });
const CHAINS = {
  org: [node(ORG)],
  tenant: [node(ORG), node(TENANT)],
  division: [node(ORG), node(TENANT), node(DIVISION)],
  other: [node(OTHER_TENANT)],
  site: [node(SITE)],
};

const TYPE = "Store Test Inspection";
const template = (name: string, objectTypeNames: string[] = [], extra: Partial<PrintTemplate> = {}): PrintTemplate => ({ name, objectTypeNames, ...extra });

async function save(target: string, id: string, value: DocumentData, version = 1): Promise<void> {
  await firestore().doc(`${target}/printTemplates/${id}`).set(templateDocument(value as PrintTemplate, version, Timestamp.now(), "store-test"));
}

describe("print templates on a target's chain (store.ts)", () => {
  beforeAll(async () => {
    // The store's own Firestore (src/firebase.ts) on the stack's app.
    stackAdminApp();
    db();
    await Promise.all([
      // The same id at every level: the nearest wins.
      save(ORG, "report", template("Org report", [TYPE]), 3),
      save(TENANT, "report", template("Tenant report", [], { others: "hide" }), 2),
      // Only on the organization.
      save(ORG, "letter", template("Org letter")),
      // By object type: the tenant lists it in two templates (the smaller id wins), the organization in one.
      save(TENANT, "b-inspection", template("Tenant B", [TYPE, "Other Type"])),
      save(TENANT, "c-inspection", template("Tenant C", [TYPE])),
      save(ORG, "a-inspection", template("Org A", [TYPE])),
      // Another tenant's and a site's: never on the chains above.
      save(OTHER_TENANT, "secret", template("Other tenant's", [TYPE])),
      save(SITE, "site-only", template("Site's", ["Site Type"])),
    ]);
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  describe("templateFor with a template id", () => {
    it("finds the nearest template of that id: the target's own first, then upwards", async () => {
      expect(await templateFor(CHAINS.division, TYPE, "report")).toEqual({
        template: { name: "Tenant report", objectTypeNames: [], others: "hide", id: "report", version: 2 },
        templateId: "report",
        version: 2,
        source: TENANT,
      });
      expect(await templateFor(CHAINS.org, TYPE, "report")).toMatchObject({ template: { name: "Org report", id: "report", version: 3 }, source: ORG });
      expect(await templateFor(CHAINS.division, "Any Type", "letter")).toMatchObject({ template: { name: "Org letter" }, source: ORG });
    });

    it("is a 404 for an id not on the chain, the same whether it exists in another tenant or nowhere", async () => {
      const refusal = async (chain: TargetNode[], id: string) => {
        try {
          await templateFor(chain, TYPE, id);
        } catch (error) {
          return error;
        }
        throw new Error(`found ${id}`);
      };
      const elsewhere = await refusal(CHAINS.tenant, "secret");
      const nowhere = await refusal(CHAINS.tenant, "nowhere");
      expect(elsewhere).toBeInstanceOf(HttpError);
      expect([(elsewhere as HttpError).statusCode, (elsewhere as HttpError).message]).toEqual([404, "Print template 'secret' is not on this target's chain."]);
      expect([(nowhere as HttpError).statusCode, (nowhere as HttpError).message]).toEqual([404, "Print template 'nowhere' is not on this target's chain."]);
      // A site stands alone: nothing of the organizations or tenants reaches it.
      expect(((await refusal(CHAINS.site, "letter")) as HttpError).statusCode).toBe(404);
      expect(await templateFor(CHAINS.site, "Site Type", "site-only")).toMatchObject({ source: SITE });
    });
  });

  describe("templateFor by the instance's object type", () => {
    it("takes the nearest target's template listing it; within one target the smallest id", async () => {
      expect(await templateFor(CHAINS.division, TYPE)).toMatchObject({ templateId: "b-inspection", source: TENANT, template: { name: "Tenant B" } });
      expect(await templateFor(CHAINS.tenant, "Other Type")).toMatchObject({ templateId: "b-inspection", source: TENANT });
      // The organization alone: its smallest id that lists the type (a-inspection before report).
      expect(await templateFor(CHAINS.org, TYPE)).toMatchObject({ templateId: "a-inspection", source: ORG, version: 1 });
    });

    it("is undefined (the default layout) when no template on the chain lists it, or the instance has no usable type", async () => {
      expect(await templateFor(CHAINS.division, "Unlisted Type")).toBeUndefined();
      expect(await templateFor(CHAINS.site, TYPE)).toBeUndefined(); // the other tenant's and the organization's do not reach a site
      for (const type of [undefined, null, "", 42, ["Store Test Inspection"], "x".repeat(201)]) expect(await templateFor(CHAINS.division, type)).toBeUndefined();
    });
  });

  describe("templatesOnChain", () => {
    it("lists every usable template of the chain, nearest first, by id within a target, with source and own", async () => {
      const listed = (await templatesOnChain(CHAINS.division)).map((t) => [t.templateId, t.source, t.own, t.version]);
      expect(listed).toEqual([
        ["b-inspection", TENANT, false, 1],
        ["c-inspection", TENANT, false, 1],
        ["report", TENANT, false, 2],
        ["a-inspection", ORG, false, 1],
        ["letter", ORG, false, 1],
        ["report", ORG, false, 3],
      ]);
      expect((await templatesOnChain(CHAINS.tenant)).filter((t) => t.own).map((t) => t.templateId)).toEqual(["b-inspection", "c-inspection", "report"]);
      expect((await templatesOnChain(CHAINS.site)).map((t) => [t.templateId, t.own])).toEqual([["site-only", true]]);
      expect(await templatesOnChain(CHAINS.other)).toMatchObject([{ templateId: "secret", source: OTHER_TENANT, own: true, updatedBy: "store-test" }]);
    });
  });

  describe("a stored document that fails the schema (written by another system)", () => {
    it("is skipped, as if absent, and logged: never an error", async () => {
      const division = `${freshUid("corrupt")}`;
      const chain = [node(ORG), node(TENANT), node(`${TENANT}/divisions/${division}`)];
      const path = (id: string) => `${TENANT}/divisions/${division}/printTemplates/${id}`;
      await Promise.all([
        // Same id as the tenant's: its own copy is unusable, so the tenant's serves.
        firestore().doc(path("report")).set({ name: "Broken", objectTypeNames: [], colour: "red", version: 1 }),
        // Lists the type with the smallest id, but its width is not one: the next one of the level serves.
        firestore().doc(path("a-broken")).set({ name: "Broken A", objectTypeNames: [TYPE], sections: [{ title: "S", fields: [{ label: "F", width: "third" }] }], version: 4 }),
        firestore().doc(path("z-good")).set(templateDocument(template("Division Z", [TYPE]), 1, Timestamp.now(), "store-test")),
        // A template without a version, and one whose fields are of other types.
        firestore().doc(path("no-version")).set({ name: "No version", objectTypeNames: [TYPE] }),
        firestore().doc(path("wrong-types")).set({ name: 42, objectTypeNames: "all", version: 2 }),
      ]);
      const warn = vi.spyOn(logger, "warn");

      expect(await templateFor(chain, TYPE, "report")).toMatchObject({ source: TENANT, template: { name: "Tenant report" } });
      expect(await templateFor(chain, TYPE)).toMatchObject({ templateId: "z-good", source: `${TENANT}/divisions/${division}` });
      const own = (await templatesOnChain(chain)).filter((t) => t.own).map((t) => t.templateId);
      expect(own).toEqual(["z-good"]);
      expect(await templateOnChain(chain, "no-version")).toBeUndefined();

      const logged = warn.mock.calls.map(([message]) => String(message));
      expect(logged).toContain(`Print template ${path("report")} cannot be used and is skipped: '(document)' (unrecognized_keys)`);
      expect(logged).toContain(`Print template ${path("a-broken")} cannot be used and is skipped: 'sections.0.fields.0.width' (invalid_value)`);
      expect(logged).toContain(`Print template ${path("no-version")} cannot be used and is skipped: 'version' (not a whole number from 1)`);
      expect(logged.some((m) => m.startsWith(`Print template ${path("wrong-types")} cannot be used`))).toBe(true);
      // The stored text is never logged.
      expect(logged.join("\n")).not.toMatch(/\bred\b|colour|third|Broken/);
    });
  });

  it("reads no cache: a saved change is what the next lookup finds", async () => {
    const target = `tenants/${freshUid("store-fresh")}`;
    const chain = [node(target)];
    await save(target, "live", template("First", ["Live Type"]));
    expect(await templateFor(chain, "Live Type")).toMatchObject({ version: 1, template: { name: "First" } });
    await save(target, "live", template("Second", ["Live Type"]), 2);
    expect(await templateFor(chain, "Live Type")).toMatchObject({ version: 2, template: { name: "Second" } });
    expect(await templateFor(chain, "Live Type", "live")).toMatchObject({ version: 2 });
    await firestore().doc(`${target}/printTemplates/live`).delete();
    expect(await templateFor(chain, "Live Type")).toBeUndefined();
  });
});
