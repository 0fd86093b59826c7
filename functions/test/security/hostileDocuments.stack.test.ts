/**
 * Hostile documents, generated: object instances of every size around the renderer's limits (tables
 * of up to 2,000 columns and 4,000 rows, long cells, texts of up to 900,000 characters, some changing
 * font or direction at every character, many fields), stored as any system
 * could store them, then printed. The expected answer is computed from the limits (PRINT_LIMITS and
 * measureInstance), never written by hand: 422 naming a limit past any of them, otherwise 201. The
 * function instance must keep answering throughout, and afterwards serve an ordinary print.
 *
 * No document within the input limits here reaches the page limit (the longest is a few hundred pages; the
 * page limit is test/print/limits.unit.test.ts's), so none is laid out in this process: a render here
 * blocked its event loop for 5 s once, long enough for the emulator to close the idle connection.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PRINT_LIMITS, measureInstance } from "../../src/print/limits";
import { firestore } from "../api/fixtures";
import { BASES, call, idTokenFor } from "../helpers";
import { runId } from "./support";

const r = runId();
const print = (token: string, objectInstanceId: string) =>
  call(`${BASES.print.functionUrl}/tenant/acme-north/print`, { method: "POST", auth: { bearer: token }, body: { objectInstanceId }, timeoutMs: 30_000 });

/**
 * What the long text is made of: words, or a font or direction change at every character (issue 38,
 * F1: a search of the paragraph per piece made "aא" 640,000 times take 103 s). An alternation is a run
 * per character, so its expected answer follows from PRINT_LIMITS.runs; its length is picked far from
 * that limit (under 40,000 runs or over 300,000) and within what a Firestore document holds.
 */
const TEXT_SHAPES = [
  { unit: "w ", runsPerCharacter: 0 },
  { unit: "aא", runsPerCharacter: 1 }, // Latin / Hebrew
  { unit: "αא", runsPerCharacter: 1 }, // Greek / Hebrew
  { unit: "aب日", runsPerCharacter: 1 }, // Latin / Arabic / CJK
] as const;

/** The long text of about `characters` in a shape: an alternation below the run limit or well above it. */
function longText(shape: (typeof TEXT_SHAPES)[number], characters: number): string {
  const bytesPerCharacter = Buffer.byteLength(shape.unit) / shape.unit.length;
  // Short ones at most 40,000 runs; long ones 350,000 to 450,000 runs in at most 700 KB, the table and fields beside them.
  const length = shape.runsPerCharacter === 0 || characters < 400_000 ? Math.min(characters, shape.runsPerCharacter === 0 ? Infinity : 40_000) : Math.min(characters / 2, 700_000 / bytesPerCharacter);
  return shape.unit.repeat(Math.floor(length / shape.unit.length));
}

const documentArb = fc.record({
  columns: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 90, max: 110 }), fc.integer({ min: 500, max: 2_000 })),
  rows: fc.oneof(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 200, max: 400 }), fc.integer({ min: 2_000, max: 4_000 })),
  // Numbers too: the largest double written out took 412 characters (now 1.79769313486232E308).
  cell: fc.constantFrom<string | number>("", "x", "a cell with a few words in it", -Number.MAX_VALUE, Number.MIN_VALUE, 0.1 + 0.2),
  fields: fc.integer({ min: 0, max: 300 }),
  // Firestore stores at most 1 MiB per document: the character limit itself is the unit tests' (test/print/limits.unit.test.ts).
  text: fc.oneof(fc.constant(0), fc.integer({ min: 1_000, max: 200_000 }), fc.integer({ min: 800_000, max: 900_000 })),
  shape: fc.constantFrom(...TEXT_SHAPES),
});

describe("hostile documents against the print function (property-based)", () => {
  it("answers every generated document as the limits say (201 or 422 naming a limit), and keeps serving", async () => {
    const token = await idTokenFor("north-reader@acme.test");
    const tally = { printed: 0, refused: 0, largestCells: 0 };
    let n = 0;
    await fc.assert(
      fc.asyncProperty(documentArb, async ({ columns, rows, cell, fields, text, shape }) => {
        const instanceId = `hostile-doc-${r}-${n++}`;
        const long = longText(shape, text);
        // Rows past the first hold one cell: the stored document stays small, as the review's did (5 KB).
        const table = { columns: Array.from({ length: columns }, (_, i) => `C${i}`), rows: Array.from({ length: rows }, (_, i) => ({ cells: i === 0 ? Array.from({ length: columns }, () => cell) : [cell] })) };
        const document = {
          title: "Hostile document",
          objectTypeName: "Generated",
          sections: [
            { title: "Table", fields: [{ label: "Grid", type: "table", value: table }] },
            { title: "Text", fields: [...Array.from({ length: fields }, (_, i) => ({ label: `F${i}`, type: "text", value: "v" })), { label: "Long", type: "longtext", value: long }] },
          ],
        };
        const ref = firestore().doc(`tenants/acme-north/objectInstances/${instanceId}`);
        await ref.set(document);
        const measured = measureInstance((await ref.get()).data());
        const over: string[] = (Object.keys(measured) as (keyof typeof measured)[]).filter((key) => measured[key] > PRINT_LIMITS[key]);
        // Past the input limits, runs are what the layout counts: an alternation's length decides (longText keeps it far from the limit).
        if (long.length * shape.runsPerCharacter > PRINT_LIMITS.runs) over.push("runs");
        const res = await print(token, instanceId);
        await ref.delete();
        const what = `${columns} columns x ${rows} rows, ${fields} fields, ${long.length} characters of ${JSON.stringify(shape.unit)}`;
        if (over.length > 0) {
          expect(res.status, what).toBe(422);
          expect(res.json.message, what).toMatch(/^The object instance is too large to print: it (has [\d,]+|takes more than [\d,]+) .+; the limit is [\d,]+\.$/);
          tally.refused++;
        } else {
          expect(res.status, `${what}: ${res.text}`).toBe(201);
          tally.printed++;
          tally.largestCells = Math.max(tally.largestCells, measured.tableCells);
        }
      }),
      { numRuns: 40, endOnFailure: true },
    );
    expect((await print(token, "inspection-short")).status).toBe(201);
    console.log(`Hostile documents: ${tally.printed} printed (up to ${tally.largestCells} table cells), ${tally.refused} refused with 422; the instance served an ordinary print afterwards.`);
    expect(tally.printed).toBeGreaterThan(0);
    expect(tally.refused).toBeGreaterThan(0);
  }, 300_000);
});
