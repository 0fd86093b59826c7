import { beforeAll, describe, expect, it } from "vitest";
import { call, idTokenFor } from "../helpers";
import { apiUrl } from "./fixtures";

interface Role {
  id: string;
  name: string;
  description: string;
  permissions: string[];
  createdAt: string;
}

describe("GET /api/{target}/roles", () => {
  let admin: string;
  beforeAll(async () => {
    admin = await idTokenFor("north-admin@acme.test");
  });
  const roles = (query = "", target = "/tenant/acme-north", token = admin) => call(apiUrl(`${target}/roles${query}`), { auth: { bearer: token } });

  it("answers the first 50 roles by default, as Role records", async () => {
    const res = await roles();
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ statusCode: 200, message: expect.any(String), data: expect.any(Array) });
    expect(res.json.data).toHaveLength(50);
    for (const role of res.json.data as Role[]) {
      expect(Object.keys(role).sort()).toEqual(["createdAt", "description", "id", "name", "permissions"]);
      expect(new Date(role.createdAt).toISOString()).toBe(role.createdAt);
      expect(Array.isArray(role.permissions)).toBe(true);
    }
  });

  it("orders by name, then id, and pages through every role exactly once", async () => {
    const all: Role[] = [];
    for (let offset = 0; ; offset += 10) {
      const page = (await roles(`?limit=10&offset=${offset}`)).json.data as Role[];
      all.push(...page);
      if (page.length < 10) break;
    }
    expect(all).toHaveLength(65);
    expect(new Set(all.map((r) => r.id)).size).toBe(65);
    const sorted = [...all].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    expect(all.map((r) => r.id)).toEqual(sorted.map((r) => r.id));
    const auditors = all.filter((r) => r.name === "Auditor").map((r) => r.id);
    expect(auditors).toEqual([...auditors].sort());
    expect(auditors.length).toBeGreaterThan(1);
  });

  it("honours the bounds: limit 200, offset past the end", async () => {
    expect((await roles("?limit=200")).json.data).toHaveLength(65);
    expect((await roles("?offset=10000")).json.data).toEqual([]);
    expect((await roles("?limit=1&offset=64")).json.data).toHaveLength(1);
  });

  it.each(["?limit=201", "?offset=10001", "?limit=1.5", "?limit=", "?offset=x", "?limit=1&limit=2", "?Limit=5"])("answers 400 naming the parameter for %s", async (query) => {
    const res = await roles(query);
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/limit|offset|Limit/);
  });

  it("shows only the target's own roles", async () => {
    const south = await idTokenFor("south-admin@acme.test");
    const res = await roles("", "/tenant/acme-south", south);
    expect(res.status).toBe(200);
    expect(res.json.data).toHaveLength(1);
    const org = await roles("", "/organization/acme", await idTokenFor("org-admin@acme.test"));
    expect(org.json.data).toHaveLength(3);
  });

  it("needs ADMIN: MANAGE_PEOPLE and READ are refused with 401", async () => {
    for (const email of ["north-people@acme.test", "north-reader@acme.test"]) {
      const res = await roles("", "/tenant/acme-north", await idTokenFor(email));
      expect(res.status).toBe(401);
    }
  });

  it("answers 400 for a division target", async () => {
    const res = await roles("", "/organization/acme/tenant/acme-north/division/ops", await idTokenFor("org-admin@acme.test"));
    expect(res.status).toBe(400);
  });
});
