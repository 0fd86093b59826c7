import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { idProblem, MAX_ID_LENGTH } from "../../src/http/ids";
import { targetFromParams } from "../../src/http/target";

describe("idProblem", () => {
  it.each([
    ["", /empty/],
    ["a/b", /slash/],
    [".", /dot/],
    ["..", /dot/],
    ["__x__", /reserved/],
    ["____", /reserved/],
    ["a\u0000b", /control/],
    ["tab\there", /control/],
    ["next\u0085line", /control/],
    ["csi\u009b", /control/],
    ["line\u2028separator", /separator/],
    ["exe.\u202egpj", /bidi/],
    ["isolate\u2066x\u2069", /bidi/],
    ["mark\u200f", /bidi/],
    ["x".repeat(MAX_ID_LENGTH + 1), /longer/],
  ])("refuses %j", (id, reason) => {
    expect(idProblem(id)).toMatch(reason);
  });

  it.each(["acme-north", "Ωmega", "Ольга", "a.b", "...", "__x", "x__", "x".repeat(MAX_ID_LENGTH), "role 1", "検査"])("accepts %j", (id) => {
    expect(idProblem(id)).toBeUndefined();
  });

  it("accepts exactly the ids Firestore can hold, for any string (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (id) => {
        const firestoreForbids = id === "" || id.includes("/") || id === "." || id === ".." || /^__.*__$/.test(id);
        // eslint-disable-next-line no-control-regex
        const refusedHere = firestoreForbids || id.length > MAX_ID_LENGTH || /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(id);
        expect(idProblem(id) !== undefined).toBe(refusedHere);
      }),
      { numRuns: 2_000 },
    );
  });

  it("a decoded path segment with an encoded slash can never become a target id (property)", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        const decoded = decodeURIComponent(encodeURIComponent(a) + "%2F" + encodeURIComponent(b));
        expect(() => targetFromParams({ tenantId: decoded })).toThrow(/Invalid tenant id: it contains a slash/);
      }),
    );
  });

  it("every parsed target carries exactly the ids it was given (property)", () => {
    const id = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => idProblem(s) === undefined);
    fc.assert(
      fc.property(id, id, id, (o, t, d) => {
        expect(targetFromParams({ organizationId: o, tenantId: t, divisionId: d })).toEqual({ kind: "division", organizationId: o, tenantId: t, divisionId: d });
        expect(targetFromParams({ siteId: o })).toEqual({ kind: "site", siteId: o });
      }),
    );
  });
});
