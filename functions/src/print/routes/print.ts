import { z } from "zod";
import { defineRoute } from "../../http/routes";
import { idField } from "../../http/validation";
import { downloadUrl, pdfOfInstance } from "../documents";
import { PRINT_PERMISSIONS } from "./permissions";

/** The object instance to print, by id (SPEC.md 4.1). */
const printBody = z.strictObject({
  objectInstanceId: idField,
});

/**
 * SPEC.md 4.1: renders an object instance of the target to a PDF (or reuses the stored PDF of
 * the same version), stores it under generated-pdfs/ and answers 201 with a download URL.
 */
export const print = defineRoute({
  method: "post",
  path: "/print",
  anyOf: PRINT_PERMISSIONS,
  body: printBody,
  async handle({ access, body: { objectInstanceId }, res }) {
    const pdf = await pdfOfInstance(access, objectInstanceId);
    const { url, expiresAt } = await downloadUrl(pdf);
    res.status(201).json({
      message: pdf.cached ? "PDF ready (unchanged since it was last printed)." : "PDF generated.",
      data: { downloadUrl: url, expiresAt, storagePath: pdf.storagePath, sizeBytes: pdf.sizeBytes, pageCount: pdf.pageCount, cached: pdf.cached },
    });
  },
});
