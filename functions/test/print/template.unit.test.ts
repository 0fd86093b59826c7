// Print templates in the renderer (render/template.ts, model.ts, blocks.ts, furniture.ts), read back
// as a reader sees them: the text poppler extracts and its order, the structure tree, what is left out,
// the header and footer lines with their placeholders filled, the watermark outside the structure.

import { describe, expect, it } from "vitest";
import { renderInstancePdf, type PreparedImage, type PrintableInstance } from "../../src/print/render";
import { formatterFor } from "../../src/print/render/format";
import { documentModel } from "../../src/print/render/model";
import { fillLine, holds, lineProblem, type DocumentTemplate } from "../../src/print/render/template";
import { pageContents, pdfInfo, qpdfCheck, qpdfObjects, structText, unmarkedContent } from "./pdfChecks";
import { layoutLines, pdfImages, popplerLines } from "./popplerText";
import { decoded } from "./scanCodes";

const options = { instanceId: "insp-7", targetName: "Acme North", generatedAt: new Date("2026-05-04T16:12:05Z") };
const fmt = formatterFor("en-GB", "UTC");

function photo(seed: number): PreparedImage {
  const [width, height] = [320, 240];
  const pixels = new Uint8Array(width * height * 3).map((_, i) => (i * seed) & 255);
  return { format: "pixels", pixels, width, height, channels: 3 };
}

const inspection: PrintableInstance = {
  title: "Boiler inspection B-12",
  objectTypeName: "Safety Inspection",
  sections: [
    {
      title: "Details",
      fields: [
        { label: "Boiler tag", type: "text", value: "B-12" },
        { label: "Manufacturer", type: "text", value: "Viessmann" },
        { label: "Model", type: "text", value: "Vitoplex 300" },
        { label: "Internal cost code", type: "text", value: "CC-4411" },
        { label: "Remarks", type: "text", value: "" },
        { label: "Status", type: "choice", value: "Draft" },
        { label: "Standards", type: "multichoice", value: ["EN 12953", "PED"] },
      ],
    },
    {
      title: "Photos",
      fields: [
        { label: "Front", type: "image", value: { storagePath: "p/front.jpg", caption: "Front view" } },
        { label: "Burner", type: "image", value: { storagePath: "p/burner.jpg", caption: "Burner" } },
        { label: "Gauge", type: "image", value: { storagePath: "p/gauge.jpg" } },
      ],
    },
    { title: "Internal", fields: [{ label: "Billing", type: "text", value: "Invoice 99" }] },
  ],
};
const images = new Map([
  ["p/front.jpg", photo(3)],
  ["p/burner.jpg", photo(5)],
  ["p/gauge.jpg", photo(7)],
]);

const render = (template: DocumentTemplate | undefined, instance = inspection, extra: object = {}) => renderInstancePdf(instance, { ...options, images, template, ...extra });
const text = (bytes: Uint8Array) => popplerLines(bytes).join("\n");

