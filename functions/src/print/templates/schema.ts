// A print template as a client writes it (PUT /api/{target}/print-templates/{templateId}, and unsaved
// in a preview): zod schemas with the bounds that keep a template cheap to store, to check and to
// print. A bad template is a 400 naming the JSON path of each problem (http/validation.ts).

import { z } from "zod";
import { ONE_LINE, ONE_LINE_MESSAGE } from "../../http/validation";
import { BIDI_CONTROL_MESSAGE, HAS_BIDI_CONTROL } from "../render/text/bidiControls";
import { CODE_KINDS, CODE_POSITIONS, lineProblem, type DocumentTemplate } from "../render/template";

/** Bounds of one template (issue 35): its JSON, its sections, its fields in all, a line of text. */
export const TEMPLATE_LIMITS = { bytes: 64 * 1024, sections: 200, fields: 2_000, line: 200, objectTypeNames: 100, perTarget: 100 } as const;

/** One line of text: no control characters, no bidi controls (a report's text reads as stored), at most 200 characters. */
const line = (description: string) =>
  z
    .string()
    .max(TEMPLATE_LIMITS.line)
    .regex(ONE_LINE, ONE_LINE_MESSAGE)
    .refine((v) => !HAS_BIDI_CONTROL.test(v), BIDI_CONTROL_MESSAGE)
    .meta({ description });

/** A line with placeholders, checked for unknown ones. */
const filledLine = (description: string) =>
  line(description).superRefine((v, ctx) => {
    const problem = lineProblem(v);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

/** A name the instance's data holds (a section's title, a field's label, an object type): non-empty. */
const storedName = (description: string) => line(description).min(1);

// A comparison with the stored value: a string, a number or a boolean (a list value matches when it holds it).
const scalar = z.union([z.string().max(TEMPLATE_LIMITS.line), z.number(), z.boolean()]);

// A condition on the first field of that label; the comparisons given must all hold.
const condition = z
  .strictObject({
    field: storedName("The label of the field it looks at (its first in the instance)"),
    equals: scalar.optional().meta({ description: "Holds when the stored value is this (or, for a list, holds it)" }),
    notEquals: scalar.optional().meta({ description: "Holds when the stored value is not this (a missing field is not)" }),
    isEmpty: z.boolean().optional().meta({ description: "true: holds when the field is missing or empty; false: when it has a value" }),
  })
  .refine((c) => c.equals !== undefined || c.notEquals !== undefined || c.isEmpty !== undefined, "must say equals, notEquals or isEmpty");

// A field listed in a section, in the order printed.
const field = z.strictObject({
  label: storedName("The stored field's label"),
  displayLabel: line("The label printed instead").optional(),
  width: z.enum(["full", "half"]).optional().meta({ description: "half: two consecutive half fields share a row (default full)" }),
  when: condition.optional().meta({ description: "Printed only when this holds" }),
});

// A section listed, in the order printed.
const section = z.strictObject({
  title: storedName("The stored section's title"),
  displayTitle: line("The heading printed instead").optional(),
  fields: z.array(field).max(TEMPLATE_LIMITS.fields).optional().meta({ description: "Its fields in this order (absent: all, in stored order)" }),
  photosPerRow: z.literal([1, 2, 3]).optional().meta({ description: "Pictures side by side, 1 to 3 (default 1)" }),
  when: condition.optional().meta({ description: "Printed only when this holds" }),
});

// A line across every page's top or foot, in three parts.
const pageLine = (where: "header" | "footer") =>
  z.strictObject({
    left: filledLine("Text at the start, with placeholders").optional(),
    center: filledLine("Text in the middle, with placeholders").optional(),
    right: filledLine("Text at the end, with placeholders").optional(),
    firstPage: z
      .boolean()
      .optional()
      .meta({ description: `Also on the first page (default ${where === "header" ? "false: the title heads it" : "true"})` }),
  });

// A code drawn as vector shapes, a Figure whose alternate text is what it encodes.
const code = z
  .strictObject({
    kind: z.enum(CODE_KINDS),
    value: filledLine("What it encodes, with placeholders, e.g. https://example.com/records/{instanceId}").min(1),
    position: z.enum(CODE_POSITIONS).meta({ description: "header-right and footer-left: every page; title-right: beside the title on the first page" }),
    size: z.number().min(8).max(60).optional().meta({ description: "Height in mm without the quiet zone (default 20; Code 128: 12)" }),
  })
  .refine((c) => c.kind !== "qr" || c.size === undefined || c.size >= 20, { message: "must be at least 20 mm for a QR code", path: ["size"] });

/** A print template (issue 35). */
export const printTemplateSchema = z
  .strictObject({
    name: line("What editors call it").min(1),
    objectTypeNames: z
      .array(storedName("An object type it prints"))
      .max(TEMPLATE_LIMITS.objectTypeNames)
      .meta({ description: "The object types it prints by default (the nearest template on the target's chain that lists one wins); [] for none: used only when named" }),
    header: pageLine("header").optional().meta({ description: "Default: pages after the first carry the title" }),
    footer: pageLine("footer").optional().meta({ description: "Default: the instance id, the generation time and the page's number of the pages" }),
    sections: z.array(section).max(TEMPLATE_LIMITS.sections).optional().meta({ description: "The sections in this order (absent: all, in stored order)" }),
    others: z.enum(["show", "hide"]).optional().meta({ description: "Sections and fields not listed: appended in stored order (show, default) or left out" }),
    hideEmptyFields: z.boolean().optional().meta({ description: "Leave out fields without a value (missing, \"\", an empty list or table)" }),
    watermark: z
      .strictObject({ text: line("Printed large, diagonal and light across every page").min(1), when: condition.optional() })
      .optional(),
    code: code.optional(),
  })
  .superRefine((template, ctx) => {
    const fields = (template.sections ?? []).reduce((sum, s) => sum + (s.fields?.length ?? 0), 0);
    if (fields > TEMPLATE_LIMITS.fields) ctx.addIssue({ code: "custom", path: ["sections"], message: `lists ${fields} fields; at most ${TEMPLATE_LIMITS.fields} in all` });
    const bytes = Buffer.byteLength(JSON.stringify(template));
    if (bytes > TEMPLATE_LIMITS.bytes) ctx.addIssue({ code: "custom", path: [], message: `the template is ${bytes} bytes of JSON; at most ${TEMPLATE_LIMITS.bytes}` });
  });

export type PrintTemplate = z.infer<typeof printTemplateSchema>;

// The renderer takes a checked template as it is.
export const asDocumentTemplate = (template: PrintTemplate, id?: string, version?: number): DocumentTemplate => ({ ...template, id, version });
