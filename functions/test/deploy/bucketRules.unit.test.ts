import { describe, expect, it } from "vitest";
import { PDF_PREFIX } from "../../src/print/documents";
import { LIFECYCLE, STORED_PDF_DAYS } from "../../stack/bucketRules";

describe("the bucket's lifecycle rule (stack/bucketRules.ts)", () => {
  it("deletes stored PDFs only, after STORED_PDF_DAYS days", () => {
    expect(LIFECYCLE.rule).toEqual([{ action: { type: "Delete" }, condition: { age: STORED_PDF_DAYS, matchesPrefix: [PDF_PREFIX] } }]);
    expect(STORED_PDF_DAYS).toBeGreaterThanOrEqual(1);
  });
});
