import { join } from "node:path";
import { ROOT_DIR, URLS } from "./config";

/** The demo password of every user in emulator-data/demo.json. */
export const DEMO_PASSWORD = "demo-password";

/** Demo users worth knowing, with what they may do (emulator-data/demo.json has them all). */
export const DEMO_USERS = [
  { email: "north-admin@acme.test", role: "ADMIN on tenant acme-north" },
  { email: "org-admin@acme.test", role: "ADMIN on organization acme (and so on its tenants)" },
  { email: "north-reader@acme.test", role: "READ on tenant acme-north" },
  { email: "north-people@acme.test", role: "MANAGE_PEOPLE on tenant acme-north" },
  { email: "north-nobody@acme.test", role: "no permission anywhere" },
  { email: "admin@solo.test", role: "ADMIN on standalone tenant solo" },
  { email: "reader@harbor.test", role: "READ on site harbor" },
] as const;

/** One call of the ready block; the stack tests make every one of them. */
export interface Example {
  title: string;
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path on the hosting origin, which rewrites /api/** and /print/** to the functions. */
  path: string;
  /** `bearer`: an ID token of north-admin; `basic`: email:password. */
  auth: "bearer" | "basic";
  body?: Record<string, unknown>;
  /** A file sent as the body instead: its path in the repository and its media type. */
  file?: { path: string; contentType: string };
}

export const EXAMPLES: Example[] = [
  { title: "Auth ownership status", method: "GET", path: "/api/tenant/acme-north/user/north-reader/auth-ownership-status", auth: "bearer" },
  { title: "Soft-delete a user", method: "DELETE", path: "/api/tenant/acme-north/user/north-nobody", auth: "bearer" },
  { title: "Restore a soft-deleted user", method: "POST", path: "/api/tenant/acme-north/user/former-employee/restore", auth: "bearer" },
  { title: "List roles (paged)", method: "GET", path: "/api/organization/acme/tenant/acme-north/roles?limit=10&offset=0", auth: "basic" },
  { title: "Claim auth ownership", method: "POST", path: "/api/tenant/acme-north/user/unclaimed-user/claim-auth-ownership", auth: "bearer" },
  { title: "Release auth ownership", method: "POST", path: "/api/tenant/acme-north/user/unclaimed-user/release-auth-ownership", auth: "bearer" },
  { title: "Print a PDF", method: "POST", path: "/print/tenant/acme-north/print", auth: "bearer", body: { objectInstanceId: "inspection-short" } },
  { title: "Email a PDF", method: "POST", path: "/print/tenant/acme-north/send-pdf", auth: "basic", body: { objectInstanceId: "inspection-short", to: "someone@example.com" } },
  { title: "Print every script, in German on Letter paper", method: "POST", path: "/print/tenant/acme-north/print", auth: "bearer", body: { objectInstanceId: "world-scripts", locale: "de-DE", timeZone: "Europe/Berlin", paperSize: "Letter" } },
  { title: "Audit trail (newest first)", method: "GET", path: "/api/tenant/acme-north/audit-events?limit=5", auth: "bearer" },
  { title: "Print settings of a division", method: "GET", path: "/api/tenant/acme-north/division/ops/print-settings", auth: "bearer" },
  { title: "Set a division's print settings", method: "PUT", path: "/api/tenant/acme-north/division/ops/print-settings", auth: "bearer", body: { paperSize: "Letter", footerText: "Acme North, operations" } },
  {
    title: "Print with acme-north's template (half rows, photos two to a row, DRAFT while the report's status says so, a QR code to the record)",
    method: "POST",
    path: "/print/tenant/acme-north/print",
    auth: "bearer",
    body: { objectInstanceId: "inspection-photos", templateId: "safety-inspection-customer" },
  },
  { title: "Upload the division's logo (its PDFs print it instead of the organization's)", method: "PUT", path: "/api/tenant/acme-north/division/ops/print-settings/logo", auth: "bearer", file: { path: "emulator-data/ops-logo.png", contentType: "image/png" } },
];

