import { z } from "zod";
import { auditInTransaction } from "../../audit";
import { db, firestoreSdk } from "../../firebase";
import type { TargetNode } from "../../http/access";
import { badRequest, HttpError } from "../../http/errors";
import { defineRoute } from "../../http/routes";
import { removeReplacedLogo } from "../../print/logos";
import { CONFORMANCE_NAMES, PAPER_SIZE_NAMES } from "../../print/render/paper";
import { CHECKS, SETTING_KEYS, accentColorProblem, brandingSettings, ownSetting, resolveSettings, settingsOverrides, signSetting } from "../../print/settings";
import { checkedAddress, newWebhookSecret, resolveJobWebhookUrl, webhookSecretPath, WebhookUrlRefused, webhookSettings } from "../../print/webhook";

const settingsShape = {
  locale: z.string(),
  timeZone: z.string(),
  paperSize: z.enum(PAPER_SIZE_NAMES),
  conformance: z.enum(CONFORMANCE_NAMES),
  accentColor: z.string(),
  footerText: z.string(),
  logo: z.string(),
  sign: z.boolean(),
  // Not a setting of the PDF (nor of its stored name): where print jobs post print_job.finished; null for none.
  jobWebhookUrl: z.string().nullable(),
};
const SHOWN_KEYS = [...SETTING_KEYS, "jobWebhookUrl"] as const;

/** What a target prints with, where each value comes from, and what the target sets itself. */
const printSettingsData = z.strictObject({
  effective: z.strictObject(settingsShape).describe("What PDFs of this target are printed with when a request sets nothing (a locale from 'default': en-GB's dates, numbers and words, the language and direction of each document's text)."),
  sources: z
    .strictObject(Object.fromEntries(SHOWN_KEYS.map((key) => [key, z.string()])) as Record<keyof typeof settingsShape, z.ZodString>)
    .describe("Where each effective value comes from: a target's document path (this one or one above it), or 'default'."),
  own: z.strictObject(Object.fromEntries(Object.entries(settingsShape).map(([key, schema]) => [key, schema.optional()])) as { [K in keyof typeof settingsShape]: z.ZodOptional<(typeof settingsShape)[K]> }).describe("The values this target sets itself (usable ones)."),
});

export function describeSettings(chain: readonly TargetNode[]): z.infer<typeof printSettingsData> {
  const { settings, sources } = resolveSettings(chain);
  const target = chain[chain.length - 1];
  const own: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const usable = CHECKS[key](ownSetting(target.data, key), target.path);
    if (usable !== undefined) own[key] = usable;
  }
  const webhook = resolveJobWebhookUrl(chain);
  if (webhook.source === target.path) own.jobWebhookUrl = webhook.url;
  return { effective: { ...settings, jobWebhookUrl: webhook.url }, sources: { ...sources, jobWebhookUrl: webhook.source }, own };
}

/** The target's own `print` map as it is stored (a copy). */
export const ownPrint = (chain: readonly TargetNode[]): Record<string, unknown> => ({ ...((chain[chain.length - 1].data.print as Record<string, unknown> | undefined) ?? {}) });

/** The chain with the target's `print` map replaced: what a change leaves, to answer with without reading it again. */
export const withOwnPrint = (chain: readonly TargetNode[], print: Record<string, unknown>): TargetNode[] => {
  const target = chain[chain.length - 1];
  return [...chain.slice(0, -1), { ...target, data: { ...target.data, print } }];
};

export const printSettingsResponse = (description: string) => ({
  status: 200 as const,
  description,
  schema: z.strictObject({ statusCode: z.literal(200), message: z.string(), data: printSettingsData }),
});

/**
 * A URL to be set as jobWebhookUrl: its host resolves to public addresses only (the schema checked
 * the rest). 400 naming the field, or 503 when DNS does not answer now.
 */
async function assertPublicWebhookUrl(url: string): Promise<void> {
  try {
    await checkedAddress(url);
  } catch (error) {
    if (error instanceof WebhookUrlRefused) throw badRequest(`Invalid body: 'jobWebhookUrl': ${error.message}.`);
    throw new HttpError(503, "The host of 'jobWebhookUrl' could not be resolved now; try again shortly.");
  }
}

/** The URL for the audit trail: without its query and fragment, which may hold a token. */
function withoutQuery(url: string | null): string | null {
  if (url === null) return null;
  const { origin, pathname } = new URL(url);
  return `${origin}${pathname}`;
}

/** The target's print settings (issue 17): effective, with their sources, and its own. ADMIN. */
export const getPrintSettings = defineRoute({
  method: "get",
  path: "/print-settings",
  summary: "Read the print settings of a target: effective values, where each comes from, and its own",
  anyOf: ["ADMIN"],
  response: printSettingsResponse("The settings."),
  async handle({ access }) {
    return { statusCode: 200 as const, message: "Print settings.", data: describeSettings(access.chain) };
  },
});

