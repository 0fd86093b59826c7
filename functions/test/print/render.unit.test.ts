// The PDF renderer, read back: pdf-lib for the file's structure and metadata, PDF.js (through
// unpdf) for the text a reader sees, fontkit for the embedded font programs.

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import * as fontkit from "@pdf-lib/fontkit";
import { PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef } from "pdf-lib";
import { getDocumentProxy } from "unpdf";
import { beforeAll, describe, expect, it } from "vitest";
import {
  displayValue,
  EMPTY_MARKER,
  formatDateTime,
  formatNumber,
  formatterFor,
  PAGE_HEIGHT,
  PAGE_WIDTH,
  DEFAULT_LOCALE,
  DEFAULT_TIME_ZONE,
  PRODUCER,
  renderInstancePdf,
  type PrintableInstance,
  type RenderOptions,
} from "../../src/print/render";
import { TrueTypeSource } from "../../src/print/render/ttf";
import { hugeInstance, malformedInstance } from "./outputs";
import { pageContents, structText, unmarkedContent } from "./pdfChecks";
import { popplerLines } from "./popplerText";
import { streamData } from "./pdfText";

// ---- reading a PDF back ---------------------------------------------------------------------

interface TextItem {
  str: string;
  x: number;
  y: number;
  width: number;
}
interface PageText {
  items: TextItem[];
  /** Item strings joined by newlines, in content order. */
  text: string;
  /** The same without any whitespace: robust to where lines wrap. */
  squashed: string;
}

const squash = (s: string): string => s.replace(/\s+/g, "");

async function readPages(bytes: Uint8Array): Promise<PageText[]> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes)); // a copy: PDF.js may detach its input
  try {
    const pages: PageText[] = [];
    for (let i = 1; i <= pdf.numPages; i++) {
      const page = await pdf.getPage(i);
      const content = await page.getTextContent();
      const items: TextItem[] = [];
      for (const it of content.items) {
        if (!("str" in it) || it.str.trim() === "") continue;
        items.push({ str: it.str, x: it.transform[4], y: it.transform[5], width: it.width });
      }
      const text = items.map((item) => item.str).join("\n");
      pages.push({ items, text, squashed: squash(text) });
    }
    return pages;
  } finally {
    await pdf.loadingTask.destroy();
  }
}

/** The item right after the first item that equals `label` (a label's value in a label/value row). */
function valueAfter(pages: PageText[], label: string): string | undefined {
  for (const page of pages) {
    const i = page.items.findIndex((item) => item.str === label);
    if (i >= 0) return page.items[i + 1]?.str;
  }
  return undefined;
}

/** Index of the page whose text holds `needle` (whitespace ignored), or -1. */
const pageOf = (pages: PageText[], needle: string): number => pages.findIndex((p) => p.squashed.includes(squash(needle)));

/** All pages' text without running headers and footers, whitespace removed: text that spans pages. */
const bodyOf = (pages: PageText[]): string =>
  pages.map((p) => squash(p.items.filter((i) => i.y > 40 && i.y < PAGE_HEIGHT - 40).map((i) => i.str).join(""))).join("");

// ---- fixtures -------------------------------------------------------------------------------

const demo = JSON.parse(readFileSync(resolve(__dirname, "../../../emulator-data/demo.json"), "utf8")) as {
  documents: Record<string, PrintableInstance>;
};
const instance = (id: string): PrintableInstance => demo.documents[`tenants/acme-north/objectInstances/${id}`];

const AT = new Date("2026-05-04T16:12:05Z");
const options = (instanceId: string, generatedAt = AT): RenderOptions => ({ instanceId, targetName: "Acme North", generatedAt });

function tableInstance(rowCount: number, describe: (i: number) => string): PrintableInstance {
  const rows = [];
  for (let i = 0; i < rowCount; i++) rows.push({ cells: [`R-${i}`, describe(i), i * 1.5, i % 7 === 0 ? null : "OK"] });
  return {
    title: "Table test",
    objectTypeName: "Register",
    sections: [
      {
        title: "Rows",
        fields: [
          { label: "Intro", type: "text", value: "Before the table" },
          { label: "Register", type: "table", value: { columns: ["ID", "Description", "Amount", "Status"], rows } },
          { label: "Outro", type: "text", value: "After the table" },
        ],
      },
    ],
  };
}

/**
 * Per page with vertical rules, its tables' rules (one set per top and bottom): the rules' xs, the
 * span they cover, and the horizontal grid lines (from the first x to the last) within it.
 */
function tableRules(contents: readonly string[]): { page: number; tables: { xs: number[]; top: number; bottom: number; gridLines: number; lowestGridLine: number }[] }[] {
  const rule = /(-?[\d.]+) (-?[\d.]+) m (-?[\d.]+) (-?[\d.]+) l S/g;
  return contents.flatMap((content, page) => {
    const lines = [...content.matchAll(rule)].map((m) => m.slice(1, 5).map(Number));
    const sets = new Map<string, number[][]>();
    for (const line of lines) if (line[0] === line[2]) sets.set(`${line[1]} ${line[3]}`, [...(sets.get(`${line[1]} ${line[3]}`) ?? []), line]);
    if (sets.size === 0) return [];
    const tables = [...sets.values()].map((verticals) => {
      const xs = verticals.map(([x]) => x).sort((a, b) => a - b);
      const [[, top, , bottom]] = verticals;
      const grid = lines.filter(([x1, y1, x2, y2]) => y1 === y2 && Math.min(x1, x2) === xs[0] && Math.max(x1, x2) === xs.at(-1) && y1 <= top && y1 >= bottom).map(([, y]) => y);
      return { xs, top, bottom, gridLines: grid.length, lowestGridLine: Math.min(...grid) };
    });
    return [{ page, tables: tables.sort((a, b) => b.top - a.top) }];
  });
}

