import { describe, expect, it } from "vitest";
import { PDF_PREFIX } from "../../src/print/documents";
import { LIFECYCLE, STORED_PDF_DAYS, corsRule } from "../../stack/bucketRules";

describe("the bucket's lifecycle rule (stack/bucketRules.ts)", () => {
  it("deletes stored PDFs only, after STORED_PDF_DAYS days", () => {
    expect(LIFECYCLE.rule).toEqual([{ action: { type: "Delete" }, condition: { age: STORED_PDF_DAYS, matchesPrefix: [PDF_PREFIX] } }]);
    expect(STORED_PDF_DAYS).toBeGreaterThanOrEqual(1);
  });
});

describe("the bucket's CORS rule (stack/bucketRules.ts)", () => {
  it("lets the exact origins of CORS_ORIGINS GET objects (a signed URL fetched by the preview), nothing else", () => {
    expect(corsRule("https://app.example.com, http://127.0.0.1:5000")).toEqual([{ origin: ["https://app.example.com", "http://127.0.0.1:5000"], method: ["GET"], responseHeader: ["Content-Type", "Content-Length"], maxAgeSeconds: 3600 }]);
    expect(corsRule("")).toEqual([]);
  });

  it("refuses patterns: CORS_ORIGINS is an exact list", () => {
    for (const bad of ["*", "https://*.example.com", "https://app.example.com/path", "app.example.com"]) expect(() => corsRule(bad), bad).toThrow(/not an exact origin/);
  });
});
