import { describe, expect, it } from "vitest";
import { parseOr400 } from "../../src/http/validation";
import { printTemplateSchema, TEMPLATE_LIMITS } from "../../src/print/templates/schema";

// The 400s an editor meets for the common mistakes in a template (PUT print-templates): each names
// the JSON path of the problem and says what is wrong in words a person can act on.

const base = { name: "Inspection", objectTypeNames: ["Safety Inspection"] };
const messageOf = (body: unknown): string => {
  try {
    parseOr400(printTemplateSchema, body, "body");
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("accepted");
};

describe("the 400 messages of a bad template", () => {
  it.each([
    ["an unknown key", { ...base, colour: "red" }, "Invalid body: unknown field 'colour'."],
    ["an unknown key of a section", { ...base, sections: [{ title: "Checks", feilds: [] }] }, "Invalid body: 'sections.0': unknown field 'feilds'."],
    ["a wrong width", { ...base, sections: [{ title: "Checks", fields: [{ label: "A" }, { label: "B", width: "third" }] }] }, `Invalid body: 'sections.0.fields.1.width': Invalid option: expected one of "full"|"half".`],
    ["a wrong 'others'", { ...base, others: "maybe" }, `Invalid body: 'others': Invalid option: expected one of "show"|"hide".`],
    ["photos per row out of range", { ...base, sections: [{ title: "Photos", photosPerRow: 4 }] }, "Invalid body: 'sections.0.photosPerRow': Invalid option: expected one of 1|2|3."],
    ["an unknown placeholder", { ...base, footer: { left: "Page {page} of {total}" } }, "Invalid body: 'footer.left': has an unknown placeholder {total} (known: {title}, {objectType}, {target}, {instanceId}, {generatedAt}, {page}, {pages}, {field:<label>}; {{ and }} for braces)."],
    ["a lone brace", { ...base, header: { right: "Price {" } }, "Invalid body: 'header.right': has a brace that opens or closes no placeholder (write {{ or }} for a brace)."],
    ["too many sections", { ...base, sections: Array.from({ length: TEMPLATE_LIMITS.sections + 1 }, (_, i) => ({ title: `S${i}` })) }, "Invalid body: 'sections': Too big: expected array to have <=200 items."],
    ["too many fields in all", { ...base, sections: [0, 1, 2].map((i) => ({ title: `S${i}`, fields: Array.from({ length: 700 }, (_, j) => ({ label: `F${j}` })) })) }, "Invalid body: 'sections': lists 2100 fields; at most 2000 in all."],
    ["a condition that compares nothing", { ...base, watermark: { text: "DRAFT", when: { field: "Status" } } }, "Invalid body: 'watermark.when': must say equals, notEquals or isEmpty."],
    ["a QR code too small", { ...base, code: { kind: "qr", value: "{instanceId}", position: "header-right", size: 10 } }, "Invalid body: 'code.size': must be at least 20 mm for a QR code."],
    ["objectTypeNames as a string", { ...base, objectTypeNames: "Safety Inspection" }, "Invalid body: 'objectTypeNames': Invalid input: expected array, received string."],
    ["no name", { objectTypeNames: [] }, "Invalid body: 'name': Invalid input: expected string, received undefined."],
    ["a name of two lines", { ...base, name: "Two\nlines" }, "Invalid body: 'name': must be a single line without control characters."],
  ])("%s", (_what, body, message) => {
    expect(messageOf(body)).toBe(message);
  });

  it("over 64 KiB of JSON", () => {
    const sections = Array.from({ length: 150 }, (_, i) => ({ title: `S${i}`.padEnd(190, "x"), displayTitle: "y".repeat(200), fields: [{ label: "z".repeat(200) }] }));
    expect(messageOf({ ...base, sections })).toMatch(/^Invalid body: the template is \d+ bytes of JSON; at most 65536\.$/);
  });

  it("names every problem of one body, each with its path", () => {
    expect(messageOf({ ...base, name: "", others: "all", sections: [{ title: "S", fields: [{ label: "A", width: "wide" }] }] })).toBe(
      `Invalid body: 'name': Too small: expected string to have >=1 characters; 'sections.0.fields.0.width': Invalid option: expected one of "full"|"half"; 'others': Invalid option: expected one of "show"|"hide".`,
    );
  });
});
