import { describe, expect, it } from "vitest";
import { CHECKS } from "../../src/print/settings";

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
