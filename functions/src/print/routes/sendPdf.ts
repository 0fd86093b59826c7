import { z } from "zod";
import { audit } from "../../audit";
import * as logs from "../../logs";
import { MAX_ATTACHMENT_BYTES, SEND_PDF_LIMITS, params } from "../../config";
import { HttpError } from "../../http/errors";
import { defineRoute } from "../../http/routes";
import { asOneLine, idField, ONE_LINE, ONE_LINE_MESSAGE } from "../../http/validation";
import { objectInstance, pdfBytes, pdfDetails, pdfOfInstance, printSource, safeFileName, templateSchema, templateShown } from "../documents";
import { effectiveSettings, settingsOverrides, shownSettings, shownSettingsSchema } from "../settings";
import { idempotent } from "../idempotency";
import { mailWords } from "../mailWords";
import { BIDI_CONTROLS, HAS_BIDI_CONTROL } from "../render/text/bidiControls";
import { assertMailConfigured, sendMail } from "../mail";
import { consumeQuotas } from "../rateLimit";
import { assertRecipientsAllowed, domainOf, mailingAccount, senderNote } from "../recipients";
import { PRINT_PERMISSIONS } from "./permissions";

const MAX_RECIPIENTS = 10;

/** An address within SMTP's limits (RFC 5321 4.5.3.1): SendGrid's refusal would reach the caller as a 502, after the quota. */
const withinMailLimits = (address: string): boolean => {
  const at = address.lastIndexOf("@");
  return at <= 64 && address.slice(at + 1).split(".").every((label) => label.length <= 63);
};
/** One recipient address; z.email already refuses CR/LF and other header-injection characters. */
const address = z
  .email()
  .max(254)
  // Only for an address: one that is not gets z.email's message alone.
  .refine(withinMailLimits, { message: "must have at most 64 characters before the @ and 63 in each part of the domain", when: (payload) => payload.issues.length === 0 });
/** One address or a list of them (a list of none or too many says what is expected, not zod's "Invalid input"). */
const RECIPIENTS_EXPECTED = `must be an email address or a list of 1 to ${MAX_RECIPIENTS}`;
const addresses = z
  .union([address, z.array(address).min(1, RECIPIENTS_EXPECTED).max(MAX_RECIPIENTS, RECIPIENTS_EXPECTED)], { error: RECIPIENTS_EXPECTED })
  .transform((a) => (Array.isArray(a) ? a : [a]));
const recipientCount = (field: unknown): number => (Array.isArray(field) ? field.length : field === undefined ? 0 : 1);
/** A single line of text: CR and LF would let a caller forge mail headers. */
const singleLine = (max: number) => z.string().trim().min(1).max(max).regex(ONE_LINE, ONE_LINE_MESSAGE);