const rendered: Record<string, { bytes: Uint8Array; pageCount: number; pages: PageText[] }> = {};

beforeAll(async () => {
  for (const id of ["inspection-short", "audit-long", "multilingual"]) {
    const out = await renderInstancePdf(instance(id), options(id));
    rendered[id] = { ...out, pages: await readPages(out.bytes) };
  }
});

// ---- tests ----------------------------------------------------------------------------------

describe("renderInstancePdf: a document", () => {
  it("has the header (title, object type, target), section headings, labels and formatted values", () => {
    const { pages } = rendered["inspection-short"];
    const first = pages[0];
    expect(first.items[0].str).toBe("Boiler Inspection B-12");
    expect(valueAfter(pages, "Object type")).toBe("Safety Inspection");
    expect(valueAfter(pages, "Target")).toBe("Acme North");
    for (const section of instance("inspection-short").sections) {
      expect(pageOf(pages, section.title)).toBeGreaterThanOrEqual(0);
      for (const field of section.fields) expect(pageOf(pages, field.label), field.label).toBeGreaterThanOrEqual(0);
    }
    // booleans, numbers, dates and date-times in the documented locale and time zone
    expect(valueAfter(pages, "Safety valve tested")).toBe("Yes");
    expect(valueAfter(pages, "Visible corrosion")).toBe("No");
    expect(valueAfter(pages, "Year of manufacture")).toBe("2014");
    expect(valueAfter(pages, "Operating pressure (bar)")).toBe("4.2");
    expect(valueAfter(pages, "Flue gas temperature (°C)")).toBe("182.5");
    expect(valueAfter(pages, "Inspection date")).toBe("4 May 2026");
    expect(valueAfter(pages, "Inspection started")).toBe("4 May 2026 at 13:45 UTC");
    expect(valueAfter(pages, "Next inspection due")).toBe("4 May 2027");
    expect(valueAfter(pages, "Inspector signature")).toBe("F. Lefèvre");
    // empty values are shown as such
    expect(valueAfter(pages, "Previous inspection reference")).toBe(EMPTY_MARKER);
    expect(valueAfter(pages, "Follow-up meeting")).toBe(EMPTY_MARKER);
    // multichoice: one item per line
    expect(valueAfter(pages, "Applicable standards")).toBe("• EN 12953");
  });

  it("prints longtext as wrapped paragraphs that keep the author's line breaks", () => {
    const { pages } = rendered["inspection-short"];
    const notes = instance("inspection-short").sections[1].fields.find((f) => f.label === "Inspector notes")!.value as string;
    const [first, second] = notes.split("\n\n");
    const page = pages[pageOf(pages, first)];
    const items = page.items;
    const start = items.findIndex((i) => first.startsWith(i.str));
    expect(start).toBeGreaterThan(0);
    // the first paragraph's lines, up to the author's blank line
    const lines: TextItem[] = [];
    let joined = "";
    for (let i = start; joined.length < squash(first).length; i++) {
      lines.push(items[i]);
      joined += squash(items[i].str);
    }
    expect(joined).toBe(squash(first));
    expect(lines.length).toBeGreaterThan(2); // wrapped
    const leading = lines[0].y - lines[1].y;
    for (let i = 1; i < lines.length; i++) expect(lines[i - 1].y - lines[i].y).toBeCloseTo(leading, 1);
    const next = items[start + lines.length];
    expect(second.startsWith(next.str)).toBe(true);
    expect(lines[lines.length - 1].y - next.y).toBeCloseTo(2 * leading, 1); // the blank line survives
  });

  it("keeps every label and value of a long, multilingual instance, and paginates it", () => {
    const { pages, pageCount } = rendered["audit-long"];
    expect(pageCount).toBeGreaterThan(10);
    expect(pages).toHaveLength(pageCount);
    const body = bodyOf(pages);
    for (const section of instance("audit-long").sections) {
      expect(pageOf(pages, section.title), section.title).toBeGreaterThanOrEqual(0);
      for (const field of section.fields) {
        expect(pageOf(pages, field.label), field.label).toBeGreaterThanOrEqual(0);
        const shown = displayValue(field.type, field.value);
        const texts =
          shown.kind === "inline" || shown.kind === "paragraphs"
            ? [shown.text]
            : shown.kind === "table"
              ? [...shown.columns, ...shown.rows.flat().filter((c) => c !== "")]
              : [EMPTY_MARKER];
        for (const text of texts) expect(body.includes(squash(text)), `${field.label}: ${text}`).toBe(true);
      }
    }
    // diacritics, Greek and Cyrillic come through intact
    const all = pages.map((p) => p.text).join("\n");
    for (const s of ["Zoë Ångström", "Jiří Dvořák", "Hafenstraße 27", "Νίκος Παπαδόπουλος", "Ольга Смирнова", "mgr inż. Łukasz Wójcik"]) {
      expect(all).toContain(s);
    }
    expect(valueAfter(pages, "Opening meeting")).toBe("9 March 2026 at 07:30 UTC");
    expect(valueAfter(pages, "Site area (m²)")).toBe("48,250");
  });

  it("renders Greek, Cyrillic, French, Japanese and emoji from the fonts of their scripts", () => {
    const { pages, pageCount } = rendered["multilingual"];
    expect(pageCount).toBe(1);
    // (Greek, Russian and French: a marked-content sequence each, which PDF.js reads as items of their own.)
    expect(pages[0].items[0].str).toBe("Προδιαγραφή");
    expect(pages[0].squashed).toContain(squash("Προδιαγραφή / Спецификация / Spécification"));
    expect(pages[0].squashed).toContain(squash("Υπεύθυνος / Ответственный Νίκος Παπαδόπουλος"));
    expect(pages[0].squashed).toContain(squash("Κωδικός ελέγχου / Код проверки (検査)"));
    expect(pages[0].squashed).toContain("検査-2026-017");
    expect(pages[0].squashed).toContain(squash("Εγκρίθηκε / Утверждено ✅"));
    expect(pages[0].text).not.toContain("\uFFFD");
  });

  it("prints a visible U+FFFD for a character no font has, and counts it", async () => {
    // Cherokee and Mongolian: scripts none of the bundled families covers.
    const out = await renderInstancePdf(
      { title: "Missing", objectTypeName: "T", sections: [{ title: "S", fields: [{ label: "L", type: "text", value: "ᏣᎳᎩ ᠮ ok" }] }] },
      options("missing"),
    );
    expect(out.missingCharacters).toBe(4);
    expect((await readPages(out.bytes))[0].text).toContain("\uFFFD\uFFFD\uFFFD \uFFFD ok");
  });

  it("prints every string in its stored order, explicit bidi controls removed and counted (issue 38, F3)", async () => {
    // An override made the IBAN print as "DE89 0000 01300004 3210"; in a title, a label, a section, a cell and the target's name alike.
    const iban = "DE89 \u202e0004 3210\u202c 0130 0000";
    const out = await renderInstancePdf(
      {
        title: `Payment ${iban}`,
        objectTypeName: "Form \u2067A\u2069",
        sections: [{ title: "Bank \u202b1\u202c", fields: [{ label: "IBAN \u202e12\u202c", type: "text", value: iban }, { label: "T", type: "table", value: { columns: ["\u202e34\u202c"], rows: [{ cells: [iban] }] } }] }],
      },
      { ...options("bidi"), targetName: "Acme \u202e56\u202c" },
    );
    const text = popplerLines(out.bytes).join("\n");
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(text.match(/DE89 0004 3210 0130 0000/g)?.length).toBe(3); // the title, the value and the cell
    for (const stored of ["Form A", "Bank 1", "IBAN 12", "Acme 56", "34"]) expect(text).toContain(stored);
    expect(out.bidiControlsRemoved).toBeGreaterThan(0);
  });

  it('puts "Page X of N" and a footer with the instance id and generation time on every page', () => {
    for (const [id, { pages, pageCount }] of Object.entries(rendered)) {
      pages.forEach((page, i) => {
        expect(page.text, `${id} page ${i + 1}`).toContain(`Page ${i + 1} of ${pageCount}`);
        expect(page.text).toContain(`Instance ${id} · Generated 4 May 2026 at 16:12:05 UTC`);
      });
    }
  });

  it("keeps all text inside the margins, without overlapping lines", () => {
    const problems: string[] = [];
    for (const [id, { pages }] of Object.entries(rendered)) {
      pages.forEach((page, p) => {
        const where = (item: TextItem): string => `${id} page ${p + 1}: "${item.str}"`;
        for (const item of page.items) {
          const inside = item.x >= 49.5 && item.x + item.width <= PAGE_WIDTH - 49.5 && item.y >= 30 && item.y <= PAGE_HEIGHT - 30;
          if (!inside) problems.push(`${where(item)} is outside the margins`);
        }
        for (let a = 0; a < page.items.length; a++) {
          for (let b = a + 1; b < page.items.length; b++) {
            const [i, j] = [page.items[a], page.items[b]];
            const overlapX = Math.min(i.x + i.width, j.x + j.width) - Math.max(i.x, j.x);
            if (Math.abs(i.y - j.y) < 6 && overlapX > 0.5) problems.push(`${where(i)} overlaps "${j.str}"`);
          }
        }
      });
    }
    expect(problems).toEqual([]);
  });
});

