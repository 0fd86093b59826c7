import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PRINT_LIMITS, assertPdfWithinLimits, assertWithinLimits, layoutLimitExceeded, measureInstance } from "../../src/print/limits";
import { LayoutLimitExceeded, renderInstancePdf, type PrintableInstance } from "../../src/print/render";
import { ROOT_DIR } from "../../stack/config";

const table = (columns: number, rows: number, cell = "") => ({
  columns: Array.from({ length: columns }, (_, i) => `C${i}`),
  rows: Array.from({ length: rows }, () => ({ cells: Array.from({ length: columns }, () => cell) })),
});
const instanceWith = (fields: unknown[], sections = 1) => ({
  title: "T",
  objectTypeName: "X",
  sections: Array.from({ length: sections }, (_, i) => ({ title: `S${i}`, fields: i === 0 ? fields : [] })),
});

describe("measureInstance", () => {
  it("counts sections, fields, table columns, rows and cells, characters (keys included) and values", () => {
    const m = measureInstance(instanceWith([{ label: "Tbl", type: "table", value: table(3, 4, "ab") }, { label: "L", type: "text", value: "hello" }], 2));
    expect(m).toMatchObject({ sections: 2, fields: 2, tableColumns: 3, tableRows: 4, tableCells: 12 });
    expect(m.characters).toBeGreaterThan(12 * 2 + 5);
    expect(m.values).toBeGreaterThan(12);
  });

  it("counts rows given as plain arrays too, and ignores what is not a table", () => {
    const m = measureInstance(instanceWith([{ label: "T", type: "table", value: { columns: ["a", "b"], rows: [["1", "2"], ["3"]] } }, { label: "N", type: "text", value: { rows: [[1, 2, 3]] } }]));
    expect(m).toMatchObject({ tableColumns: 2, tableRows: 2, tableCells: 4 });
  });

  it("counts a table as laid out: rows times the widest row, short rows padded, a bare array of rows too", () => {
    // A few KB stored, 360,000 cells laid out: CI's hostile document that blocked an instance for 5 s.
    const shortRows = { columns: Array.from({ length: 90 }, (_, i) => `C${i}`), rows: Array.from({ length: 4_000 }, () => ({ cells: ["x"] })) };
    expect(measureInstance(instanceWith([{ label: "T", type: "table", value: shortRows }]))).toMatchObject({ tableColumns: 90, tableRows: 4_000, tableCells: 360_000 });
    // One long row under a one-column header widens every row.
    const longRow = { columns: ["only"], rows: [Array.from({ length: 2_000 }, () => "x"), ...Array.from({ length: 99 }, () => ["y"])] };
    expect(measureInstance(instanceWith([{ label: "T", type: "table", value: longRow }]))).toMatchObject({ tableColumns: 2_000, tableRows: 100, tableCells: 200_000 });
    // A table without rows, or without cells, prints as empty: nothing to count.
    expect(measureInstance(instanceWith([{ label: "T", type: "table", value: { columns: Array.from({ length: 500 }, (_, i) => `C${i}`), rows: [] } }]))).toMatchObject({ tableColumns: 0, tableCells: 0 });
    expect(measureInstance(instanceWith([{ label: "T", type: "table", value: [[], []] }]))).toMatchObject({ tableRows: 0, tableCells: 0 });
    const bareRows = Array.from({ length: 30 }, () => ["a", "b", "c"]);
    expect(measureInstance(instanceWith([{ label: "T", type: "table", value: bareRows }]))).toMatchObject({ tableColumns: 3, tableRows: 30, tableCells: 90 });
  });

  it("the demo's largest instance (the 22-page audit) uses at most a tenth of any limit", () => {
    const demo = JSON.parse(readFileSync(join(ROOT_DIR, "emulator-data", "demo.json"), "utf8")).documents;
    const m = measureInstance(demo["tenants/acme-north/objectInstances/audit-long"]);
    for (const [key, value] of Object.entries(m)) expect(value / PRINT_LIMITS[key as keyof typeof m], key).toBeLessThanOrEqual(0.1);
  });
});

