import { describe, expect, it } from "vitest";
import { authorize, effectivePermissions, featureEnabled, PERMISSIONS, type Feature, type Permission, type TargetNode } from "../../src/http/access";
import { HttpError } from "../../src/http/errors";

const node = (path: string, features?: Record<string, unknown>): TargetNode => ({ path, data: features ? { features } : {} });

/** Each chain a target path form resolves to (DESIGN.md hierarchy), root first. */
const CHAINS: Record<string, TargetNode[]> = {
  "/organization/O": [node("organizations/O")],
  "/organization/O/tenant/T": [node("organizations/O"), node("tenants/T")],
  "/organization/O/tenant/T/division/D": [node("organizations/O"), node("tenants/T"), node("tenants/T/divisions/D")],
  "/tenant/T (standalone)": [node("tenants/T")],
  "/tenant/T/division/D (standalone)": [node("tenants/T"), node("tenants/T/divisions/D")],
  "/site/S": [node("sites/S")],
};

describe("effectivePermissions", () => {
  it("is the union of the grants on every level, ignoring unknown names and malformed grants", () => {
    expect(effectivePermissions([["READ"], undefined, ["ADMIN", "OWNER"], "ADMIN", [42]])).toEqual(new Set(["READ", "ADMIN"]));
    expect(effectivePermissions([])).toEqual(new Set());
  });
});

describe.each(Object.entries(CHAINS))("authorization on %s", (_form, chain) => {
  it.each(chain.map((n, level) => [n.path, level] as const))("a grant on %s applies to the target", (_path, level) => {
    for (const permission of PERMISSIONS) {
      const grants = chain.map((_, i) => (i === level ? [permission] : undefined));
      const access = { chain, permissions: effectivePermissions(grants) };
      expect(() => authorize(access, [permission])).not.toThrow();
      const others = PERMISSIONS.filter((p) => p !== permission);
      expect(() => authorize(access, others)).toThrow(HttpError);
    }
  });

  it("refuses with 401 naming the missing permissions; ADMIN is not a wildcard", () => {
    const access = { chain, permissions: effectivePermissions(chain.map(() => ["ADMIN"])) };
    const refusal = catchError(() => authorize(access, ["MANAGE_PEOPLE"]));
    expect(refusal).toMatchObject({ statusCode: 401, message: expect.stringContaining("MANAGE_PEOPLE") });
    expect(catchError(() => authorize({ chain, permissions: new Set() }, ["ADMIN", "MANAGE_PEOPLE"]))?.message).toMatch(/one of the permissions ADMIN, MANAGE_PEOPLE/);
  });

  it.each([
    ["off by default", [], false],
    ["on at the top", [[0, true]], true],
    ["on at the top, off at the target", [[0, true], [-1, false]], false],
    ["off at the top, on at the target", [[0, false], [-1, true]], true],
  ] as [string, [number, boolean][], boolean][])("the flag, %s", (_name, settings, expected) => {
    const withFlags = chain.map((n) => ({ ...n, data: {} as Record<string, unknown> }));
    for (const [at, value] of settings) {
      const index = at < 0 ? withFlags.length + at : at;
      withFlags[index].data.features = { ...(withFlags[index].data.features as object), PEOPLE_MANAGEMENT: value };
    }
    expect(featureEnabled(withFlags, "PEOPLE_MANAGEMENT")).toBe(expected);
    const access = { chain: withFlags, permissions: new Set<Permission>(["ADMIN"]) };
    if (expected) expect(() => authorize(access, ["ADMIN"], "PEOPLE_MANAGEMENT")).not.toThrow();
    else expect(catchError(() => authorize(access, ["ADMIN"], "PEOPLE_MANAGEMENT"))).toMatchObject({ statusCode: 401, message: expect.stringContaining("PEOPLE_MANAGEMENT") });
  });
});

describe("featureEnabled", () => {
  it("takes the nearest explicit boolean walking up, skipping non-booleans", () => {
    const chain = [node("organizations/O", { PEOPLE_MANAGEMENT: true }), node("tenants/T", { PEOPLE_MANAGEMENT: "yes" }), node("tenants/T/divisions/D", {})];
    expect(featureEnabled(chain, "PEOPLE_MANAGEMENT")).toBe(true);
    expect(featureEnabled(chain, "OTHER" as Feature)).toBe(false);
  });
});

function catchError(fn: () => void): HttpError | undefined {
  try {
    fn();
  } catch (error) {
    return error as HttpError;
  }
  return undefined;
}