describe("renderInstancePdf: tables and pagination", () => {
  it("repeats a table's column headers on every page it continues on and never splits a row", async () => {
    const lorem = "lorem ipsum dolor sit amet consectetur";
    const inst = tableInstance(300, (i) => `Item ${i} ${lorem.repeat(i % 5)}`);
    const out = await renderInstancePdf(inst, options("t300"));
    const pages = await readPages(out.bytes);
    expect(out.pageCount).toBe(pages.length);
    expect(out.pageCount).toBeGreaterThan(5);

    const firstTablePage = pageOf(pages, "R-0");
    const lastTablePage = pageOf(pages, "R-299");
    expect(lastTablePage).toBeGreaterThan(firstTablePage);
    for (let p = firstTablePage; p <= lastTablePage; p++) {
      const strs = pages[p].items.map((i) => i.str);
      const header = ["ID", "Description", "Amount", "Status"].map((h) => strs.indexOf(h));
      const firstRow = strs.findIndex((s) => /^R-\d+$/.test(s));
      expect(header, `page ${p + 1}`).toEqual([...header].sort((a, b) => a - b));
      expect(header[0], `page ${p + 1}`).toBeGreaterThanOrEqual(0);
      expect(header[3]).toBeLessThan(firstRow);
      if (p > firstTablePage) expect(strs).toContain("Register (continued)");
    }

    // every row once, in order, whole on one page
    const ids = pages.flatMap((p, page) => p.items.filter((i) => /^R-\d+$/.test(i.str)).map((i) => ({ id: i.str, page })));
    expect(ids.map((r) => r.id)).toEqual(Array.from({ length: 300 }, (_, i) => `R-${i}`));
    const { rows } = inst.sections[0].fields[1].value as { rows: { cells: (string | number | null)[] }[] };
    for (const [i, row] of rows.entries()) {
      const page = pages[ids[i].page];
      for (const cell of row.cells) {
        const text = cell === null ? EMPTY_MARKER : typeof cell === "number" ? formatNumber(cell) : cell;
        expect(page.squashed, `row ${i}: ${text}`).toContain(squash(text));
      }
    }
    expect(pageOf(pages, "After the table")).toBe(out.pageCount - 1);
  });

  it("rules a table's columns with one line each per page, from its header's top to its last row's bottom there", async () => {
    const out = await renderInstancePdf(tableInstance(300, (i) => `Item ${i} ${"lorem ipsum ".repeat(i % 4)}`), options("t300-rules"));
    const pages = await readPages(out.bytes);
    const tablePages = tableRules(pageContents(out.bytes));
    expect(tablePages.map((p) => p.page)).toEqual(pages.flatMap((p, i) => (p.items.some((item) => /^R-\d+$/.test(item.str)) ? [i] : [])));
    expect(tablePages.length).toBeGreaterThan(5);
    for (const { page, tables } of tablePages) {
      // Four columns: five rules, each over the whole of the table's part on this page, its header row included.
      expect(tables, `page ${page + 1}`).toHaveLength(1);
      const [{ xs, top, bottom, gridLines }] = tables;
      expect(xs).toHaveLength(5);
      expect(gridLines, `page ${page + 1}`).toBeGreaterThan(10);
      const header = pages[page].items.find((item) => item.str === "ID")!;
      const rows = pages[page].items.filter((item) => /^R-\d+$/.test(item.str)).map((item) => item.y);
      expect(header.y, `page ${page + 1}`).toBeLessThan(top);
      expect(Math.min(...rows), `page ${page + 1}`).toBeGreaterThan(bottom);
      expect(Math.max(...rows), `page ${page + 1}`).toBeLessThan(header.y);
    }
  });

  it("rules two tables on a page apart, a right-to-left table mirrored, and a table before a heading that moves to the next page to its last row", async () => {
    const twoTables: PrintableInstance = {
      title: "Two tables",
      objectTypeName: "T",
      sections: [
        {
          title: "Tables",
          fields: ["First", "Second"].map((label) => ({
            label,
            type: "table",
            value: { columns: ["A", "B", "C"], rows: Array.from({ length: 4 }, (_, i) => ({ cells: [`${label}-${i}`, i, "x"] })) },
          })),
        },
      ],
    };
    const [first] = tableRules(pageContents((await renderInstancePdf(twoTables, options("two-tables"))).bytes));
    expect(first.tables).toHaveLength(2);
    for (const table of first.tables) expect([table.xs.length, table.gridLines]).toEqual([4, 6]); // three columns; top, header and four rows
    expect(first.tables[0].bottom).toBeGreaterThan(first.tables[1].top);

    const arabic = tableInstance(120, (i) => `بند رقم ${i} للفحص`);
    const rtl = await renderInstancePdf({ ...arabic, title: "جدول", objectTypeName: "سجل" }, { ...options("rtl-rules"), locale: "ar-EG" });
    const rtlPages = tableRules(pageContents(rtl.bytes));
    expect(rtlPages.length).toBeGreaterThan(1);
    const ids = (await readPages(rtl.bytes)).flatMap((p) => p.items.filter((item) => /^R-\d+$/.test(item.str)));
    expect(Math.min(...ids.map((item) => item.x))).toBeGreaterThan(PAGE_WIDTH / 2); // the first column on the right
    for (const { tables } of rtlPages) expect(tables.map((t) => t.xs.length)).toEqual([5]);

    // A heading kept with the tall value after it leaves the table's page for the next one as the
    // table grows: the table's page keeps the rules of every row it holds.
    const tall = Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n");
    let moved = 0;
    for (let rows = 20; rows <= 34; rows++) {
      const table = tableInstance(rows, (i) => `Item ${i}`);
      const inst: PrintableInstance = {
        ...table,
        sections: [
          { ...table.sections[0], fields: table.sections[0].fields.slice(0, 2) }, // the table last
          { title: "Next heading", fields: [{ label: "Tall", type: "text", value: tall }] },
        ],
      };
      const { bytes } = await renderInstancePdf(inst, options("heading-after-table"));
      const pages = await readPages(bytes);
      const headingPage = pages.findIndex((p) => p.text.includes("Next heading"));
      const lastRow = pages.findIndex((p) => p.items.some((item) => item.str === `R-${rows - 1}`));
      expect(headingPage, `${rows} rows`).toBe(pages.findIndex((p) => p.text.includes("line 0")));
      if (headingPage > lastRow) moved++;
      const { tables } = tableRules(pageContents(bytes)).find((p) => p.page === lastRow)!;
      const lowestRow = Math.min(...pages[lastRow].items.filter((item) => /^R-\d+$/.test(item.str)).map((item) => item.y));
      expect(tables, `${rows} rows`).toHaveLength(1);
      expect(tables[0].bottom, `${rows} rows`).toBeLessThan(lowestRow);
      expect(tables[0].bottom, `${rows} rows`).toBe(tables[0].lowestGridLine);
    }
    expect(moved).toBeGreaterThan(0);
  });

  it("keeps the demo equipment register's rows whole and in order across its pages", () => {
    const { pages } = rendered["audit-long"];
    const field = instance("audit-long").sections.flatMap((s) => s.fields).find((f) => f.label === "Equipment register")!;
    const rows = (field.value as { rows: { cells: (string | number | null)[] }[] }).rows;
    let page = 0;
    for (const row of rows) {
      const tag = String(row.cells[0]);
      const found = pages.findIndex((p, i) => i >= page && p.items.some((item) => item.str === tag));
      expect(found, tag).toBeGreaterThanOrEqual(page);
      page = found;
      for (const cell of row.cells) {
        const text = cell === null ? EMPTY_MARKER : typeof cell === "number" ? formatNumber(cell) : cell;
        expect(pages[page].squashed, `${tag}: ${text}`).toContain(squash(text));
      }
    }
    const continued = pages.filter((p) => p.text.includes("Equipment register (continued)"));
    expect(continued.length).toBeGreaterThan(0);
    for (const p of continued) expect(p.items.slice(0, 12).map((i) => i.str)).toEqual(expect.arrayContaining(["Tag", "Criticality"]));
  });

  it("renders a 2,000-row table to many pages", async () => {
    const out = await renderInstancePdf(tableInstance(2000, (i) => `Item number ${i}`), options("t2000"));
    expect(out.pageCount).toBeGreaterThan(30);
    const doc = await PDFDocument.load(out.bytes, { updateMetadata: false });
    expect(doc.getPageCount()).toBe(out.pageCount);
    const pages = await readPages(out.bytes);
    expect(pages[out.pageCount - 1].text).toContain(`Page ${out.pageCount} of ${out.pageCount}`);
    expect(pageOf(pages, "R-1999")).toBeGreaterThan(out.pageCount - 3);
  }, 30_000);

  it("gives every column of a table too wide for the page at least two and a half ems, and cuts a line wider than its column at the column", async () => {
    const grid = (columns: string[], row: string[]): PrintableInstance => ({
      title: "Wide",
      objectTypeName: "T",
      sections: [{ title: "S", fields: [{ label: "Grid", type: "table", value: { columns, rows: [{ cells: row }] } }] }],
    });
    /** x of the table's vertical rules, and the boxes of the clipping paths, from the page's operators. */
    const geometry = async (instance: PrintableInstance) => {
      const contents = pageContents((await renderInstancePdf(instance, options("wide"))).bytes);
      const [content] = contents;
      const [{ tables }] = tableRules(contents);
      expect(tables).toHaveLength(1);
      const [{ xs }] = tables;
      const clips = [...content.matchAll(/([\d.-]+) [\d.-]+ ([\d.]+) [\d.]+ re W n/g)].map((m) => [Number(m[1]), Number(m[1]) + Number(m[2])]);
      return { xs, clips };
    };
    // Eleven long unbreakable words and one short one: the short column kept its width in proportion (a letter wide).
    const { xs } = await geometry(grid(Array.from({ length: 12 }, (_, i) => `C${i}`), [...Array.from({ length: 11 }, () => "x".repeat(40)), "Mmmmm"]));
    expect(xs).toHaveLength(13);
    for (let i = 1; i < xs.length; i++) expect(xs[i] - xs[i - 1], `column ${i - 1}`).toBeGreaterThanOrEqual(2.5 * 8 + 7 - 0.01);
    // Sixty columns: narrower than a letter, each line drawn is cut at its column's box.
    const sixty = await geometry(grid(Array.from({ length: 60 }, (_, i) => `C${i}`), Array.from({ length: 60 }, () => "Wide")));
    expect(sixty.clips.length).toBeGreaterThanOrEqual(60);
    for (const [from, to] of sixty.clips) {
      const column = sixty.xs.findIndex((x, i) => x <= from + 0.01 && sixty.xs[i + 1] >= to - 0.01);
      expect(column, `clip ${from}..${to}`).toBeGreaterThanOrEqual(0);
    }
  });

  it("keeps a section heading with the start of its first field: a field that goes to the next page takes the heading along", async () => {
    const tall = Array.from({ length: 14 }, (_, i) => `line ${i}`).join("\n");
    let moved = 0;
    // From a page with room for the heading and a row or two (not for the 14-line value) to one with room for all.
    for (let rows = 18; rows <= 30; rows++) {
      const inst: PrintableInstance = {
        title: "Orphans",
        objectTypeName: "T",
        sections: [
          { title: "First", fields: Array.from({ length: rows }, (_, i) => ({ label: `Row ${i}`, type: "text", value: `value ${i}` })) },
          { title: "Second heading", fields: [{ label: "Tall", type: "text", value: tall }] },
        ],
      };
      const { bytes } = await renderInstancePdf(inst, options("orphans"));
      const pages = await readPages(bytes);
      const headingPage = pages.findIndex((p) => p.text.includes("Second heading"));
      expect(headingPage, `${rows} rows`).toBe(pages.findIndex((p) => p.text.includes("line 0")));
      if (headingPage === 1) {
        moved++;
        // Drawn once, marked once: the structure holds the heading's text once, all content marked.
        expect(structText(bytes).match(/"Second heading"/g)).toHaveLength(1);
        for (const content of pageContents(bytes)) expect(unmarkedContent(content)).toEqual([]);
      }
    }
    expect(moved).toBeGreaterThan(2);
  });

  it("splits a single value taller than a page between its lines, losing nothing", async () => {
    const words = Array.from({ length: 12000 }, (_, i) => `w${i}`);
    const inst = hugeInstance(12000, 40000);
    const out = await renderInstancePdf(inst, options("huge"));
    expect(out.pageCount).toBeGreaterThan(10);
    const pages = await readPages(out.bytes);
    const tokens = pages.flatMap((p) => p.text.split(/\s+/)).filter((t) => /^w\d+$/.test(t));
    expect(tokens).toEqual([...words, ...words]);
    const xs = pages.flatMap((p) => p.items.filter((i) => /^x+$/.test(i.str)).map((i) => i.str.length));
    expect(xs.reduce((a, b) => a + b, 0)).toBe(40000 + 1); // plus the table cell "x"
  }, 30_000);
});

