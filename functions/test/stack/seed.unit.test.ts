import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT_DIR } from "../../stack/config";
import { decodeValue, fixtureSchema, readFixture } from "../../stack/seed";

const DEMO = join(ROOT_DIR, "emulator-data", "demo.json");

describe("fixture format", () => {
  it("turns $timestamp markers into timestamps, at any depth, and leaves everything else", () => {
    const decoded = decodeValue(
      { at: { $timestamp: "2026-03-01T09:30:00.000Z" }, list: [{ $timestamp: "2026-01-01T00:00:00Z" }, 1], plain: { a: null, b: "x" } },
      (d) => `T(${d.toISOString()})`,
    );
    expect(decoded).toEqual({ at: "T(2026-03-01T09:30:00.000Z)", list: ["T(2026-01-01T00:00:00.000Z)", 1], plain: { a: null, b: "x" } });
  });

  it("rejects an invalid $timestamp", () => {
    expect(() => decodeValue({ $timestamp: "yesterday" }, (d) => d)).toThrow(/invalid \$timestamp/);
  });

  it("rejects collection paths, empty segments and unknown top-level keys", () => {
    expect(fixtureSchema.safeParse({ documents: { organizations: {} } }).success).toBe(false);
    expect(fixtureSchema.safeParse({ documents: { "organizations//x/y": {} } }).success).toBe(false);
    expect(fixtureSchema.safeParse({ documentz: {} }).success).toBe(false);
    expect(fixtureSchema.safeParse({ users: [{ uid: "u", email: "not-an-email", password: "secret1" }] }).success).toBe(false);
  });
});

describe("the demo fixture (emulator-data/demo.json)", () => {
  const fixture = readFixture(DEMO);
  const docs = fixture.documents;
  const paths = Object.keys(docs);

  it("has the targets of DESIGN.md: an organization with two tenants, one with a division, a standalone tenant, a site", () => {
    expect(docs["organizations/acme"]).toBeDefined();
    expect(paths.filter((p) => /^tenants\/[^/]+$/.test(p) && docs[p].organizationId === "acme")).toHaveLength(2);
    expect(paths.some((p) => /^tenants\/[^/]+\/divisions\/[^/]+$/.test(p))).toBe(true);
    expect(paths.some((p) => /^tenants\/[^/]+$/.test(p) && docs[p].organizationId === null)).toBe(true);
    expect(paths.some((p) => /^sites\/[^/]+$/.test(p))).toBe(true);
  });

  it("has only users whose address is verified, so that send-pdf's note names them by it", () => {
    expect(fixture.users.length).toBeGreaterThan(0);
    for (const user of fixture.users) expect(user.emailVerified, user.uid).toBe(true);
  });

  it("has a user for each permission, and one with none", () => {
    const granted = paths.filter((p) => p.includes("/members/")).flatMap((p) => docs[p].permissions as string[]);
    for (const permission of ["READ", "MANAGE_FORM", "MANAGE_OBJECTS", "MANAGE_PEOPLE", "ADMIN"]) expect(granted).toContain(permission);
    const members = new Set(paths.filter((p) => p.includes("/members/")).map((p) => p.split("/").pop()));
    expect(fixture.users.some((u) => !members.has(u.uid))).toBe(true);
  });

  it("has a soft-deleted user, feature flags on and off, and more than 60 roles in one tenant", () => {
    expect(paths.some((p) => p.includes("/users/") && docs[p].deletedAt)).toBe(true);
    const flags = paths.map((p) => (docs[p].features as Record<string, boolean> | undefined)?.PEOPLE_MANAGEMENT);
    expect(flags).toContain(true);
    expect(flags).toContain(false);
    const rolesPerTarget = new Map<string, number>();
    for (const p of paths.filter((p) => p.includes("/roles/"))) rolesPerTarget.set(p.split("/roles/")[0], (rolesPerTarget.get(p.split("/roles/")[0]) ?? 0) + 1);
    expect(Math.max(...rolesPerTarget.values())).toBeGreaterThan(60);
  });

  it("has auth ownership held by the current tenant, by another tenant, and by nobody", () => {
    const owner = (uid: string) => docs[`authOwnership/${uid}`]?.ownerPath;
    const northUsers = paths.filter((p) => p.startsWith("tenants/acme-north/users/")).map((p) => p.split("/").pop()!);
    expect(northUsers.some((u) => owner(u) === "tenants/acme-north")).toBe(true);
    expect(northUsers.some((u) => owner(u) !== undefined && owner(u) !== "tenants/acme-north")).toBe(true);
    expect(northUsers.some((u) => owner(u) === undefined)).toBe(true);
  });

  it("has object instances using every field type, with non-Latin text, short and long", () => {
    const instances = paths.filter((p) => p.includes("/objectInstances/")).map((p) => docs[p]);
    const fields = instances.flatMap((i) => (i.sections as { fields: { type: string; value: unknown }[] }[]).flatMap((s) => s.fields));
    const types = new Set(fields.map((f) => f.type));
    for (const t of ["text", "longtext", "number", "date", "datetime", "boolean", "choice", "multichoice", "email", "url", "table"]) expect(types).toContain(t);
    const text = JSON.stringify(instances);
    expect(text).toMatch(/[\u0370-\u03ff]/); // Greek
    expect(text).toMatch(/[\u0400-\u04ff]/); // Cyrillic
    const sizes = instances.map((i) => (i.sections as { fields: unknown[] }[]).reduce((n, s) => n + s.fields.length, 0));
    expect(Math.min(...sizes)).toBeLessThan(40);
    expect(Math.max(...sizes)).toBeGreaterThan(250);
  });

  it("stores table rows as objects, since Firestore forbids arrays directly inside arrays", () => {
    const rows = JSON.stringify(docs).match(/"rows":\s*\[\s*\[/);
    expect(rows).toBeNull();
  });

  it("refers only to users it defines", () => {
    const uids = new Set(fixture.users.map((u) => u.uid));
    for (const p of paths.filter((p) => /\/(members|users)\/|^authOwnership\//.test(p))) expect(uids, p).toContain(p.split("/").pop());
  });
});
