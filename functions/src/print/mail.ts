import type { MailService } from "@sendgrid/mail";
import { SENDGRID_TIMEOUT_MS, params, sendgridApiKey, sendgridBaseUrl } from "../config";
import { HttpError } from "../http/errors";
import { countBackendCall } from "../http/requestContext";

export interface OutgoingMail {
  to: string[];
  cc: string[];
  subject: string;
  text: string;
  attachment: { fileName: string; bytes: Uint8Array };
}

let service: { key: string; mail: MailService } | undefined;

/** What must be configured before mail can go out; empty when nothing is missing. */
export function missingMailSettings(apiKey: string, fromEmail: string): string[] {
  return [!apiKey && "the SENDGRID_API_KEY secret", !fromEmail && "the MAIL_FROM_EMAIL param"].filter((m): m is string => Boolean(m));
}

/** The SendGrid client, built on first use; a missing key or sender is a 503 naming what to set. */
function mailService(): { mail: MailService; from: { email: string; name: string } } {
  const key = sendgridApiKey.value();
  const from = { email: params.mailFromEmail.value(), name: params.mailFromName.value() };
  const missing = missingMailSettings(key, from.email);
  if (missing.length > 0) throw new HttpError(503, `Email is not configured: set ${missing.join(" and ")} (README, Configuration).`);
  if (service?.key !== key) {
    // Loaded on the first send only: the print route never needs SendGrid (cold start).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Client } = require("@sendgrid/client") as { Client: new () => import("@sendgrid/client").Client };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { MailService: Mail } = require("@sendgrid/mail") as { MailService: new () => MailService };
    const client = new Client();
    const mail = new Mail();
    mail.setClient(client);
    mail.setApiKey(key);
    const baseUrl = sendgridBaseUrl();
    if (baseUrl) client.setDefaultRequest("baseUrl", baseUrl); // after setApiKey, which resets it
    mail.setTimeout(SENDGRID_TIMEOUT_MS);
    service = { key, mail };
  }
  return { mail: service.mail, from };
}

/** 503 naming what to set when mail cannot go out: asked before a send spends any work or quota. */
export function assertMailConfigured(): void {
  mailService();
}

interface SendGridFailure {
  code?: number | string;
  response?: { body?: { errors?: { message?: string }[] } };
}

/** Sends one message; SendGrid's refusal is a 502 with its reason, a timeout a 504. Returns SendGrid's message id. */
export async function sendMail(message: OutgoingMail): Promise<string> {
  const { mail, from } = mailService();
  countBackendCall("mail");
  try {
    const [response] = await mail.send({
      from,
      to: message.to,
      cc: message.cc.length > 0 ? message.cc : undefined,
      subject: message.subject,
      text: message.text,
      attachments: [{ content: Buffer.from(message.attachment.bytes).toString("base64"), filename: message.attachment.fileName, type: "application/pdf", disposition: "attachment" }],
    });
    return String(response.headers["x-message-id"] ?? "");
  } catch (error) {
    const failure = error as SendGridFailure;
    if (failure.code === "ECONNABORTED" || failure.code === "ETIMEDOUT") {
      throw new HttpError(504, `SendGrid did not answer within ${SENDGRID_TIMEOUT_MS / 1000} s; the email may not have been sent.`);
    }
    const status = typeof failure.code === "number" ? failure.code : undefined;
    if (status && status >= 400 && status < 500) {
      // Without their own full stops: the message ends with one.
      const reasons = (failure.response?.body?.errors ?? []).map((e) => e.message?.replace(/[.\s]+$/, "")).filter(Boolean).join("; ");
      throw new HttpError(502, `SendGrid refused the email (${status})${reasons ? `: ${reasons}` : ""}.`);
    }
    throw new HttpError(502, `SendGrid failed to send the email${status ? ` (${status})` : ""}; try again later.`);
  }
}