describe("lines and conditions", () => {
  it("fills placeholders, leaves doubled braces as braces, and reports a field the instance lacks", () => {
    const unknown: string[] = [];
    const line = fillLine("{title} p{page}/{pages} {{ref}} {field:Tag}{field:Nope}", { title: "T", page: "2", pages: "5" }, (l) => (l === "Tag" ? "B-12" : undefined), (p) => unknown.push(p));
    expect(line).toBe("T p2/5 {ref} B-12");
    expect(unknown).toEqual(["{field:Nope}"]);
  });

  it("refuses unknown placeholders and lone braces when a template is saved", () => {
    expect(lineProblem("Page {page} of {pages}")).toBeUndefined();
    expect(lineProblem("{{literal}}")).toBeUndefined();
    expect(lineProblem("{field:Boiler tag}")).toBeUndefined();
    expect(lineProblem("{pagecount}")).toMatch(/unknown placeholder \{pagecount\}/);
    expect(lineProblem("{field:}")).toMatch(/unknown placeholder/);
    expect(lineProblem("a } b")).toMatch(/brace/);
  });

  it("holds conditions on the first field of a label: equals, notEquals, isEmpty, a list holding a value", () => {
    const model = documentModel(inspection, "Acme", fmt, images);
    expect(holds({ field: "Status", equals: "Draft" }, model.field)).toBe(true);
    expect(holds({ field: "Status", notEquals: "Draft" }, model.field)).toBe(false);
    expect(holds({ field: "Standards", equals: "PED" }, model.field)).toBe(true);
    expect(holds({ field: "Remarks", isEmpty: true }, model.field)).toBe(true);
    expect(holds({ field: "Model", isEmpty: true }, model.field)).toBe(false);
    // Empty as the page shows it, as hideEmptyFields has it: a list of blanks, a table without rows.
    const blanks = documentModel({ ...inspection, sections: [{ title: "S", fields: [{ label: "Choices", type: "multichoice", value: [""] }, { label: "Grid", type: "table", value: { columns: ["a"], rows: [] } }] }] }, "Acme", fmt, images);
    expect(holds({ field: "Choices", isEmpty: true }, blanks.field)).toBe(true);
    expect(holds({ field: "Grid", isEmpty: true }, blanks.field)).toBe(true);
    // A field the instance lacks is empty, equal to nothing and unequal to nothing.
    expect(holds({ field: "Missing", isEmpty: true }, model.field)).toBe(true);
    expect(holds({ field: "Missing", equals: "x" }, model.field)).toBe(false);
    expect(holds({ field: "Missing", notEquals: "x" }, model.field)).toBe(false);
    expect(holds(undefined, model.field)).toBe(true);
  });
});

describe("the document model under a template", () => {
  it("without a template is the stored order, every field", () => {
    const model = documentModel(inspection, "Acme", fmt, images);
    expect(model.sections.map((s) => s.title)).toEqual(["Details", "Photos", "Internal"]);
    expect(model.sections[0].blocks.map((b) => b.label)).toEqual(["Boiler tag", "Manufacturer", "Model", "Internal cost code", "Remarks", "Status", "Standards"]);
  });

  it("lists sections and fields in its order, renamed, the others after them in stored order (others: show)", () => {
    const model = documentModel(inspection, "Acme", fmt, images, {
      sections: [{ title: "Internal", displayTitle: "Billing" }, { title: "Details", fields: [{ label: "Model", displayLabel: "Type" }, { label: "Boiler tag" }] }],
    });
    expect(model.sections.map((s) => s.title)).toEqual(["Billing", "Details", "Photos"]);
    expect(model.sections[1].blocks.map((b) => b.label)).toEqual(["Type", "Boiler tag", "Manufacturer", "Internal cost code", "Remarks", "Status", "Standards"]);
    expect(model.warnings).toEqual([]);
  });

  it("leaves out what it does not list (others: hide), empty fields, and what its conditions exclude", () => {
    const model = documentModel(inspection, "Acme", fmt, images, {
      others: "hide",
      hideEmptyFields: true,
      sections: [
        { title: "Details", fields: [{ label: "Boiler tag" }, { label: "Remarks" }, { label: "Internal cost code", when: { field: "Status", equals: "Final" } }, { label: "Status" }] },
        { title: "Photos", when: { field: "Status", notEquals: "Draft" } },
        { title: "Nowhere" },
        { title: "Details", fields: [{ label: "Absent" }] },
      ],
    });
    expect(model.sections.map((s) => s.title)).toEqual(["Details"]);
    expect(model.sections[0].blocks.map((b) => b.label)).toEqual(["Boiler tag", "Status"]);
    expect(model.warnings).toEqual(["section 'Nowhere' is not in the instance", "section 'Details' is listed more often than the instance has it"]);
  });

  it("says which listed names the instance lacks, and which it has fewer times than listed", () => {
    const model = documentModel(inspection, "Acme", fmt, images, {
      sections: [{ title: "Details", fields: [{ label: "Model" }, { label: "Model" }, { label: "Modell" }] }],
    });
    expect(model.sections[0].blocks.map((b) => b.label).slice(0, 1)).toEqual(["Model"]);
    expect(model.warnings).toEqual(["field 'Model' is listed more often than section 'Details' has it", "field 'Modell' is not in section 'Details'"]);
  });

  it("warns of a condition on a field the instance lacks (it counts as empty), wherever the condition is", async () => {
    const model = documentModel(inspection, "Acme", fmt, images, {
      sections: [
        { title: "Details", fields: [{ label: "Model", when: { field: "Stauts", equals: "Draft" } }, { label: "Status", when: { field: "Status", equals: "Draft" } }, { label: "Boiler tag", when: { field: "Stauts", isEmpty: true } }] },
        { title: "Photos", when: { field: "Revision", isEmpty: true } },
      ],
      others: "hide",
    });
    expect(model.sections.map((s) => s.blocks.map((b) => b.label))).toEqual([["Status", "Boiler tag"], ["Front", "Burner", "Gauge"]]);
    // Each missing field once, however many conditions look at it.
    expect(model.warnings).toEqual([
      "a condition looks at field 'Stauts', which is not in the instance (it counts as empty)",
      "a condition looks at field 'Revision', which is not in the instance (it counts as empty)",
    ]);
    // The watermark's too, once however often it is asked.
    const pdf = await render({ watermark: { text: "DRAFT", when: { field: "Stauts", equals: "Draft" } }, sections: [{ title: "Details", when: { field: "Stauts", isEmpty: true } }] });
    expect(pdf.warnings).toEqual(["a condition looks at field 'Stauts', which is not in the instance (it counts as empty)"]);
    expect(text(pdf.bytes)).not.toContain("DRAFT");
  });

  it("marks half fields only where a label/value row can be halved", () => {
    const model = documentModel(inspection, "Acme", fmt, images, {
      sections: [{ title: "Details", fields: [{ label: "Boiler tag", width: "half" }] }, { title: "Photos", fields: [{ label: "Front", width: "half" }] }],
    });
    expect(model.sections[0].blocks[0]).toMatchObject({ kind: "row", half: true });
    expect(model.sections[1].blocks[0]).not.toHaveProperty("half");
  });

  it("formats a field for {field:<label>} as it prints", () => {
    const model = documentModel(inspection, "Acme", fmt, images);
    expect(model.fieldText("Standards")).toBe("\u2022 EN 12953\n\u2022 PED");
    expect(model.fieldText("Remarks")).toBe("");
    expect(model.fieldText("Nope")).toBeUndefined();
    // A picture has no text a line could show.
    expect(model.fieldText("Front")).toBeNull();
  });
});