describe("renderInstancePdf: file properties", () => {
  it("writes the metadata: title, subject, keywords, producer, creation and modification dates", async () => {
    const doc = await PDFDocument.load(rendered["inspection-short"].bytes, { updateMetadata: false });
    expect(doc.getPageCount()).toBe(rendered["inspection-short"].pageCount);
    expect(doc.getTitle()).toBe("Boiler Inspection B-12");
    expect(doc.getSubject()).toBe("Safety Inspection — Acme North");
    expect(doc.getKeywords()).toBe("inspection-short");
    expect(doc.getProducer()).toBe(PRODUCER);
    expect(doc.getCreator()).toBe(PRODUCER);
    expect(doc.getCreationDate()?.toISOString()).toBe(AT.toISOString());
    expect(doc.getModificationDate()?.toISOString()).toBe(AT.toISOString());
    const page = doc.getPage(0);
    expect([page.getWidth(), page.getHeight()]).toEqual([PAGE_WIDTH, PAGE_HEIGHT]);
  });

  it("stays small (subset fonts) and embeds well-formed Noto Sans subsets", async () => {
    const sizes = Object.fromEntries(Object.entries(rendered).map(([id, r]) => [id, r.bytes.length]));
    expect(sizes["inspection-short"]).toBeLessThan(40_000);
    expect(sizes["multilingual"]).toBeLessThan(40_000);
    // 22 pages, their content deflated at level 3 (pdf.ts CONTENT_LEVEL: 159 KB; at level 6, 148 KB).
    expect(sizes["audit-long"]).toBeLessThan(165_000);

    const doc = await PDFDocument.load(rendered["multilingual"].bytes, { updateMetadata: false });
    const lookup = <T>(v: unknown): T => (v instanceof PDFRef ? doc.context.lookup(v) : v) as T;
    const type0 = doc.context
      .enumerateIndirectObjects()
      .map(([, obj]) => obj)
      .filter((obj): obj is PDFDict => obj instanceof PDFDict && obj.get(PDFName.of("Subtype")) === PDFName.of("Type0"));
    // Noto Sans regular and bold, Noto Sans SC (検査: Han without kana reads as Chinese) and Noto Emoji (✅).
    const names = type0.map((f) => String(f.get(PDFName.of("BaseFont"))).replace(/^\/[A-Z]{6}\+/, "")).sort();
    expect(names).toEqual(["NotoEmoji-Regular", "NotoSans-Bold", "NotoSans-Regular", "NotoSansSC-Bold", "NotoSansSC-Regular"]);
    const full = {
      Regular: fontkit.create(readFileSync(require.resolve("@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf"))),
      Bold: fontkit.create(readFileSync(require.resolve("@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf"))),
    };
    for (const font of type0.filter((f) => /\+NotoSans-/.test(String(f.get(PDFName.of("BaseFont")))))) {
      const name = String(font.get(PDFName.of("BaseFont")));
      const face = /^\/[A-Z]{6}\+NotoSans-(Regular|Bold)$/.exec(name)?.[1] as "Regular" | "Bold";
      expect(face, name).toBeDefined();
      const cidFont = lookup<PDFDict>(lookup<{ get(i: number): unknown }>(font.get(PDFName.of("DescendantFonts"))).get(0));
      const descriptor = lookup<PDFDict>(cidFont.get(PDFName.of("FontDescriptor")));
      const file = lookup<PDFRawStream>(descriptor.get(PDFName.of("FontFile2")));
      const program = streamData(file);
      expect(program.length).toBeLessThan(30_000);
      // Each used glyph (CID = glyph index) has the outline of the same character in the full font.
      const cmap = streamData(lookup<PDFRawStream>(font.get(PDFName.of("ToUnicode")))).toString("latin1");
      const subset = fontkit.create(program);
      let checked = 0;
      for (const [, cid, unicode] of cmap.matchAll(/<([0-9a-f]{4})> <([0-9a-f]{4,8})>/g)) {
        const cp = String.fromCharCode(...(unicode.match(/.{4}/g) ?? []).map((h) => parseInt(h, 16))).codePointAt(0)!;
        const original = full[face].glyphForCodePoint(cp);
        const copy = subset.getGlyph(parseInt(cid, 16));
        expect(copy.path.toSVG(), `${face} U+${cp.toString(16)}`).toBe(original.path.toSVG());
        expect(copy.advanceWidth).toBe(original.advanceWidth);
        checked++;
      }
      expect(checked).toBeGreaterThan(20);
    }
  });

  it("is deterministic: same input and clock give the same bytes, another clock other bytes", async () => {
    const a = await renderInstancePdf(instance("audit-long"), options("audit-long"));
    await renderInstancePdf(instance("multilingual"), options("multilingual")); // other work in between
    const b = await renderInstancePdf(instance("audit-long"), options("audit-long"));
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
    expect(Buffer.from(a.bytes).equals(Buffer.from(rendered["audit-long"].bytes))).toBe(true);

    const later = await renderInstancePdf(instance("audit-long"), options("audit-long", new Date(AT.getTime() + 1000)));
    expect(Buffer.from(later.bytes).equals(Buffer.from(a.bytes))).toBe(false);
    const laterDoc = await PDFDocument.load(later.bytes, { updateMetadata: false });
    expect(laterDoc.getCreationDate()?.toISOString()).toBe("2026-05-04T16:12:06.000Z");
    expect((await readPages(later.bytes))[0].text).toContain("Generated 4 May 2026 at 16:12:06 UTC");
  });
});