export const EXAMPLE_USER = "north-admin@acme.test";

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The shell line that puts an ID token of EXAMPLE_USER into $TOKEN, from the auth emulator. */
export const TOKEN_COMMAND =
  `TOKEN=$(curl -s ${shellQuote(`${URLS.auth}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=demo-key`)} ` +
  `-H 'content-type: application/json' ` +
  `-d ${shellQuote(JSON.stringify({ email: EXAMPLE_USER, password: DEMO_PASSWORD, returnSecureToken: true }))} ` +
  `| node -pe 'JSON.parse(require("fs").readFileSync(0)).idToken')`;

const BEARER = `-H "Authorization: Bearer $TOKEN"`;

export function curlCommand(example: Example): string {
  const parts = ["curl -s", example.method === "GET" ? "" : `-X ${example.method}`, shellQuote(`${URLS.hosting}${example.path}`)];
  parts.push(example.auth === "bearer" ? BEARER : `-u ${shellQuote(`${EXAMPLE_USER}:${DEMO_PASSWORD}`)}`);
  if (example.body) parts.push(`-H 'content-type: application/json' -d ${shellQuote(JSON.stringify(example.body))}`);
  if (example.file) parts.push(`-H 'content-type: ${example.file.contentType}' --data-binary ${shellQuote(`@${join(ROOT_DIR, example.file.path)}`)}`);
  return parts.filter(Boolean).join(" ");
}

/** The print job's instances: acme-north's two Safety Inspections of the demo data, updated in May 2026. */
export const JOB_FILTER = { objectTypeName: "Safety Inspection", updatedFrom: "2026-05-01T00:00:00Z", updatedTo: "2026-06-01T00:00:00Z" };
/** Where the job example saves the archive (in the shell's working directory). */
export const JOB_ZIP = "acme-north-job.zip";

/**
 * The print-job example of the ready block: a job of acme-north by filter, its status, its ZIP. Lines
 * one shell runs in turn ($TOKEN from TOKEN_COMMAND; the first sets $JOB); the stack tests run them.
 */
export function jobExample(): { title: string; lines: string[] }[] {
  const start = curlCommand({ title: "", method: "POST", path: "/print/tenant/acme-north/print-jobs", auth: "bearer", body: { filter: JOB_FILTER } });
  const status = `curl -s "${URLS.hosting}/print/tenant/acme-north/print-jobs/$JOB" ${BEARER}`;
  const read = (expression: string) => `node -pe 'JSON.parse(require("fs").readFileSync(0)).${expression}'`;
  return [
    { title: "Start a print job: acme-north's Safety Inspections updated in May 2026, in one ZIP (202; its id into $JOB)", lines: [`JOB=$(${start} | ${read("data.jobId")})`] },
    { title: "The job's status: done and failed of total; result.downloadUrl once it has finished", lines: [status] },
    { title: "Its ZIP, once the job has finished: a PDF per instance and manifest.json", lines: [`until ${status} | grep -q '"finishedAt":"'; do sleep 1; done`, `curl -s -o ${JOB_ZIP} "$(${status} | ${read("data.result.downloadUrl")})" && unzip -l ${JOB_ZIP}`] },
  ];
}

/** Where the preview example saves the PDF (in the shell's working directory). */
export const PREVIEW_PDF = "preview.pdf";
/** The preview example's unsaved template: German page numbers in the footer, a watermark. */
export const PREVIEW_TEMPLATE = { name: "Entwurf", objectTypeNames: [], footer: { left: "{title}", right: "Seite {page} von {pages}" }, watermark: { text: "ENTWURF" } };

/** The preview example of the ready block: an unsaved template rendered, the PDF saved, its status, type and size printed. */
export function previewExample(): { title: string; lines: string[] }[] {
  const post = curlCommand({ title: "", method: "POST", path: "/print/tenant/acme-north/preview", auth: "bearer", body: { objectInstanceId: "inspection-short", template: PREVIEW_TEMPLATE } });
  return [{ title: `Preview an unsaved template (the PDF itself, stored nowhere) into ${PREVIEW_PDF}`, lines: [`${post} -o ${PREVIEW_PDF} -w '%{http_code} %{content_type} %{size_download} bytes\n'`] }];
}

