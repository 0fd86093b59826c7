import { describe, expect, it } from "vitest";
import { TARGET_FORMS, targetFromParams } from "../../src/http/target";

describe("targetFromParams", () => {
  it.each([
    [{ siteId: "s" }, { kind: "site", siteId: "s" }],
    [{ tenantId: "t" }, { kind: "tenant", tenantId: "t" }],
    [{ tenantId: "t", divisionId: "d" }, { kind: "division", tenantId: "t", divisionId: "d" }],
    [{ organizationId: "o" }, { kind: "organization", organizationId: "o" }],
    [{ organizationId: "o", tenantId: "t" }, { kind: "tenant", organizationId: "o", tenantId: "t" }],
    [{ organizationId: "o", tenantId: "t", divisionId: "d" }, { kind: "division", organizationId: "o", tenantId: "t", divisionId: "d" }],
  ])("%o -> %o", (params, target) => {
    expect(targetFromParams({ ...params, userId: "ignored" })).toEqual(target);
  });

  it("covers the six forms of SPEC.md, each naming the parameters of the kind it declares", () => {
    expect(TARGET_FORMS).toHaveLength(6);
    for (const form of TARGET_FORMS) {
      const params = Object.fromEntries([...form.path.matchAll(/:(\w+)/g)].map(([, name]) => [name, "x"]));
      expect(targetFromParams(params).kind).toBe(form.kind);
    }
  });

  it("refuses parameters that match no form (a route registered outside TARGET_FORMS)", () => {
    expect(() => targetFromParams({ userId: "u" })).toThrow(/no target parameters/);
  });
});