describe("renderInstancePdf: values of any shape", () => {
  it("never throws on malformed data and prints it as text", async () => {
    const inst = malformedInstance();
    const out = await renderInstancePdf(inst, options("weird"));
    const pages = await readPages(out.bytes);
    const text = pages.map((p) => p.text).join("\n");
    expect(pages[0].items[0].str).toBe("42");
    expect(valueAfter(pages, "Object type")).toBe(EMPTY_MARKER);
    expect(valueAfter(pages, "Number as text")).toBe("12 kg");
    expect(valueAfter(pages, "Boolean as text")).toBe("yes");
    expect(valueAfter(pages, "Impossible date")).toBe("2026-02-30");
    expect(valueAfter(pages, "Timestamp")).toBe(formatDateTime(new Date(1777900000 * 1000)));
    expect(squash(text)).toContain(squash('{"a": 1, "b": [true, null], "c": {"name": "loop", "self": {…}}}'));
    expect(valueAfter(pages, "Big")).toBe("12345678901234567890");
    expect(valueAfter(pages, "Table as string")).toBe("not a table");
    expect(text).toContain("Column 1");
    expect(valueAfter(pages, "Unknown type")).toBe("S. Igned");
    expect(squash(text)).toContain(squash("tab here\uFFFDbell 😀 \uFFFD end"));
    expect(text).toContain("Section 1");
    expect(text).toContain("No fields");
  });

  it("refuses an invalid clock", async () => {
    await expect(renderInstancePdf(instance("multilingual"), options("x", new Date(Number.NaN)))).rejects.toThrow(TypeError);
  });
});

