import { z } from "zod";
import { db } from "../../firebase";
import { firestoreCall } from "../../http/deadline";
import { badRequest } from "../../http/errors";
import { defineRoute } from "../../http/routes";
import { printedPdfPath, sha256Hex, type PrintedPdfRecord } from "../documents";
import { trustedChains } from "../signing/serviceSigner";
import { PRINT_PERMISSIONS } from "./permissions";

/** The largest PDF the route reads: as large as send-pdf attaches (MAX_ATTACHMENT_BYTES). */
export const MAX_VERIFIED_PDF_BYTES = 20 * 1024 * 1024;

/** What the answer says of each verdict. */
function verdict(signed: boolean, valid: boolean, coversWholeDocument: boolean, issuedHere: boolean): string {
  if (!signed) return issuedHere ? "The PDF is not signed; it is one this target printed." : "The PDF is not signed.";
  if (!valid) return "The PDF's signature is not valid: the file was changed after it was signed, or it was not signed by this service's key.";
  const whole = coversWholeDocument ? "" : " Content was added after the signature (an incremental update), which the signature does not cover.";
  return `The PDF's signature is valid: signed with this service's key, unchanged since.${whole}${issuedHere ? " It is one this target printed." : ""}`;
}

/**
 * Checks a PDF's signature (issue 36): whether it is signed, whether the signature holds over its
 * bytes and was made by the service's key (its current chain or one from before a rotation), and
 * whether this target printed this very file (its SHA-256 recorded at print time). A file another
 * target printed is answered as one this target did not print, naming nothing of it.
 */
export const verifyPdf = defineRoute({
  method: "post",
  path: "/verify",
  summary: "Check a PDF's signature, and whether this target printed it (the body: the PDF's bytes, application/pdf, at most 20 MiB)",
  anyOf: PRINT_PERMISSIONS,
  upload: { mediaTypes: ["application/pdf"], maxBytes: MAX_VERIFIED_PDF_BYTES },
  body: z.instanceof(Buffer), // the file's bytes, as `upload` takes them
  response: {
    status: 200,
    description: "What the PDF's signature says, and whether this target printed it.",
    schema: z.strictObject({
      message: z.string(),
      data: z.strictObject({
        signed: z.boolean().describe("The PDF has a signature (its last one is checked)."),
        valid: z.boolean().describe("The signature holds over the signed bytes, and its certificate is the service's (the current chain or one from before a rotation), valid when it signed."),
        coversWholeDocument: z.boolean().describe("The signed bytes are the whole file but the signature itself: nothing was appended after signing."),
        signedAt: z.iso.datetime().nullable().describe("The time of signing the signature claims (/M); null when unsigned or absent."),
        signer: z
          .strictObject({ subject: z.string(), issuer: z.string(), serialNumber: z.string().describe("Hexadecimal, upper case.") })
          .nullable()
          .describe("The certificate the signature names as its signer's, trusted or not; null when unsigned or unreadable."),
        issuedHere: z.boolean().describe("This target printed this very file (its SHA-256 was recorded when it was printed signed, within the last 400 days)."),
        objectInstanceId: z.string().optional().describe("When issuedHere: the object instance it shows (none for a print job's merged PDF)."),
        storagePath: z.string().optional().describe("When issuedHere: where it is stored, under generated-pdfs/ (a print job's: its output, the ZIP or the merged PDF)."),
        printJobId: z.string().optional().describe("When issuedHere and a print job printed it: the job."),
      }),
    }),
  },
  errors: {
    400: "The body is not a PDF, or its signature cannot be read.",
    503: "The service's signing certificate chain cannot be read (configuration), or Firestore is unavailable.",
  },
  async handle({ access, body }) {
    // Loaded on the first check only: pkijs and the CMS parser are not needed to print.
    const [{ verifyPdfSignature, MalformedPdfSignature }, chains] = await Promise.all([import("../signing/verify.js"), trustedChains()]);
    const bytes = new Uint8Array(body.buffer, body.byteOffset, body.length);
    const recordRead = firestoreCall(() => db().doc(printedPdfPath(access.path, sha256Hex(bytes))).get());
    recordRead.catch(() => undefined); // awaited below, unless the file is refused first
    let report;
    try {
      report = await verifyPdfSignature(bytes, chains);
    } catch (error) {
      if (error instanceof MalformedPdfSignature) throw badRequest(`The body is not a PDF whose signature can be read: ${error.message}.`);
      throw error;
    }
    const record = (await recordRead).data() as PrintedPdfRecord | undefined;
    const issuedHere = record !== undefined;
    return {
      message: verdict(report.signed, report.valid, report.coversWholeDocument, issuedHere),
      data: {
        signed: report.signed,
        valid: report.valid,
        coversWholeDocument: report.coversWholeDocument,
        signedAt: report.signedAt ?? null,
        signer: report.signer ?? null,
        issuedHere,
        ...(record && { ...(record.objectInstanceId && { objectInstanceId: record.objectInstanceId }), storagePath: record.storagePath, ...(record.printJobId && { printJobId: record.printJobId }) }),
      },
    };
  },
});