describe("assertWithinLimits", () => {
  it("refuses the review's 5 KB document (a table of 1,000 columns x 1,000 empty rows) with 422 naming the columns", () => {
    const document = instanceWith([{ label: "Grid", type: "table", value: table(1_000, 1_000) }]);
    expect(() => assertWithinLimits(document)).toThrow(expect.objectContaining({ statusCode: 422, message: "The object instance is too large to print: it has 1,000 columns in one table; the limit is 100." }));
  });

  it.each([
    ["columns in one table", instanceWith([{ label: "T", type: "table", value: table(PRINT_LIMITS.tableColumns + 1, 1) }])],
    ["table rows", instanceWith([{ label: "T", type: "table", value: table(1, PRINT_LIMITS.tableRows + 1) }])],
    ["table cells (rows times columns, empty ones included)", instanceWith([{ label: "T", type: "table", value: table(PRINT_LIMITS.tableColumns, PRINT_LIMITS.tableCells / PRINT_LIMITS.tableColumns + 1) }])],
    ["characters of text", instanceWith([{ label: "L", type: "longtext", value: "x".repeat(PRINT_LIMITS.characters + 1) }])],
    // Three bytes a character: a third of the character limit, the most a Firestore document holds.
    ["bytes of text (UTF-8)", instanceWith([{ label: "L", type: "longtext", value: "क".repeat(PRINT_LIMITS.textBytes / 3 + 1) }])],
    ["fields", instanceWith(Array.from({ length: PRINT_LIMITS.fields + 1 }, () => ({ label: "", type: "text", value: null })))],
    ["sections", instanceWith([], PRINT_LIMITS.sections + 1)],
    ["values", instanceWith([{ label: "M", type: "multichoice", value: Array.from({ length: PRINT_LIMITS.values + 1 }, () => 1) }])],
  ])("refuses one step past the limit of %s, naming it", (what, document) => {
    expect(() => assertWithinLimits(document)).toThrow(expect.objectContaining({ statusCode: 422, message: expect.stringContaining(` ${what}; the limit is `) }));
  });

  it("accepts every generated instance within the limits and refuses every one past one, naming the first limit it breaks", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 80 }), fc.integer({ min: 0, max: 1_500 }), fc.integer({ min: 0, max: 30_000 }), fc.integer({ min: 1, max: 40 }), (columns, rows, textLength, fields) => {
        const document = instanceWith([
          { label: "T", type: "table", value: table(columns, rows, "c") },
          ...Array.from({ length: fields }, () => ({ label: "L", type: "longtext", value: "y".repeat(textLength) })),
        ]);
        const m = measureInstance(document);
        const over = (Object.keys(m) as (keyof typeof m)[]).filter((key) => m[key] > PRINT_LIMITS[key]);
        if (over.length === 0) expect(() => assertWithinLimits(document)).not.toThrow();
        else expect(() => assertWithinLimits(document)).toThrow(expect.objectContaining({ statusCode: 422 }));
      }),
      { numRuns: 60 },
    );
  });

  it("refuses a table whose short rows are padded past the cell limit, though it stores only a few thousand cells", () => {
    const value = { columns: Array.from({ length: 90 }, (_, i) => `C${i}`), rows: Array.from({ length: 4_000 }, () => ({ cells: ["x"] })) };
    expect(() => assertWithinLimits(instanceWith([{ label: "Grid", type: "table", value }]))).toThrow(
      expect.objectContaining({ statusCode: 422, message: "The object instance is too large to print: it has 360,000 table cells (rows times columns, empty ones included); the limit is 25,000." }),
    );
  });

  it("stops laying out at the page limit: a small document of many short lines would otherwise take thousands of pages", async () => {
    // Within every input limit: one multiple choice of 60,000 one-letter values, a line each.
    const document = instanceWith([{ label: "Choices", type: "multichoice", value: Array.from({ length: 60_000 }, (_, i) => String.fromCharCode(97 + (i % 26))) }]);
    expect(() => assertWithinLimits(document)).not.toThrow();
    // The layout throws as it starts page 21: the rest of the document is never laid out.
    await expect(renderInstancePdf(document as PrintableInstance, { instanceId: "x", targetName: "t", generatedAt: new Date(0), maxPages: 20 })).rejects.toEqual(new LayoutLimitExceeded("pages", 20));
    const short = await renderInstancePdf(instanceWith([{ label: "A", type: "text", value: "one" }]) as PrintableInstance, { instanceId: "x", targetName: "t", generatedAt: new Date(0), maxPages: 1 });
    expect(short.pageCount).toBe(1);
  });

  it("stops laying out at the line limit: narrow columns wrap long cells a character to a line", async () => {
    // Within every input limit: 100 columns x 40 rows of 39-character cells, a character per line (156,000 lines in 40 pages).
    const cell = "abcdefghij abcdefghij abcdefghij abcdef";
    const value = { columns: Array.from({ length: 100 }, (_, i) => `C${i}`), rows: Array.from({ length: 40 }, () => ({ cells: Array.from({ length: 100 }, () => cell) })) };
    const document = instanceWith([{ label: "Grid", type: "table", value }]);
    expect(() => assertWithinLimits(document)).not.toThrow();
    const options = { instanceId: "x", targetName: "t", generatedAt: new Date(0), maxPages: PRINT_LIMITS.pages };
    await expect(renderInstancePdf(document as PrintableInstance, { ...options, maxLines: 20_000 })).rejects.toEqual(new LayoutLimitExceeded("lines", 20_000));
    // The same table with four rows draws fewer lines than that, and prints.
    const four = instanceWith([{ label: "Grid", type: "table", value: { ...value, rows: value.rows.slice(0, 4) } }]);
    expect((await renderInstancePdf(four as PrintableInstance, { ...options, maxLines: 20_000 })).pageCount).toBeGreaterThan(1);
    expect(layoutLimitExceeded("lines").message).toBe("The object instance is too large to print: it takes more than 450,000 lines of text; the limit is 450,000.");
    expect(layoutLimitExceeded("pages").message).toBe("The object instance is too large to print: it takes more than 500 pages; the limit is 500.");
  });

  // Issue 38, F1: a run (one font, one direction) costs whatever its length; a change at every character made the most of them.
  it("stops shaping at the run limit: text whose script or direction changes at every character", async () => {
    const document = instanceWith([{ label: "Alternation", type: "longtext", value: "aא".repeat(3_000) }]);
    expect(() => assertWithinLimits(document)).not.toThrow();
    const options = { instanceId: "x", targetName: "t", generatedAt: new Date(0), maxPages: PRINT_LIMITS.pages, maxLines: PRINT_LIMITS.lines };
    await expect(renderInstancePdf(document as PrintableInstance, { ...options, maxRuns: 5_000 })).rejects.toEqual(new LayoutLimitExceeded("runs", 5_000));
    // A run per character (6,000) and a few for the title, labels and footers: it prints under a limit above them.
    expect((await renderInstancePdf(document as PrintableInstance, { ...options, maxRuns: 6_100 })).pageCount).toBeGreaterThan(1);
    // As many characters of one script and direction are one run.
    expect((await renderInstancePdf(instanceWith([{ label: "One run", type: "longtext", value: "ab".repeat(3_000) }]) as PrintableInstance, { ...options, maxRuns: 50 })).pageCount).toBeGreaterThan(1);
    expect(layoutLimitExceeded("runs").message).toBe(
      "The object instance is too large to print: it takes more than 100,000 runs of text in one font and direction (a change of script or direction starts a new run); the limit is 100,000.",
    );
  });

  it("bounds the rendered PDF too: pages and bytes", () => {
    expect(() => assertPdfWithinLimits(PRINT_LIMITS.pages, PRINT_LIMITS.pdfBytes)).not.toThrow();
    expect(() => assertPdfWithinLimits(PRINT_LIMITS.pages + 1, 1)).toThrow(/pages; the limit is 500/);
    expect(() => assertPdfWithinLimits(1, PRINT_LIMITS.pdfBytes + 1)).toThrow(/bytes of PDF/);
  });
});