describe("formatting (en-GB, UTC)", () => {
  it("documents one locale and time zone", () => {
    expect(DEFAULT_LOCALE).toBe("en-GB");
    expect(DEFAULT_TIME_ZONE).toBe("UTC");
  });

  it.each([
    [2014, "2014"],
    [48250, "48,250"],
    [18422.7, "18,422.7"],
    [0.1 + 0.2, "0.3"],
    [-0.02, "-0.02"],
    [-0, "0"],
    [1e21, "1,000,000,000,000,000,000,000"],
    [1234567890123456, "1,234,567,890,123,456"],
    [-Number.MAX_SAFE_INTEGER, "-9,007,199,254,740,991"],
    [1e6 / 3, "333,333.333333333"],
    [Number.NaN, "NaN"],
    // Far from 1, in scientific notation (written out, 1.8E308 took 412 characters).
    [1e22, "1E22"],
    [-Number.MAX_VALUE, "-1.79769313486232E308"],
    [Number.MIN_VALUE, "5E-324"],
    [1.5e-7, "1.5E-7"],
    [0.000001, "0.000001"],
  ])("number %s -> %s", (n, text) => {
    expect(formatNumber(n)).toBe(text);
  });

  it.each([
    ["date", "2026-05-04", "4 May 2026"],
    ["date", "2024-02-29", "29 February 2024"],
    ["date", "0000-05-04", "4 May 1 BC"],
    ["date", "0001-05-04", "4 May 1"],
    ["datetime", "0000-05-04T13:45:00Z", "4 May 1 BC at 13:45 UTC"],
    ["date", "2026-02-29", "2026-02-29"],
    ["date", "2026-05-04T23:30:00-02:00", "5 May 2026"],
    ["datetime", "2026-05-04T13:45:00Z", "4 May 2026 at 13:45 UTC"],
    ["datetime", "2026-05-04T04:05:06Z", "4 May 2026 at 04:05:06 UTC"],
    ["datetime", "2026-03-29T13:30:00.700Z", "29 March 2026 at 13:30:01 UTC"],
    ["datetime", "2026-03-29T13:30:59.600Z", "29 March 2026 at 13:31 UTC"],
    ["datetime", "2026-05-04T13:45:30.250+02:00", "4 May 2026 at 11:45:30 UTC"],
    ["datetime", "tomorrow", "tomorrow"],
    ["boolean", true, "Yes"],
    ["boolean", false, "No"],
    ["multichoice", ["a"], "a"],
    ["multichoice", ["a", "b"], "• a\n• b"],
  ])("%s %j -> %j", (type, value, text) => {
    expect(displayValue(type, value)).toEqual({ kind: "inline", text });
  });

  it.each([null, undefined, "", "   ", []])("%j is empty", (value) => {
    expect(displayValue("text", value)).toEqual({ kind: "empty" });
    expect(displayValue("table", value)).toEqual({ kind: "empty" });
  });

  it("formats every number of a table as the formatter does, repeated ones too", () => {
    const fmt = formatterFor("de-DE");
    const values = [12345.5, 0, -0, 12345.5, 0.1 + 0.2, NaN, 1e22, NaN, -7, 12345.5, 0];
    const table = displayValue("table", { columns: ["Wert"], rows: values.map((v) => ({ cells: [v] })) }, fmt);
    expect(table).toMatchObject({ kind: "table", numeric: [true] });
    expect((table as { rows: string[][] }).rows.map(([cell]) => cell)).toEqual(values.map((v) => fmt.number(v)));
    expect((table as { rows: string[][] }).rows[0][0]).toBe("12.345,5");
  });

  it("reads tables leniently and right-aligns number columns", () => {
    expect(displayValue("table", { columns: ["A", "B"], rows: [{ cells: ["x", 1] }, { cells: [null, 2.5, "extra"] }] })).toEqual({
      kind: "table",
      columns: ["A", "B", "Column 3"],
      rows: [
        ["x", "1", ""],
        ["", "2.5", "extra"],
      ],
      numeric: [false, true, false],
    });
    expect(displayValue("table", { columns: ["A"], rows: [] })).toEqual({ kind: "empty" });
  });
});

