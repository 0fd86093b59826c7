import { z } from "zod";
import { audit, hourlyEventId } from "../../audit";
import { defineRoute } from "../../http/routes";
import { idField } from "../../http/validation";
import { downloadUrl, objectInstance, pdfDetails, pdfOfInstance, printSource, templateSchema, templateShown } from "../documents";
import { effectiveSettings, settingsOverrides, shownSettings, shownSettingsSchema } from "../settings";
import { PRINT_PERMISSIONS } from "./permissions";

/** The object instance to print, by id (SPEC.md 4.1), and settings for this PDF only. */
const printBody = z.strictObject({
  objectInstanceId: idField.meta({ description: "Id of an object instance of the target", examples: ["inspection-short"] }),
  templateId: idField.optional().meta({ description: "A print template on the target's chain to print with; default: the nearest one for the instance's object type, else the default layout" }),
  ...settingsOverrides,
});

/**
 * SPEC.md 4.1: renders an object instance of the target to a PDF (or reuses the stored PDF of
 * the same version), stores it under generated-pdfs/ and answers 201 with a download URL.
 */
export const print = defineRoute({
  method: "post",
  path: "/print",
  summary: "Render an object instance of the target to a PDF and get a download URL",
  anyOf: PRINT_PERMISSIONS,
  body: printBody,
  reads: (scope) => [objectInstance(scope)],
  response: {
    status: 201,
    description: "The PDF is stored; `downloadUrl` fetches it.",
    schema: z.strictObject({
      message: z.string(),
      data: z.strictObject({
        downloadUrl: z.url().describe("Production: a V4 signed URL valid 15 minutes; emulator: a download-token URL."),
        expiresAt: z.iso.datetime().nullable().describe("When downloadUrl stops working; null under the emulator (it never expires)."),
        storagePath: z.string().regex(/^generated-pdfs\//).describe("The object in the default bucket, under generated-pdfs/."),
        sizeBytes: z.int().positive(),
        pageCount: z.int().positive(),
        cached: z.boolean().describe("True when the same version of the instance had been rendered before with the same settings."),
        ...shownSettingsSchema,
        template: templateSchema,
      }),
    }),
  },
  errors: {
    404: "No such object instance in this target, or templateId names no template on the target's chain.",
    422: "The instance is larger than the renderer's limits (the message names the limit), or cannot be printed.",
    429: "The user caused too many new PDFs this hour (RENDERS_PER_USER_PER_HOUR; a stored PDF does not count); Retry-After says for how long.",
    503: "Cloud Storage unavailable, or the target signs its PDFs and the service's signing key cannot be used now.",
  },
  async handle({ access, caller, body, docs: [instance] }) {
    const pdf = await pdfOfInstance(access, instance, await printSource(access, instance, body.templateId), effectiveSettings(access.chain, body), caller.uid);
    const { url, expiresAt } = await downloadUrl(pdf);
    // Before answering: a PDF whose URL leaves the service is on the trail, or the request fails (503).
    // A stored PDF printed again (no render, no quota) is recorded once an hour per user and PDF.
    const id = pdf.cached ? hourlyEventId("pdf.printed", [caller.uid, pdf.storagePath]) : undefined;
    await audit(access, caller, { action: "pdf.printed", subject: instance.id, details: pdfDetails(instance, pdf) }, id);
    return {
      message: pdf.cached ? "PDF ready (unchanged since it was last printed)." : "PDF generated.",
      data: { downloadUrl: url, expiresAt, storagePath: pdf.storagePath, sizeBytes: pdf.sizeBytes, pageCount: pdf.pageCount, cached: pdf.cached, ...shownSettings(pdf.settings), template: templateShown(pdf.template) },
    };
  },
});
