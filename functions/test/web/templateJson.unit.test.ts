// The template editor's reading of its JSON (web/templateJson.ts): the place of a parse error, the
// problems a 400 names, and the text each JSON path points at.

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { printTemplateSchema } from "../../src/print/templates/schema";
import { parseOr400 } from "../../src/http/validation";
import { locate, parseErrorPlace, problemsOf, valueRanges } from "../../web/templateJson";

const TEXT = JSON.stringify(
  { name: "Report", objectTypeNames: [], sections: [{ title: "A", fields: [{ label: "x", width: "half" }, { label: "y \"quoted\" [1]", width: "third" }] }], watermark: { text: "DRAFT" } },
  null,
  2,
);
const at = (text: string, range: { start: number; end: number } | undefined) => range && text.slice(range.start, range.end);

/** The 400's message for a template under `template`, as the preview route words it. */
function messageOf(template: unknown): string {
  try {
    parseOr400(z.strictObject({ template: printTemplateSchema }), { template }, "body");
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("the template passed");
}

describe("the template editor's JSON", () => {
  it("finds each value by its path, from its key to its end, in any layout", () => {
    const ranges = valueRanges(TEXT);
    expect(at(TEXT, ranges.get("sections.0.fields.1.width"))).toBe('"width": "third"');
    expect(at(TEXT, ranges.get("sections.0.fields.1"))).toMatch(/^\{\s+"label": "y \\"quoted\\" \[1\]",\s+"width": "third"\s+\}$/);
    expect(at(TEXT, ranges.get("objectTypeNames"))).toBe('"objectTypeNames": []');
    expect(at(TEXT, ranges.get(""))).toBe(TEXT);
    const compact = '{"a":[1,{"b":true},null],"c":{"d e":-1.5e3}}';
    const compactRanges = valueRanges(compact);
    expect(at(compact, compactRanges.get("a.1.b"))).toBe('"b":true');
    expect(at(compact, compactRanges.get("a.2"))).toBe("null");
    expect(at(compact, compactRanges.get("c.d e"))).toBe('"d e":-1.5e3');
  });

  it("points a missing field at the object that lacks it, and text that is not JSON nowhere", () => {
    expect(locate(TEXT, ["sections", "0", "fields", "1", "width"])).toMatchObject({ exact: true });
    expect(at(TEXT, locate(TEXT, ["watermark", "when"]))).toBe('"watermark": {\n    "text": "DRAFT"\n  }');
    expect(locate(TEXT, ["watermark", "when"])).toMatchObject({ exact: false });
    expect(locate(TEXT.slice(0, -1), ["name"])).toBeUndefined();
  });

  it("reads the place of a parse error from either engine's message", () => {
    const text = '{\n  "name": "x"\n  "sections": []\n}';
    let error: Error | undefined;
    try {
      JSON.parse(text);
    } catch (e) {
      error = e as Error;
    }
    expect(parseErrorPlace(text, error!)).toEqual({ offset: 18, line: 3, column: 3 });
    expect(parseErrorPlace(text, new Error("JSON.parse: expected ',' or '}' after property value in object at line 3 column 3 of the JSON data"))).toEqual({ offset: 18, line: 3, column: 3 });
  });

  it("lists the problems of a 400 by their path in the template, an unknown field at the field itself", () => {
    const template = { ...JSON.parse(TEXT), name: "", feilds: 1, code: { kind: "qr", value: "{nope}", position: "title-right" } };
    const problems = problemsOf(messageOf(template), ["template"]);
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: ["sections", "0", "fields", "1", "width"], text: expect.stringMatching(/^'sections\.0\.fields\.1\.width': Invalid option/) },
        { path: ["name"], text: expect.stringMatching(/^'name': /) },
        { path: ["feilds"], text: "unknown field 'feilds'" },
        { path: ["code", "value"], text: expect.stringMatching(/unknown placeholder \{nope\} \(known: .*; \{\{ and \}\} for braces\)$/) },
      ]),
    );
    expect(problems).toHaveLength(4);
    // Past the 20 a 400 names, the rest are counted.
    const many = problemsOf(messageOf({ name: "x", objectTypeNames: [], sections: Array.from({ length: 25 }, () => ({ title: "" })) }), ["template"]);
    expect(many).toHaveLength(21);
    expect(many.at(-1)).toEqual({ text: "and 5 more problem(s)" });
    // A problem outside the template (the body's own fields) is listed without a path; a PUT's paths are the template's own.
    expect(problemsOf("Invalid body: 'name': Too small; 'code.kind': Invalid option.")).toEqual([
      { path: ["name"], text: "'name': Too small" },
      { path: ["code", "kind"], text: "'code.kind': Invalid option" },
    ]);
    expect(problemsOf("Invalid body: 'objectInstanceId': is not a valid id: it is empty.", ["template"])).toEqual([{ text: "'objectInstanceId': is not a valid id: it is empty" }]);
  });
});