describe("TrueTypeSource (checked against fontkit)", () => {
  const files = {
    Regular: require.resolve("@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf"),
    Bold: require.resolve("@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf"),
  };

  it.each(Object.entries(files))("maps every character and reads the metrics of Noto Sans %s like fontkit", (_face, file) => {
    const bytes = readFileSync(file);
    const reference = fontkit.create(bytes) as fontkit.Font & { characterSet: number[]; numGlyphs: number };
    const source = new TrueTypeSource(new Uint8Array(bytes));
    expect(source.postscriptName).toBe(reference.postscriptName);
    expect(source.numGlyphs).toBe(reference.numGlyphs);
    expect(source.metrics).toEqual({
      unitsPerEm: reference.unitsPerEm,
      ascent: reference.ascent,
      descent: reference.descent,
      capHeight: reference.capHeight,
      italicAngle: reference.italicAngle,
      bbox: { minX: reference.bbox.minX, minY: reference.bbox.minY, maxX: reference.bbox.maxX, maxY: reference.bbox.maxY },
    });
    expect(reference.characterSet.length).toBeGreaterThan(3000);
    for (const cp of reference.characterSet) {
      const glyph = reference.glyphForCodePoint(cp);
      if (source.glyphId(cp) !== glyph.id) expect(source.glyphId(cp), `U+${cp.toString(16)}`).toBe(glyph.id);
      if (source.advanceWidth(glyph.id) !== glyph.advanceWidth) expect(source.advanceWidth(glyph.id)).toBe(glyph.advanceWidth);
    }
    for (const cp of [0x4e2d, 0x1f600, 0x2705, 0x10ffff, 0xe000, 0xffff]) expect(source.glyphId(cp)).toBe(0);
  });

  it("cuts subsets whose glyphs (composites included) are exact copies, renumbered from 0", () => {
    const bytes = readFileSync(files.Regular);
    const font = fontkit.create(bytes);
    const chars = [..."Åé ŻőΆώЁйxyz"];
    const gids = [0, ...chars.map((c) => font.glyphForCodePoint(c.codePointAt(0)!).id)];
    const subset = fontkit.create(new TrueTypeSource(new Uint8Array(bytes)).subset(gids)) as fontkit.Font & { numGlyphs: number };
    chars.forEach((c, i) => {
      const original = font.glyphForCodePoint(c.codePointAt(0)!);
      const copy = subset.getGlyph(i + 1);
      expect(copy.path.toSVG(), c).toBe(original.path.toSVG());
      expect(copy.advanceWidth).toBe(original.advanceWidth);
    });
    expect(subset.numGlyphs).toBeGreaterThan(gids.length); // components pulled in after the requested glyphs
    expect(subset.numGlyphs).toBeLessThan(40);
  });

  it("reads a file in part (its tables at once, glyph records as subsets need them) as it reads it whole", () => {
    const file = require.resolve("@expo-google-fonts/noto-sans-jp/400Regular/NotoSansJP_400Regular.ttf");
    const whole = new TrueTypeSource(new Uint8Array(readFileSync(file)));
    const part = TrueTypeSource.open(file);
    const text = [..."日本語のテキスト、漢字とかな。ABC 123 Ωé"];
    const gids = [0, ...text.map((c) => whole.glyphId(c.codePointAt(0)!))];
    expect(text.map((c) => part.glyphId(c.codePointAt(0)!))).toEqual(gids.slice(1));
    expect(gids.map((g) => part.advanceWidth(g))).toEqual(gids.map((g) => whole.advanceWidth(g)));
    expect(part.metrics).toEqual(whole.metrics);
    expect(part.postscriptName).toBe(whole.postscriptName);
    expect(Buffer.from(part.subset(gids)).equals(Buffer.from(whole.subset(gids)))).toBe(true);
    expect(Buffer.from(part.fileBytes).equals(readFileSync(file))).toBe(true);
  });
});
