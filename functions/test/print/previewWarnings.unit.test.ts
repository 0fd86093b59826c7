// The preview's Print-Warnings header (print/routes/preview.ts): the warnings as a percent-encoded JSON
// list, cut to 8 KiB with a last entry counting the rest (a larger header failed the whole response).

import { describe, expect, it } from "vitest";
import { WARNINGS_HEADER_BYTES, warningsHeader } from "../../src/print/routes/preview";

const read = (header: string) => JSON.parse(decodeURIComponent(header)) as string[];

describe("the Print-Warnings header", () => {
  it("is encodeURIComponent(JSON.stringify(warnings)) while they fit", () => {
    const warnings = ["section 'Équipement & Détails' is not in the instance", 'field "Prüfer, 検査員" is not in section \'A\'', ""];
    expect(warningsHeader(warnings)).toBe(encodeURIComponent(JSON.stringify(warnings)));
    expect(warningsHeader([])).toBe("%5B%5D");
  });

  it("keeps to 8 KiB, the warnings that fit first and then how many more there are", () => {
    // What a 64 KiB template can cause: hundreds of 200-character labels the instance lacks, some not ASCII.
    const warnings = Array.from({ length: 300 }, (_, i) => `field '${`Fehlendes Prüffeld ${i} `.padEnd(200, "ü")}' is not in section 'Inspection'`);
    const header = warningsHeader(warnings);
    expect(header.length).toBeLessThanOrEqual(WARNINGS_HEADER_BYTES);
    const shown = read(header);
    expect(shown.length).toBeGreaterThan(1);
    expect(shown.slice(0, -1)).toEqual(warnings.slice(0, shown.length - 1));
    expect(shown.at(-1)).toBe(`and ${300 - (shown.length - 1)} more warning(s)`);
    // One warning alone too large for the header is counted, not cut.
    expect(read(warningsHeader(["x".repeat(WARNINGS_HEADER_BYTES)]))).toEqual(["and 1 more warning(s)"]);
  });
});