/**
 * Sets the target's own print settings, ADMIN: PUT the body's keys, a key left out inherited again;
 * PATCH the body's keys only, the others as they are (turning signing on keeps the target's paper).
 */
const settingsChange = (method: "put" | "patch") =>
  defineRoute({
    method,
    path: "/print-settings",
    summary: method === "put" ? "Set the print settings of a target (keys left out are inherited from the targets above)" : "Change some print settings of a target (keys left out stay as they are)",
    anyOf: ["ADMIN"],
    body: z.strictObject({ ...settingsOverrides, ...brandingSettings, ...signSetting, ...webhookSettings }),
    // Whether the target has a signing secret yet (the secret itself is never answered but when it is made).
    reads: ({ path }) => [webhookSecretPath(path)],
    transactional: true,
    response: {
      status: 200,
      description: "The settings, as they are now; with the webhook's signing secret when this change made it.",
      schema: z.strictObject({
        statusCode: z.literal(200),
        message: z.string(),
        data: printSettingsData.extend({
          // Answered once, when made: no route reads it back.
          webhookSecret: z
            .string()
            .optional()
            .describe("The target's new signing secret (whsec_...), answered this once: when jobWebhookUrl is set on a target that has none, or with rotateWebhookSecret. Keep it; no route shows it again."),
        }),
      }),
    },
    errors: {
      400: "No body at all (a PUT of {} clears every key), an unknown locale, time zone or paper size, a malformed colour or a new one too light to read on white, a logo outside the target's uploads folder, a jobWebhookUrl that is not https, holds spaces or control characters, or whose host is not public (the message names the field).",
      503: "The host of jobWebhookUrl could not be resolved now.",
    },
    async handle({ access, caller, body, docs: [secret], tx, afterCommit }) {
      if (body.logo !== undefined && !CHECKS.logo(body.logo, access.path)) throw badRequest(`Invalid body: 'logo': must be a storage path under uploads/${access.path}/.`);
      // A new accent must be readable; the target's own colour sent back as it is (a PUT replaces every key) stays.
      const accentProblem = body.accentColor !== undefined && body.accentColor.toLowerCase() !== String(ownPrint(access.chain).accentColor ?? "").toLowerCase() && accentColorProblem(body.accentColor);
      if (accentProblem) throw badRequest(`Invalid body: 'accentColor': ${accentProblem}.`);
      const { jobWebhookUrl, rotateWebhookSecret } = body;
      if (rotateWebhookSecret && typeof jobWebhookUrl !== "string") throw badRequest("Invalid body: 'rotateWebhookSecret': needs 'jobWebhookUrl' in the same body (the secret signs this target's URL).");
      if (typeof jobWebhookUrl === "string") await assertPublicWebhookUrl(jobWebhookUrl);
      // A logo uploaded here and now replaced (or left out: inherited again) is removed once this commits.
      const replaced = ownPrint(access.chain).logo;
      if (method === "put" || body.logo !== undefined) afterCommit(() => removeReplacedLogo(access.path, replaced, body.logo));
      const { FieldValue } = firestoreSdk();
      // The target's settings as written (for the answer), and the same as field changes.
      const print = ownPrint(access.chain);
      const changes: Record<string, unknown> = {};
      for (const key of SHOWN_KEYS) {
        if (method === "patch" && body[key] === undefined) continue;
        // null is a value of its own (jobWebhookUrl: none here, whatever is set above).
        changes[`print.${key}`] = body[key] === undefined ? FieldValue.delete() : body[key];
        if (body[key] === undefined) delete print[key];
        else print[key] = body[key];
      }
      // An empty PATCH changes nothing, and is no event (Firestore refuses an update of no field).
      const changed = Object.keys(changes).length > 0;
      if (changed) tx.update(db().doc(access.path), changes);
      // The target's signing secret: made when it first sets a URL, made anew when asked to rotate it.
      const webhookSecret = typeof jobWebhookUrl === "string" && (rotateWebhookSecret || !secret.exists) ? newWebhookSecret() : undefined;
      if (webhookSecret) tx.set(secret.ref, { secret: webhookSecret, createdAt: FieldValue.serverTimestamp() });
      const details = { ...body, ...(jobWebhookUrl !== undefined && { jobWebhookUrl: withoutQuery(jobWebhookUrl) }), ...(webhookSecret && { webhookSecretIssued: secret.exists ? "rotated" : "created" }) };
      if (changed) auditInTransaction(tx, access, caller, { action: "printSettings.updated", subject: "print-settings", details });
      const data = describeSettings(withOwnPrint(access.chain, print));
      return { statusCode: 200 as const, message: "Print settings saved.", data: { ...data, ...(webhookSecret && { webhookSecret }) } };
    },
  });

export const putPrintSettings = settingsChange("put");
export const patchPrintSettings = settingsChange("patch");
