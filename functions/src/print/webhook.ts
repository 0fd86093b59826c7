// Webhooks as the Standard Webhooks specification has them (standardwebhooks.com): the URL a
// target's print jobs post to (its `print.jobWebhookUrl`, inherited), the signing secret of the
// target that sets it, and one signed POST to the public address the URL's host was checked to have.

import { randomBytes } from "node:crypto";
import { lookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { Webhook } from "standardwebhooks";
import { z } from "zod";
import { isEmulator } from "../config";
import type { TargetNode } from "../http/access";
import { withDeadline } from "../http/deadline";
import * as logs from "../logs";
import { isPublicAddress, newWebhookUrlProblem, webhookUrlProblem } from "./webhookAddress";

/**
 * Where a target's signing secret is kept: a document of its own that no route reads back (the
 * settings route only learns whether it exists) and that firestore.rules deny to clients.
 */
export const webhookSecretPath = (targetPath: string) => `${targetPath}/secrets/jobWebhook`;

/** A new signing secret: `whsec_` and the base64 of 32 random bytes (the specification asks for 24 to 64). */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString("base64")}`;

/**
 * The webhook URL a target's jobs post to: the nearest target on the chain whose settings set
 * `jobWebhookUrl` (null there: none, whatever is set above), and that target, whose secret signs.
 * A stored URL the policy refuses (an emulator's URL in production, a port allowed no more) is
 * logged and means none: the target set its own receiver, and its jobs' news must not go to the
 * receiver of a target above it, signed with that target's secret.
 */
export function resolveJobWebhookUrl(chain: readonly TargetNode[]): { url: string | null; source: string } {
  for (let i = chain.length - 1; i >= 0; i--) {
    const { path, data } = chain[i];
    const stored = (data.print as Record<string, unknown> | undefined)?.jobWebhookUrl;
    if (stored === undefined) continue;
    if (typeof stored === "string" && webhookUrlProblem(stored, isEmulator()) === undefined) return { url: stored, source: path };
    if (stored !== null) logs.unusablePrintSetting(path, "jobWebhookUrl");
    return { url: null, source: path };
  }
  return { url: null, source: "default" };
}

/** What an ADMIN sets for print jobs' webhook with PUT print-settings (the pipeline checks the URL's form; the route, its host's addresses). */
export const webhookSettings = {
  // An https URL of a public host (the emulator also takes http://127.0.0.1:<port>); null: none here, whatever is set above.
  jobWebhookUrl: z
    .string()
    .superRefine((url, ctx) => {
      const problem = newWebhookUrlProblem(url, isEmulator());
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .nullable()
    .optional()
    .meta({
      description:
        "Where this target's print jobs (and those of the targets below it that set none) POST print_job.finished, signed as Standard Webhooks specifies: an https URL whose host's addresses are all public, e.g. https://hooks.example.com/print-jobs. null: no webhook here, whatever a target above sets. Left out: inherited.",
      // No `examples`: the playground fills a body with its fields' examples, and a webhook must not be set by accident.
    }),
  // true: a new signing secret for this target's URL, answered once; the old one stops signing.
  rotateWebhookSecret: z.boolean().optional().meta({ description: "true: replace this target's signing secret with a new one, answered once (needs jobWebhookUrl in the same body). Jobs created before keep the secret they took." }),
};

/** A URL the policy refuses, or whose host resolves to an address it refuses: the setting's 400. */
export class WebhookUrlRefused extends Error {}

/** Resolving a host may take this long (getaddrinfo cannot be stopped: this bounds the wait for it). */
const RESOLVE_TIMEOUT_MS = 5_000;

/**
 * The address a webhook may be sent to for `raw`: the URL passes the policy, and every address its
 * host resolves to is public (one private among them refuses it: the client could connect to that
 * one). An IP in the URL is its own address. Throws WebhookUrlRefused, or DNS's error (its `code`)
 * when DNS does not answer.
 */
export async function checkedAddress(raw: string, emulator = isEmulator()): Promise<{ address: string; family: number }> {
  const problem = webhookUrlProblem(raw, emulator);
  if (problem) throw new WebhookUrlRefused(problem);
  const host = new URL(raw).hostname.replace(/^\[(.*)\]$/, "$1");
  if (isIP(host) !== 0) return { address: host, family: isIP(host) };
  let addresses: { address: string; family: number }[];
  try {
    addresses = await withDeadline(lookup(host, { all: true, order: "verbatim" }), RESOLVE_TIMEOUT_MS, () => Object.assign(new Error("DNS did not answer"), { code: "ETIMEOUT" }));
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOTFOUND" || code === "ENODATA") throw new WebhookUrlRefused("must name a host that resolves");
    throw error;
  }
  if (addresses.length === 0 || !addresses.every((a) => isPublicAddress(a.address))) throw new WebhookUrlRefused("must name a host whose addresses are all public");
  return addresses[0];
}

/** How long one delivery may take, from connecting to the answer's headers: a receiver answers at once and does its work later. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * The Standard Webhooks headers of a message: its id (the same on every retry, so that a receiver
 * can drop a repeat), the time it is sent (seconds), and the HMAC-SHA256 signature of the three.
 * `at` is the clock's reading, passed in (tests sign at a time of their choosing).
 */
export function webhookHeaders(secret: string, id: string, body: string, at: Date): Record<string, string> {
  return { "webhook-id": id, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": new Webhook(secret).sign(id, at, body) };
}

/**
 * POSTs one signed message to the address checkedAddress finds for the URL's host. Resolves with
 * the answer's status; rejects when the URL is refused, the connection fails or no answer comes
 * within WEBHOOK_TIMEOUT_MS.
 */
export async function postWebhook(raw: string, secret: string, id: string, body: string, at: Date, emulator = isEmulator()): Promise<number> {
  const checked = await checkedAddress(raw, emulator);
  return postTo(new URL(raw), checked, { "content-type": "application/json", "user-agent": "print-service-webhooks/1", ...webhookHeaders(secret, id, body, at) }, body);
}

/**
 * POSTs `body` to `url`, connecting to `to` whatever DNS would answer for the URL's host now (a
 * second answer cannot send it elsewhere: DNS rebinding), with the host's name for TLS and Host.
 * Redirects are not followed and the answer's body is not read; it fails after `timeoutMs`, connection to answer.
 */
export function postTo(url: URL, to: { address: string; family: number }, headers: Record<string, string>, body: string, timeoutMs = WEBHOOK_TIMEOUT_MS): Promise<number> {
  const toChecked: LookupFunction = (_host, options, callback) => (options.all ? callback(null, [to]) : callback(null, to.address, to.family));
  return new Promise<number>((resolve, reject) => {
    const request = (url.protocol === "https:" ? https : http).request(url, { method: "POST", headers, lookup: toChecked, agent: false, signal: AbortSignal.timeout(timeoutMs) }, (response) => {
      resolve(response.statusCode ?? 0);
      response.destroy();
    });
    request.on("error", reject);
    request.end(body);
  });
}

/** What went wrong with a delivery, for the job's `webhook.lastError`: never the URL (its query may hold a token). */
export function deliveryError(error: unknown): string {
  if (error instanceof WebhookUrlRefused) return `The URL is refused: it ${error.message}.`;
  const { name, code } = error as { name?: string; code?: string };
  if (name === "TimeoutError" || name === "AbortError") return `No answer within ${WEBHOOK_TIMEOUT_MS / 1000} s.`;
  return `The receiver could not be reached (${code ?? name ?? "error"}).`;
}
