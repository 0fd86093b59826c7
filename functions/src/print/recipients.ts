import type { Access, TargetNode } from "../http/access";
import { badRequest } from "../http/errors";
import { mailWords } from "./mailWords";

/**
 * The recipient domains a target allows for send-pdf: `mail.allowedRecipientDomains` (a list of
 * domains) on the target document, inherited like feature flags (the nearest level that sets a
 * list wins; a site stands alone). None set anywhere: any domain (opt-in).
 */
export function allowedRecipientDomains(chain: readonly TargetNode[]): string[] | undefined {
  for (let i = chain.length - 1; i >= 0; i--) {
    const value = (chain[i].data.mail as Record<string, unknown> | undefined)?.allowedRecipientDomains;
    if (Array.isArray(value)) return value.filter((d): d is string => typeof d === "string").map((d) => d.trim().toLowerCase().replace(/^@/, ""));
  }
  return undefined;
}

/** The domain part of an address, as written. */
export const domainOf = (address: string) => address.slice(address.lastIndexOf("@") + 1);

/** The domain of an address, or a subdomain of it, is in the list. */
export function domainAllowed(address: string, allowed: readonly string[]): boolean {
  const domain = domainOf(address).toLowerCase();
  return allowed.some((d) => d !== "" && (domain === d || domain.endsWith(`.${d}`)));
}

/** 400 naming the first recipient whose domain the target does not allow. */
export function assertRecipientsAllowed(access: Access, recipients: readonly string[]): void {
  const allowed = allowedRecipientDomains(access.chain);
  if (!allowed) return;
  const refused = recipients.find((r) => !domainAllowed(r, allowed));
  if (refused) {
    throw badRequest(`'to'/'cc': this target sends PDFs only to addresses at ${allowed.join(", ") || "no domain"}, not at ${domainOf(refused)}.`);
  }
}

/** The tenant a request's mail counts against: the tenant of the chain, or the organization or site it addresses. */
export function mailingAccount(access: Access): string {
  return access.chain.find((node) => /^tenants\/[^/]+$/.test(node.path))?.path ?? access.chain[0].path;
}

/** The last lines of every message, which the caller cannot replace: who sent it, from where (in the PDF's language). */
export function senderNote(access: Access, sender: string, service: string, locale: string): string {
  const where = access.chain.map((node) => String(node.data.name ?? node.path)).join(" / ");
  return mailWords(locale).note(sender, where, service);
}
