import { describe, expect, it } from "vitest";
import { CHECKS, contrastWithWhite } from "../../src/print/settings";

// The checks of stored settings (a value that cannot be used is skipped, and the next target's applies).
describe("CHECKS.footerText, of a stored footer", () => {
  it.each([
    ["Acme North Ltd · Registered in England", "Acme North Ltd · Registered in England"],
    // Stored before one-line fields refused every control character: printed with spaces, not dropped.
    ["a\tb", "a b"],
    ["a\u0000b\u001b[31m", "a b [31m"],
    ["  padded\u2028 ", "padded"],
  ])("uses %j as %j", (stored, used) => {
    expect(CHECKS.footerText(stored, "tenants/t")).toBe(used);
  });

  it.each([["two\nlines"], ["carriage\rreturn"], ["x".repeat(201)], [42]])("skips %j", (stored) => {
    expect(CHECKS.footerText(stored, "tenants/t")).toBeUndefined();
  });
});

describe("contrastWithWhite (WCAG 2's ratio, which an accent colour must reach 3:1 in)", () => {
  it.each([
    ["#ffffff", 1],
    ["#000000", 21],
    ["#767676", 4.54], // the grey WCAG's examples give as just passing 4.5:1
    ["#1f4e79", 8.66], // the default accent
    ["#ff8000", 2.52], // an orange, refused as an accent
  ])("%s is %f:1", (color, ratio) => {
    expect(contrastWithWhite(color)).toBeCloseTo(ratio, 2);
  });
});
