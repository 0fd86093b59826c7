import { describe, expect, it } from "vitest";
import { CHECKS, accentColorProblem, contrastWithWhite, effectiveSettings, recordedSettings, shownSettings } from "../../src/print/settings";

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

describe("contrastWithWhite (WCAG 2's ratio, which a new accent colour must reach 4.5:1 in)", () => {
  it.each([
    ["#ffffff", 1],
    ["#000000", 21],
    ["#767676", 4.54], // the grey WCAG's examples give as just passing 4.5:1
    ["#1f4e79", 8.66], // a dark blue
    ["#1c4073", 10.34], // the default accent
    ["#ff8000", 2.52], // an orange
  ])("%s is %f:1", (color, ratio) => {
    expect(contrastWithWhite(color)).toBeCloseTo(ratio, 2);
  });
});

describe("accentColorProblem: a new accent needs 4.5:1 against white (WCAG 2 AA: headings are 12 pt bold)", () => {
  it.each(["#767676", "#1c4073", "#000000"])("takes %s", (color) => {
    expect(accentColorProblem(color)).toBeUndefined();
  });

  it.each([
    ["#777777", "4.47"], // 4.478: rounded down, never shown as the minimum it misses
    ["#ff8000", "2.51"],
    ["#ffffff", "1.00"],
  ])("refuses %s, naming its contrast %s:1", (color, shown) => {
    expect(accentColorProblem(color)).toBe(`must be dark enough to read on the white page: its contrast against white is ${shown}:1, at least 4.5:1 is needed`);
  });
});

describe("effectiveSettings: the locale where none is set", () => {
  const chain = (print?: Record<string, unknown>) => [{ path: "organizations/o", data: {} }, { path: "tenants/t", data: print ? { print } : {} }];

  it("is the text's (\"\"), answered and recorded as en-GB with languageFromText", () => {
    const settings = effectiveSettings(chain());
    expect(settings.locale).toBe("");
    expect(shownSettings(settings)).toMatchObject({ locale: "en-GB", languageFromText: true });
    expect(recordedSettings(settings)).toMatchObject({ locale: "en-GB", languageFromText: true, timeZone: "UTC" });
  });

  it.each([
    ["a target", chain({ locale: "en-GB" }), {}],
    ["the request", chain(), { locale: "en-GB" }],
  ])("is the locale %s sets, en-GB included", (_by, targets, overrides) => {
    const settings = effectiveSettings(targets, overrides);
    expect(settings.locale).toBe("en-GB");
    expect(shownSettings(settings)).toMatchObject({ locale: "en-GB", languageFromText: false });
  });
});
