import { z } from "zod";
import { pending } from "../../http/pending";
import { defineRoute } from "../../http/routes";
import { PRINT_PERMISSIONS } from "./permissions";

/** The object instance to send and where to (SPEC.md 4.2; the recipient fields come with issue 7). */
const sendPdfBody = z.looseObject({
  objectInstanceId: z.string().min(1).max(128),
});

/** SPEC.md 4.2: renders an object instance and emails the PDF as an attachment. */
export const sendPdf = defineRoute({
  method: "post",
  path: "/send-pdf",
  anyOf: PRINT_PERMISSIONS,
  body: sendPdfBody,
  handle: pending("Sending a PDF"),
});