describe("a templated PDF", () => {
  const template: DocumentTemplate = {
    header: { left: "{title}", right: "Ref {field:Boiler tag}{field:Unknown}", firstPage: true },
    footer: { left: "{target} / {instanceId}", right: "Seite {page} von {pages}" },
    others: "hide",
    sections: [
      { title: "Details", displayTitle: "Equipment", fields: [{ label: "Boiler tag", width: "half" }, { label: "Manufacturer", width: "half" }, { label: "Model", width: "half" }, { label: "Status" }] },
      { title: "Photos", photosPerRow: 3 },
    ],
    watermark: { text: "DRAFT", when: { field: "Status", equals: "Draft" } },
  };

  it("prints what the template lists, in its order, two fields to a row, and nothing it hides", async () => {
    const pdf = await render(template);
    const lines = layoutLines(pdf.bytes);
    const all = lines.join("\n");
    // The half fields share rows, the third alone on its own; the photos three to a row.
    expect(lines.some((l) => /Boiler tag\s+B-12\s+Manufacturer\s+Viessmann/.test(l))).toBe(true);
    expect(lines.some((l) => /^\s*Model\s+Vitoplex 300\s*$/.test(l))).toBe(true);
    expect(lines.some((l) => /Front\s+Burner\s+Gauge/.test(l))).toBe(true);
    expect(all).toContain("Equipment");
    for (const gone of ["Internal cost code", "CC-4411", "Billing", "Invoice 99", "Standards"]) expect(all).not.toContain(gone);
    // The reading order (the structure tree): the two halves' fields in order, then the row under them.
    const tree = structText(pdf.bytes);
    const order = ["Boiler tag", "B-12", "Manufacturer", "Viessmann", "Model", "Vitoplex 300", "Status", "Draft", "Front", "Burner", "Gauge"].map((t) => tree.indexOf(`"${t}"`));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(pdf.warnings).toEqual([expect.stringMatching(/^\{field:Unknown\} has no value here/)]);
    expect(pdfInfo(pdf.bytes).Tagged).toBe("yes");
    expect(qpdfCheck(pdf.bytes)).toMatch(/No syntax or stream encoding errors/);
  });

  it("fills the header and footer on every page, the page numbers in the template's words", async () => {
    const long: PrintableInstance = { ...inspection, sections: [{ title: "Details", fields: Array.from({ length: 90 }, (_, i) => ({ label: `Reading ${i}`, type: "number", value: i })) }] };
    const pdf = await render({ header: { left: "{title}", right: "{objectType}", firstPage: true }, footer: { left: "{target}", right: "Seite {page} von {pages}", firstPage: false } }, long);
    expect(pdf.pageCount).toBeGreaterThan(1);
    const pages = text(pdf.bytes).split("\f").filter((p) => p.trim());
    pages.forEach((page, i) => {
      expect(page).toContain("Safety Inspection");
      // The footer's line is not on the first page (firstPage: false); the default footer is gone everywhere.
      if (i === 0) expect(page).not.toContain("Seite");
      else expect(page).toContain(`Seite ${i + 1} von ${pdf.pageCount}`);
      expect(page).not.toMatch(/Page \d+ of/);
    });
  });

  it("reports a placeholder without a value even in a line the document does not print (a one-page document's header)", async () => {
    const pdf = await render({ header: { right: "{field:Nope}" }, others: "hide", sections: [{ title: "Details" }] });
    expect(pdf.pageCount).toBe(1);
    expect(pdf.warnings).toEqual([expect.stringMatching(/^\{field:Nope\} has no value here/)]);
  });

  it("reports a {field:...} of a picture as printed as nothing, once, rather than printing nothing silently", async () => {
    const pdf = await render({ header: { left: "Ref {field:Front}", right: "{field:Front}", firstPage: true }, others: "hide", sections: [{ title: "Details" }] });
    expect(pdf.warnings).toEqual(["{field:Front} is a table or a picture, which a line cannot show: printed as nothing"]);
    expect(text(pdf.bytes)).toContain("Ref");
    expect(text(pdf.bytes)).not.toContain("front.jpg");
  });

  it("lays the watermark over every page's content, translucent, outside the structure tree, its text extractable", async () => {
    const pdf = await render(template);
    expect(text(pdf.bytes)).toContain("DRAFT");
    expect(structText(pdf.bytes)).not.toContain("DRAFT");
    for (const content of pageContents(pdf.bytes)) {
      // Last in the stream (over everything, photos included), an artifact of subtype Watermark in its translucent graphics state.
      const at = content.lastIndexOf("/Artifact <</Type /Pagination /Subtype /Watermark>> BDC");
      expect(at).toBeGreaterThan(0);
      expect(content.slice(at)).toMatch(/^[^]*\/GSw gs[^]*BT[^]*ET Q EMC EMC\s*$/);
      expect(unmarkedContent(content)).toEqual([]);
    }
    const resources = Object.values(qpdfObjects(pdf.bytes)).map((o) => (o as { value?: Record<string, unknown> }).value).find((v) => v?.["/ExtGState"]);
    expect(resources?.["/ExtGState"]).toEqual({ "/GSw": { "/Type": "/ExtGState", "/ca": 0.22 } });
  });

  it("prints no watermark when its condition does not hold", async () => {
    const final = { ...inspection, sections: inspection.sections.map((s) => ({ ...s, fields: s.fields.map((f) => (f.label === "Status" ? { ...f, value: "Final" } : f)) })) };
    expect(text((await render(template, final)).bytes)).not.toContain("DRAFT");
  });

  it("stays PDF/A-2u when asked, with every feature", async () => {
    const pdf = await render(template, inspection, { conformance: "PDF/A-2u" });
    expect(qpdfCheck(pdf.bytes)).toMatch(/No syntax or stream encoding errors/);
    expect(Buffer.from(pdf.bytes).toString("latin1")).toContain("pdfaid:part");
  });

  it("prints as the default layout when the template changes nothing", async () => {
    const plain = await render(undefined);
    const empty = await render({});
    expect(Buffer.from(empty.bytes).equals(Buffer.from(plain.bytes))).toBe(true);
  });
});

