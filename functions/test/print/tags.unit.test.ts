// The logical structure as the layout builds it (src/print/render/tags.ts): elements and their kids in
// reading order, MCIDs per page, and what a heading moved to the next page takes back.

import { describe, expect, it } from "vitest";
import { Structure } from "../../src/print/render/tags";

/** An element's kids in order: child elements by index, marked content as "page:mcid". */
function kidsOf(s: Structure, element: number): (number | string)[] {
  const out: (number | string)[] = [];
  for (let kid = s.firstKids[element]; kid >= 0; kid = s.nextKids[kid]) out.push(s.kids[kid] >= 0 ? s.kids[kid] : `${s.kidPages[kid]}:${-1 - s.kids[kid]}`);
  expect(out).toHaveLength(s.kidCounts[element]);
  return out;
}

describe("Structure", () => {
  it("keeps each element's kids in the order added, child elements and marked content of several pages interleaved", () => {
    const s = new Structure();
    const list = s.add("L");
    const item = s.add("LI", list);
    const label = s.add("Lbl", item);
    const body = s.add("LBody", item);
    expect(s.mark(label, 0)).toBe(0);
    expect(s.mark(body, 0)).toBe(1);
    const paragraph = s.add("P", body);
    expect(s.mark(body, 1)).toBe(0); // MCIDs count per page
    expect(s.mark(paragraph, 1)).toBe(1);
    expect(s.count).toBe(6);
    expect(s.types).toEqual(["Document", "L", "LI", "Lbl", "LBody", "P"]);
    expect([...s.parents.subarray(0, s.count)]).toEqual([-1, 0, 1, 2, 2, 4]);
    expect(kidsOf(s, 0)).toEqual([list]);
    expect(kidsOf(s, item)).toEqual([label, body]);
    expect(kidsOf(s, body)).toEqual(["0:1", paragraph, "1:0"]);
    expect(s.marks).toEqual([[label, body], [body, paragraph]]);
    // The page of each element's first marked content (its /Pg); none for those without.
    expect([...s.firstPages.subarray(0, s.count)]).toEqual([-1, -1, -1, 0, 0, 1]);
  });

  it("takes back a heading's marked content drawn last on a page, and marks it again on the next", () => {
    const s = new Structure();
    const heading = s.add("H2");
    const list = s.add("L");
    s.mark(list, 0); // content before the heading on the page stays
    const before = { marks: s.marks[0].length, kids: s.kidCounts[heading] };
    s.mark(heading, 0);
    s.mark(heading, 0);
    s.unmark(heading, 0, before.marks, before.kids);
    expect(kidsOf(s, heading)).toEqual([]);
    expect(s.firstPages[heading]).toBe(-1);
    expect(s.marks[0]).toEqual([list]);
    expect(s.mark(heading, 1)).toBe(0);
    expect(s.mark(heading, 1)).toBe(1);
    expect(kidsOf(s, heading)).toEqual(["1:0", "1:1"]);
    expect(s.firstPages[heading]).toBe(1);
    // Another element's kids are untouched, and new kids still go last.
    expect(kidsOf(s, list)).toEqual(["0:0"]);
    s.mark(list, 1);
    expect(kidsOf(s, list)).toEqual(["0:0", "1:2"]);
  });

  it("keeps the kids added before the ones taken back, and their first page", () => {
    const s = new Structure();
    const p = s.add("P");
    s.mark(p, 0);
    const child = s.add("Figure", p, { alt: "a photo" });
    s.mark(p, 1);
    s.mark(p, 1);
    s.unmark(p, 1, 0, 2);
    expect(kidsOf(s, p)).toEqual(["0:0", child]);
    expect(s.firstPages[p]).toBe(0);
    expect(s.extras.get(child)).toEqual({ alt: "a photo" });
    expect(s.extras.get(p)).toBeUndefined();
    s.mark(p, 1);
    expect(kidsOf(s, p)).toEqual(["0:0", child, "1:0"]);
  });

  it("keeps every element and kid as its columns grow (a long table's tens of thousands)", () => {
    const s = new Structure();
    const table = s.add("Table");
    const rows: number[] = [];
    for (let r = 0; r < 3000; r++) {
      const row = s.add("TR", table);
      rows.push(row);
      for (let c = 0; c < 3; c++) s.mark(s.add("TD", row, c === 0 ? { scope: "Row" } : undefined), r >> 6);
    }
    expect(s.count).toBe(2 + 3000 * 4);
    expect(kidsOf(s, table)).toEqual(rows);
    const last = rows[2999];
    expect(kidsOf(s, last)).toEqual([last + 1, last + 2, last + 3]);
    expect(kidsOf(s, last + 3)).toEqual([`46:${2999 * 3 - 46 * 64 * 3 + 2}`]);
    expect([s.parents[last + 1], s.firstPages[last + 1], s.firstPages[last]]).toEqual([last, 46, -1]);
    expect([s.extras.get(last + 1), s.extras.get(last + 2)]).toEqual([{ scope: "Row" }, undefined]);
  });
});
