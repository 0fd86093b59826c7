import { z } from "zod";
import { audit, hourlyEventId } from "../../audit";
import { defineRoute } from "../../http/routes";
import { idField } from "../../http/validation";
import { objectInstance, previewOfInstance } from "../documents";
import { asDocumentTemplate, printTemplateSchema } from "../templates/schema";
import { effectiveSettings, recordedSettings, settingsOverrides } from "../settings";
import { PRINT_PERMISSIONS } from "./permissions";

/** The header that carries the template's warnings: a JSON list of strings, percent-encoded (a header is ASCII). */
export const WARNINGS_HEADER = "Print-Warnings";
/** Most bytes of that header: a proxy refuses a response whose headers are too large (the emulator's at 64 KiB, a 500). */
export const WARNINGS_HEADER_BYTES = 8 * 1024;

/**
 * The header's value: the warnings as encodeURIComponent(JSON.stringify(list)) would give them, as
 * many as fit in WARNINGS_HEADER_BYTES, then one counting the rest (a 64 KiB template can name
 * hundreds of fields the instance lacks, each warned of).
 */
export function warningsHeader(warnings: readonly string[]): string {
  const encoded = (text: string) => encodeURIComponent(JSON.stringify(text));
  const parts: string[] = [];
  // "%5B" and "%5D" around, "%2C" between; room kept for the last entry that counts the rest.
  let bytes = 6 + encoded(`and ${warnings.length} more warning(s)`).length;
  for (const warning of warnings) {
    const part = encoded(warning);
    bytes += part.length + 3;
    if (bytes > WARNINGS_HEADER_BYTES) {
      parts.push(encoded(`and ${warnings.length - parts.length} more warning(s)`));
      break;
    }
    parts.push(part);
  }
  return `%5B${parts.join("%2C")}%5D`;
}

/** The instance to preview, and the template: given unsaved, named, or else the one its print would use. */
const previewBody = z
  .strictObject({
    objectInstanceId: idField.meta({ description: "Id of an object instance of the target", examples: ["inspection-short"] }),
    template: printTemplateSchema.optional().meta({ description: "An unsaved template to print with (the editor's)" }),
    templateId: idField.optional().meta({ description: "A saved template on the target's chain to print with" }),
    ...settingsOverrides,
  })
  .refine((body) => !(body.template && body.templateId), { message: "give template or templateId, not both", path: ["templateId"] });

/**
 * Issue 35: the instance rendered with a template, answered as the PDF's bytes: nothing stored,
 * nothing mailed, its own per-user quota, on the audit trail once per user, instance and hour
 * (`pdf.previewed`). A template editor calls it as its author types.
 */
export const preview = defineRoute({
  method: "post",
  path: "/preview",
  summary: "Render an object instance with a template (saved or not) and get the PDF itself, stored nowhere",
  anyOf: PRINT_PERMISSIONS,
  body: previewBody,
  reads: (scope) => [objectInstance(scope)],
  response: {
    status: 200,
    description: "The PDF's bytes.",
    schema: z.unknown(),
    binary: {
      mediaType: "application/pdf",
      headers: [{ name: WARNINGS_HEADER, description: "What the template names that the instance lacks (sections, fields, placeholders) or cannot print (a code's value): a JSON list of strings, percent-encoded as encodeURIComponent does; at most 8 KiB: past it, a last string counts the rest (\"and 120 more warning(s)\")." }],
    },
  },
  errors: {
    404: "No such object instance in this target, or templateId names no template on the target's chain.",
    422: "The instance is larger than the renderer's limits (the message names the limit), or cannot be printed.",
    429: "The user asked for too many previews this hour (PREVIEWS_PER_USER_PER_HOUR); Retry-After says for how long.",
    503: "Firestore or Cloud Storage unavailable (the preview is on the audit trail before it is answered).",
  },
  async handle({ access, caller, body, docs: [instance] }) {
    const given = body.template && asDocumentTemplate(body.template);
    const settings = effectiveSettings(access.chain, body);
    const pdf = await previewOfInstance(access, instance, settings, caller.uid, { given, templateId: body.templateId });
    // A preview is a PDF that leaves the service too: on the trail, once per user, instance and hour (an editor asks for hundreds).
    const id = hourlyEventId("pdf.previewed", [caller.uid, access.path, instance.id]);
    await audit(access, caller, { action: "pdf.previewed", subject: instance.id, details: { template: body.template ? "unsaved" : (body.templateId ?? "the instance's type's"), pageCount: pdf.pageCount, ...recordedSettings(settings) } }, id);
    return {
      bytes: pdf.bytes,
      headers: { [WARNINGS_HEADER]: warningsHeader(pdf.warnings), "Cache-Control": "no-store", "Content-Disposition": "inline" },
    };
  },
});