describe("a template's code", () => {
  const long: PrintableInstance = { ...inspection, sections: [{ title: "Details", fields: Array.from({ length: 60 }, (_, i) => ({ label: `Reading ${i}`, type: "number", value: i })) }] };
  const url = "https://print.example.com/t/acme-north/i/{instanceId}?tag={field:Boiler tag}";
  /** The Figures of the structure tree and their alternate texts (qpdf's objects). */
  const figures = (bytes: Uint8Array): string[] =>
    Object.values(qpdfObjects(bytes))
      .map((o) => (o as { value?: Record<string, unknown> }).value)
      .filter((v) => v?.["/S"] === "/Figure")
      .map((v) => String(v!["/Alt"]));

  it.each(["header-right", "title-right", "footer-left"] as const)("at %s: vector shapes a scanner reads on each page it is on, one Figure whose alternate text is its value", async (position) => {
    const instance = { ...long, sections: [{ ...long.sections[0], fields: [{ label: "Boiler tag", type: "text", value: "B-12" }, ...long.sections[0].fields] }] };
    const pdf = await render({ code: { kind: "qr", value: url, position } }, instance as PrintableInstance);
    const value = "https://print.example.com/t/acme-north/i/insp-7?tag=B-12";
    expect(pdf.pageCount).toBeGreaterThan(1);
    expect(decoded(pdf.bytes, "zbar", 1)).toEqual([`QR-Code:${value}`]);
    // Repeated on later pages at the header's or footer's place; beside the title on the first page only.
    expect(decoded(pdf.bytes, "zbar", 2)).toEqual(position === "title-right" ? [] : [`QR-Code:${value}`]);
    expect(pdfImages(pdf.bytes)).toEqual([]);
    expect(figures(pdf.bytes)).toEqual([`u:${value}`]);
    for (const content of pageContents(pdf.bytes)) expect(unmarkedContent(content)).toEqual([]);
    // Nothing drawn over it: the content starts below a header's code and ends above a footer's.
    expect(layoutLines(pdf.bytes).join("\n")).toContain("Reading 0");
    expect(qpdfCheck(pdf.bytes)).toMatch(/No syntax or stream encoding errors/);
  });

  it("reads as Code 128 and Data Matrix too", async () => {
    const bars = await render({ code: { kind: "code128", value: "INSP-{instanceId}", position: "title-right" } });
    expect(decoded(bars.bytes, "zbar")).toEqual(["CODE-128:INSP-insp-7"]);
    const matrix = await render({ code: { kind: "datamatrix", value: "{title}", position: "footer-left" } });
    expect(decoded(matrix.bytes, "dmtx")).toEqual(["DataMatrix:Boiler inspection B-12"]);
  });

  it("says a page number has no value in a code, which is one symbol for every page, even in the header", async () => {
    const pdf = await render({ code: { kind: "code128", value: "P{page}/{pages}-{instanceId}", position: "header-right" } });
    expect(decoded(pdf.bytes, "zbar")).toEqual(["CODE-128:P/-insp-7"]);
    expect(pdf.warnings).toEqual([
      "{page} has no value in a code, one symbol the same on every page: printed as nothing",
      "{pages} has no value in a code, one symbol the same on every page: printed as nothing",
    ]);
  });

  it("is left out, with a warning, when the symbology cannot carry the value", async () => {
    const pdf = await render({ code: { kind: "code128", value: "{title} €", position: "title-right" } });
    expect(figures(pdf.bytes)).toEqual(figures((await render(undefined)).bytes));
    expect(pdf.warnings).toEqual([expect.stringMatching(/Code 128 .*ASCII.*left out/)]);
  });
});