/** What send-pdf needs (SPEC.md 4.2 names objectInstanceId; issue 7 the rest). */
const sendPdfBody = z
  .strictObject({
    objectInstanceId: idField.meta({ description: "Id of an object instance of the target", examples: ["inspection-short"] }),
    to: addresses.meta({ description: "One address or a list", examples: ["someone@example.com"] }),
    cc: addresses.optional(),
    // No bidi embedding, override or isolate: a mail client would show "gpj.exe" as "exe.jpg" (RLM/LRM marks pass).
    subject: singleLine(200).refine((s) => !HAS_BIDI_CONTROL.test(s), "must not contain bidi embedding, override or isolate characters").optional(),
    // Lines and tabs, but no other control character (NUL, ESC, C1): nothing a mail client would render or a relay refuse.
    message: z.string().trim().min(1).max(10_000).regex(/^(?:[^\p{Cc}]|[\t\n\r])*$/u, "must not contain control characters other than line breaks and tabs").optional(),
    fileName: singleLine(100).regex(/^[^/\\:*?"<>|]+$/, "must not contain / \\ : * ? \" < > |").optional(),
    templateId: idField.optional().meta({ description: "A print template on the target's chain to print with; default: the nearest one for the instance's object type, else the default layout" }),
    ...settingsOverrides,
  })
  // Zod runs this even when an address failed (a format issue does not abort), with that field untransformed: a string is one recipient.
  .refine((b) => recipientCount(b.to) + recipientCount(b.cc) <= MAX_RECIPIENTS, { message: `at most ${MAX_RECIPIENTS} recipients in to and cc together`, path: ["to"] })
  .transform(({ to, cc, ...rest }) => ({ ...rest, ...uniqueRecipients(to, cc ?? []) }));

/**
 * Each address once, in to before cc, whatever its case: SendGrid refuses a message that names an
 * address twice in to and cc (400, which would reach the caller as a 502), and one person needs
 * one copy. Quotas and the answer count the addresses mailed.
 */
export function uniqueRecipients(to: readonly string[], cc: readonly string[]): { to: string[]; cc?: string[] } {
  const seen = new Set<string>();
  const once = (list: readonly string[]) =>
    list.filter((address) => {
      const key = address.toLowerCase();
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  const unique = { to: once(to), cc: once(cc) };
  return unique.cc.length > 0 ? unique : { to: unique.to };
}

/** 413 for a PDF too large for SendGrid (MAX_ATTACHMENT_BYTES); the print route's URL still serves it. */
export function assertAttachable(sizeBytes: number): void {
  if (sizeBytes > MAX_ATTACHMENT_BYTES) {
    throw new HttpError(413, `The PDF is ${sizeBytes} bytes; email attachments are limited to ${MAX_ATTACHMENT_BYTES} bytes. Use the print route's download URL instead.`);
  }
}

/**
 * SPEC.md 4.2: renders (or reuses) the PDF of an object instance of the target and emails it as
 * an attachment through SendGrid. Before any work: the target's recipient domains (400), the
 * Idempotency-Key (a repeat answers the first answer), the instance and template (404), email's
 * configuration (503). Then the PDF (stored, or rendered under the render quota: 422, 413, or 503
 * for the signing key), then the send quotas (429), all spent together, then the mail.
 */
export const sendPdf = defineRoute({
  method: "post",
  path: "/send-pdf",
  summary: "Render an object instance of the target and email the PDF as an attachment",
  anyOf: PRINT_PERMISSIONS,
  body: sendPdfBody,
  reads: (scope) => [objectInstance(scope)],
  response: {
    status: 200,
    description: "SendGrid accepted the email.",
    schema: z.strictObject({
      message: z.string(),
      data: z.strictObject({
        recipients: z.int().min(1).max(MAX_RECIPIENTS).describe("Addresses in to and cc together."),
        storagePath: z.string().regex(/^generated-pdfs\//).describe("The PDF sent, as the print route stores it."),
        messageId: z.string().describe("SendGrid's X-Message-Id."),
        ...shownSettingsSchema,
        template: templateSchema,
      }),
    }),
  },
  headers: [
    {
      name: "Idempotency-Key",
      description: "Optional, 1-255 visible ASCII characters. The same key from the same user within 24 hours mails once and answers the first answer again (with Idempotent-Replayed: true).",
    },
  ],
  errors: {
    400: "Invalid body, a recipient outside the target's allowed domains, or an invalid Idempotency-Key.",
    404: "No such object instance in this target, or templateId names no template on the target's chain.",
    409: "A request with the same Idempotency-Key is still being processed.",
    413: "The PDF is over 20 MB, too large to email.",
    422: "The instance is larger than the renderer's limits (the message names the limit), or cannot be printed; or the Idempotency-Key was used for another request.",
    429: "A quota is spent: sends per user on this target, recipients per user, recipients per tenant, or new PDFs per user (Retry-After says for how long).",
    502: "SendGrid refused or failed the email.",
    503: "Email is not configured, Cloud Storage is unavailable, or the target signs its PDFs and the service's signing key cannot be used now.",
    504: "SendGrid did not answer within 10 s.",
  },
  async handle({ access, caller, body, docs: [instance], req, res }) {
    const recipients = [...body.to, ...(body.cc ?? [])];
    assertRecipientsAllowed(access, recipients);
    return idempotent(req, res, caller.uid, access.path, body, async () => {
      // What is known before any work comes first: a send that cannot happen spends no quota.
      // (Inside: a repeat answers the first answer, whatever became of the instance since.)
      const source = await printSource(access, instance, body.templateId);
      assertMailConfigured();
      const settings = effectiveSettings(access.chain, body);
      // The PDF before the send quotas: one that cannot be made (a limit's 422, the signing key's 503)
      // or mailed (413) spends none; a render is counted by its own quota (pdfOfInstance).
      const pdf = await pdfOfInstance(access, instance, source, settings, caller.uid);
      assertAttachable(pdf.sizeBytes);
      const { sendsPerUserAndTarget, recipientsPerUser, recipientsPerTenant } = SEND_PDF_LIMITS;
      await consumeQuotas([
        { action: "send-pdf", subject: `${caller.uid}|${access.path}`, ...sendsPerUserAndTarget, amount: 1, refusal: `At most ${sendsPerUserAndTarget.max} emails per hour per user and target` },
        { action: "send-pdf-recipients", subject: caller.uid, ...recipientsPerUser, amount: recipients.length, refusal: `At most ${recipientsPerUser.max} recipients per hour per user, over every target` },
        { action: "send-pdf-tenant-recipients", subject: mailingAccount(access), ...recipientsPerTenant, amount: recipients.length, refusal: `At most ${recipientsPerTenant.max} recipients per day for this tenant` },
      ]);
      // The title as the PDF prints it (no bidi controls: see bidiControls.ts), on one line: the default subject and message name it.
      const title = asOneLine(pdf.title.replace(BIDI_CONTROLS, ""));
      const words = mailWords(pdf.settings.locale);
      const text = body.message ?? words.text(title);
      // The caller's verified address, else the uid: an unverified address is whatever the caller typed (authenticate.ts).
      const messageId = await sendMail({
        to: body.to,
        cc: body.cc ?? [],
        subject: body.subject ?? words.subject(title),
        text: `${text}\n\n${senderNote(access, caller.email ?? `user ${caller.uid}`, params.mailFromName.value(), pdf.settings.locale)}`,
        attachment: { fileName: safeFileName(body.fileName ?? title), bytes: await pdfBytes(pdf) },
      });
      // After the fact: the mail is gone, so a trail that cannot be written is logged, not answered as a failure.
      const domains = [...new Set(recipients.map((r) => domainOf(r).toLowerCase()))].sort();
      await audit(access, caller, { action: "pdf.mailed", subject: instance.id, details: { ...pdfDetails(instance, pdf), recipients: recipients.length, recipientDomains: domains, messageId } }).catch(logs.auditEventLost);
      return {
        message: "PDF sent.",
        data: { recipients: recipients.length, storagePath: pdf.storagePath, messageId, ...shownSettings(pdf.settings), template: templateShown(pdf.template) },
      };
    });
  },
});
