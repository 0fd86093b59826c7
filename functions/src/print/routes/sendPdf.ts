import { z } from "zod";
import { MAX_ATTACHMENT_BYTES, SEND_PDF_LIMIT } from "../../config";
import { HttpError } from "../../http/errors";
import { defineRoute } from "../../http/routes";
import { idField } from "../../http/validation";
import { pdfBytes, pdfOfInstance, safeFileName } from "../documents";
import { sendMail } from "../mail";
import { consumeQuota } from "../rateLimit";
import { PRINT_PERMISSIONS } from "./permissions";

const MAX_RECIPIENTS = 10;

/** One recipient address; z.email already refuses CR/LF and other header-injection characters. */
const address = z.email().max(254);
/** One address or a list of them. */
const addresses = z.union([address, z.array(address).min(1).max(MAX_RECIPIENTS)]).transform((a) => (Array.isArray(a) ? a : [a]));
/** A single line of text: CR and LF would let a caller forge mail headers. */
const singleLine = (max: number) => z.string().trim().min(1).max(max).regex(/^[^\r\n]*$/, "must be a single line");

/** What send-pdf needs (SPEC.md 4.2 names objectInstanceId; issue 7 the rest). */
const sendPdfBody = z
  .strictObject({
    objectInstanceId: idField,
    to: addresses,
    cc: addresses.optional(),
    subject: singleLine(200).optional(),
    message: z.string().trim().min(1).max(10_000).optional(),
    fileName: singleLine(100).regex(/^[^/\\:*?"<>|]+$/, "must not contain / \\ : * ? \" < > |").optional(),
  })
  .refine((b) => b.to.length + (b.cc?.length ?? 0) <= MAX_RECIPIENTS, { message: `at most ${MAX_RECIPIENTS} recipients in to and cc together`, path: ["to"] });

/**
 * SPEC.md 4.2: renders (or reuses) the PDF of an object instance of the target and emails it as
 * an attachment through SendGrid. Counted against a per-user, per-target quota before any work.
 */
export const sendPdf = defineRoute({
  method: "post",
  path: "/send-pdf",
  anyOf: PRINT_PERMISSIONS,
  body: sendPdfBody,
  async handle({ access, caller, body, res }) {
    await consumeQuota("send-pdf", caller.uid, access, SEND_PDF_LIMIT);
    const pdf = await pdfOfInstance(access, body.objectInstanceId);
    if (pdf.sizeBytes > MAX_ATTACHMENT_BYTES) {
      throw new HttpError(413, `The PDF is ${pdf.sizeBytes} bytes; email attachments are limited to ${MAX_ATTACHMENT_BYTES} bytes. Use the print route's download URL instead.`);
    }
    const title = pdf.title;
    const messageId = await sendMail({
      to: body.to,
      cc: body.cc ?? [],
      subject: body.subject ?? `${title} (PDF)`,
      text: body.message ?? `Please find "${title}" attached as a PDF.`,
      attachment: { fileName: safeFileName(body.fileName ?? title), bytes: await pdfBytes(pdf) },
    });
    res.status(200).json({
      message: "PDF sent.",
      data: { recipients: body.to.length + (body.cc?.length ?? 0), storagePath: pdf.storagePath, messageId },
    });
  },
});
