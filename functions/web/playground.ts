// The playground: sign in with the Firebase JS SDK, pick a target path and an operation of either
// OpenAPI document, fill the form generated from it, send the request (Bearer ID token), read the JSON
// answer and its request id; a printed PDF is previewed (pdf.js renders page 1 to a canvas) and can be
// downloaded; a print job's progress is followed to its archive; a print template is edited with its
// page re-rendered as one types (web/templateEditor.ts). Locally (a build for the stack: LOCAL), the
// auth emulator signs in, the demo targets are offered and the mail sink's captured messages are
// listed; a production build has none of it. A panel verifies a PDF (POST verify): one picked, dropped,
// or the one previewed last.

import { initializeApp } from "firebase/app";
import { connectAuthEmulator, getAuth, onAuthStateChanged, signInWithEmailAndPassword, signOut, type User } from "firebase/auth";
import * as pdfjs from "pdfjs-dist";
import { startEditor, targetChanged } from "./templateEditor";

/** Set by the build (web/build.ts): true in the stack's build, false in a deploy's. */
declare const LOCAL: boolean;
/** The stack's URLs and demo data (LOCAL only). */
declare const STACK: { authEmulator: string; mailSink: string; targets: string[]; users: { email: string; role: string }[]; password: string };

pdfjs.GlobalWorkerOptions.workerSrc = new URL("pdf.worker.min.mjs", document.baseURI).href;

interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  description?: string;
  schema?: { examples?: unknown[]; default?: unknown; type?: string; enum?: unknown[] };
}
interface Operation {
  operationId: string;
  /** The target kind of this operation's path, and the kinds its route serves (src/http/openapi.ts). */
  "x-target-kind"?: string;
  "x-target-kinds"?: string[];
  summary: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}
interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  examples?: unknown[];
  default?: unknown;
  enum?: unknown[];
  description?: string;
}
type Document = { paths: Record<string, Record<string, Operation>> };

/** An operation of the playground: a route below any target, of one function. */
interface Route {
  fn: "api" | "print";
  method: string;
  /** The path below the target, e.g. `/user/{userId}/restore`. */
  suffix: string;
  operation: Operation;
}

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

/**
 * Routes from both documents, by their `/tenant/{tenantId}` form (every route has a path under every
 * target form; the division forms under that prefix are not routes of their own).
 */
async function loadRoutes(): Promise<Route[]> {
  const routes: Route[] = [];
  for (const fn of ["api", "print"] as const) {
    const doc = (await (await fetch(`/${fn}/openapi.json`)).json()) as Document;
    const prefix = `/${fn}/tenant/{tenantId}`;
    for (const [path, operations] of Object.entries(doc.paths)) {
      if (!path.startsWith(`${prefix}/`)) continue;
      for (const [method, operation] of Object.entries(operations)) {
        if (operation["x-target-kind"] === "tenant") routes.push({ fn, method: method.toUpperCase(), suffix: path.slice(prefix.length), operation });
      }
    }
  }
  return routes;
}

const TARGET_KINDS = ["organization", "tenant", "division", "site"];

/** The kind of a target path (its last `/kind/id` pair), or undefined while it is not a whole one. */
function targetKind(target: string): string | undefined {
  const segments = target.split("/").filter(Boolean);
  if (segments.length === 0 || segments.length % 2 !== 0) return undefined;
  const kinds = segments.filter((_, i) => i % 2 === 0);
  return kinds.every((kind) => TARGET_KINDS.includes(kind)) ? kinds.at(-1) : undefined;
}

/**
 * Offers the routes that serve the target's kind (all of them while the target is not a whole path:
 * the answer says what is wrong), keeping the chosen one, and its filled form, when it still serves.
 */
function offerRoutes(): void {
  const select = $<HTMLSelectElement>("operation");
  const kind = targetKind($<HTMLInputElement>("target").value.trim());
  const offered = routes.flatMap((r, i) => (!kind || (r.operation["x-target-kinds"] ?? TARGET_KINDS).includes(kind) ? [i] : []));
  const chosen = select.value;
  select.replaceChildren(...offered.map((i) => Object.assign(document.createElement("option"), { value: String(i), textContent: `${routes[i].method} ${routes[i].fn} ${routes[i].suffix}` })));
  if (offered.map(String).includes(chosen)) select.value = chosen;
  else if (offered.length > 0) renderForm(routes[Number(select.value)]);
}

/** A JSON example for a body schema: each property's example, default or first enum value. */
function example(schema: Schema): unknown {
  if (schema.examples?.length) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.type === "object" || schema.properties) {
    const out: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const value = example(property);
      if (value !== undefined && (schema.required?.includes(name) || property.examples?.length)) out[name] = value;
    }
    return out;
  }
  return undefined;
}

function field(label: string, input: HTMLElement, hint?: string): HTMLElement {
  const wrapper = document.createElement("label");
  wrapper.className = "field";
  wrapper.append(Object.assign(document.createElement("span"), { textContent: label }), input);
  if (hint) wrapper.append(Object.assign(document.createElement("small"), { textContent: hint }));
  return wrapper;
}

/** The form of a route: its path parameters below the target, its query parameters, its body. */
function renderForm(route: Route): void {
  const form = $("form-fields");
  form.replaceChildren();
  $("operation-summary").textContent = `${route.method} /${route.fn}/{target}${route.suffix}: ${route.operation.summary}`;
  const own = (route.operation.parameters ?? []).filter((p) => (p.in === "path" && route.suffix.includes(`{${p.name}}`)) || p.in === "query");
  for (const p of own) {
    const name = `${p.in}:${p.name}`;
    // A parameter of a few known values (the audit trail's action) is a choice, none chosen by default.
    const choices = p.schema?.enum?.map(String);
    const input = choices
      ? Object.assign(document.createElement("select"), { name })
      : Object.assign(document.createElement("input"), { name, placeholder: String(p.schema?.examples?.[0] ?? p.schema?.default ?? "") });
    if (input instanceof HTMLSelectElement) input.append(...["", ...choices!].map((value) => Object.assign(document.createElement("option"), { value, textContent: value || "(any)" })));
    if (p.in === "path" && input instanceof HTMLInputElement) input.value = String(p.schema?.examples?.[0] ?? "");
    form.append(field(`${p.name} (${p.in})`, input, p.description));
  }
  const content = route.operation.requestBody?.content ?? {};
  if (content["application/json"]) {
    const textarea = Object.assign(document.createElement("textarea"), { name: "body", rows: 6, value: JSON.stringify(example(content["application/json"].schema) ?? {}, null, 2) });
    form.append(field("JSON body", textarea));
  } else if (Object.keys(content).length > 0) {
    const file = Object.assign(document.createElement("input"), { type: "file", name: "file", accept: Object.keys(content).join(",") });
    form.append(field(`File (${Object.keys(content).join(", ")})`, file));
  }
}

let user: User | undefined;
let routes: Route[] = [];
let lastPdf: string | undefined;
/** The bytes of the PDF previewed last (the verify panel checks them on request). */
let lastPdfBytes: Uint8Array<ArrayBuffer> | undefined;

/** The target path chosen, without a trailing slash. */
const currentTarget = () => ($<HTMLInputElement>("target").value.trim() || "/").replace(/\/+$/, "");
/** The signed-in user's ID token as a Bearer header (none signed in: no header, and a 401). */
const authorization = async (): Promise<Record<string, string>> => (user ? { authorization: `Bearer ${await user.getIdToken()}` } : {});

/** Sends the form's request with the user's ID token and shows the answer. */
async function send(route: Route): Promise<void> {
  const target = currentTarget();
  let suffix = route.suffix;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  let body: BodyInit | undefined;
  for (const element of Array.from($<HTMLFormElement>("operation-form").elements) as HTMLInputElement[]) {
    if (!element.name) continue;
    const [kind, name] = element.name.split(":");
    if (kind === "path") suffix = suffix.replace(`{${name}}`, encodeURIComponent(element.value));
    if (kind === "query" && element.value) query.set(name, element.value);
    if (element.name === "body") {
      body = element.value;
      headers["content-type"] = "application/json";
    }
    if (element.name === "file" && element.files?.[0]) {
      body = element.files[0];
      headers["content-type"] = element.files[0].type;
    }
  }
  Object.assign(headers, await authorization());
  const url = `/${route.fn}${target}${suffix}${query.size ? `?${query}` : ""}`;
  $("status").textContent = `${route.method} ${url} ...`;
  const res = await fetch(url, { method: route.method, headers, body });
  const text = await res.text();
  let shown = text;
  let json: { data?: { downloadUrl?: string } } | undefined;
  try {
    json = JSON.parse(text);
    shown = JSON.stringify(json, null, 2);
  } catch {
    // not JSON: shown as it came
  }
  $("status").textContent = `${res.status} ${res.statusText} · request id ${res.headers.get("x-request-id") ?? "(none)"}`;
  $("status").dataset.status = String(res.status);
  $("answer").textContent = shown;
  const downloadUrl = json?.data?.downloadUrl;
  if (downloadUrl) await preview(downloadUrl);
  const jobId = (json?.data as { jobId?: string } | undefined)?.jobId;
  if (res.status === 202 && jobId) await followJob(`/${route.fn}${target}/print-jobs/${encodeURIComponent(jobId)}`);
  if (LOCAL) await listMail();
}

/** A print job's progress, (done + failed) / total, polled until it ends; its failures, then its archive. */
async function followJob(statusUrl: string): Promise<void> {
  $("job-panel").hidden = false;
  const bar = $<HTMLProgressElement>("job-progress");
  const link = $<HTMLAnchorElement>("job-download");
  link.hidden = true;
  for (;;) {
    const res = await fetch(statusUrl, { headers: await authorization() });
    const job = ((await res.json()) as { data?: JobStatus }).data;
    if (!res.ok || !job) {
      $("job-status").textContent = `Status ${res.status}`;
      return;
    }
    bar.max = job.total;
    bar.value = job.done + job.failed;
    $("job-status").textContent = `${job.status}: ${job.done} printed, ${job.failed} failed of ${job.total}`;
    $("job-failures").replaceChildren(...job.failures.map((f) => Object.assign(document.createElement("li"), { textContent: `${f.objectInstanceId}: ${f.status} ${f.reason}` })));
    if (job.finishedAt) {
      if (job.result) {
        link.href = job.result.downloadUrl;
        link.hidden = false;
      }
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

interface JobStatus {
  status: string;
  total: number;
  done: number;
  failed: number;
  failures: { objectInstanceId: string; status: number; reason: string }[];
  finishedAt: string | null;
  result?: { downloadUrl: string };
}

/** Page 1 of the PDF on the canvas, and a link to download it. */
async function preview(url: string): Promise<void> {
  const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
  const pdf = await pdfjs.getDocument({ data: bytes }).promise;
  const page = await pdf.getPage(1);
  $("preview-panel").hidden = false; // before measuring the room the page has
  const canvas = $<HTMLCanvasElement>("preview");
  const viewport = page.getViewport({ scale: Math.min(2, canvas.parentElement!.clientWidth / page.getViewport({ scale: 1 }).width) });
  canvas.width = viewport.width;
  canvas.height = viewport.height;
  await page.render({ canvas, canvasContext: canvas.getContext("2d")!, viewport }).promise;
  canvas.dataset.pages = String(pdf.numPages);
  lastPdfBytes = bytes;
  $("verify-last").hidden = false;
  if (lastPdf) URL.revokeObjectURL(lastPdf);
  lastPdf = URL.createObjectURL(new Blob([bytes], { type: "application/pdf" }));
  const link = $<HTMLAnchorElement>("download");
  link.href = lastPdf;
  link.hidden = false;
}

interface Verification {
  signed: boolean;
  valid: boolean;
  coversWholeDocument: boolean;
  signedAt: string | null;
  signer: { subject: string; issuer: string; serialNumber: string } | null;
  issuedHere: boolean;
  objectInstanceId?: string;
  storagePath?: string;
}

/** POST verify with a PDF's bytes (the target of 2.), and its answer as a verdict and a list. */
async function verifyPdf(file: Blob): Promise<void> {
  const status = $("verify-status");
  const result = $("verify-result");
  const url = `/print${currentTarget()}/verify`;
  status.textContent = `Checking (POST ${url}) ...`;
  delete status.dataset.verdict;
  result.hidden = true;
  const res = await fetch(url, { method: "POST", headers: { ...(await authorization()), "content-type": "application/pdf" }, body: file });
  const answer = (await res.json().catch(() => ({}))) as { message?: string; data?: Verification };
  const data = answer.data;
  if (!res.ok || !data) {
    status.textContent = `${res.status} ${res.statusText}: ${answer.message ?? "no answer"}`;
    status.dataset.verdict = "error";
    return;
  }
  status.textContent = answer.message ?? "";
  status.dataset.verdict = !data.signed ? "unsigned" : data.valid ? "valid" : "invalid";
  const yesNo = (value: boolean) => (value ? "yes" : "no");
  const rows: [string, string][] = [
    ["Signed", yesNo(data.signed)],
    ["Valid", yesNo(data.valid)],
    ["Covers the whole file", yesNo(data.coversWholeDocument)],
    ["Signed at", data.signedAt ?? "-"],
    ["Signer", data.signer ? `${data.signer.subject} (serial ${data.signer.serialNumber})` : "-"],
    ["Issuer", data.signer?.issuer ?? "-"],
    ["Printed by this target", yesNo(data.issuedHere)],
    ...(data.issuedHere ? ([["Object instance", data.objectInstanceId ?? "-"], ["Stored as", data.storagePath ?? "-"]] as [string, string][]) : []),
  ];
  result.replaceChildren(...rows.flatMap(([term, value]) => [Object.assign(document.createElement("dt"), { textContent: term }), Object.assign(document.createElement("dd"), { textContent: value })]));
  result.hidden = false;
}

/** The verify panel: a file picked or dropped, or the PDF previewed last. */
function startVerifyPanel(): void {
  const failed = (error: Error) => {
    $("verify-status").textContent = `Request failed: ${error.message}`;
    $("verify-status").dataset.verdict = "error";
  };
  const input = $<HTMLInputElement>("verify-file");
  input.addEventListener("change", () => {
    if (input.files?.[0]) verifyPdf(input.files[0]).catch(failed);
  });
  $("verify-last").addEventListener("click", () => {
    if (lastPdfBytes) verifyPdf(new Blob([lastPdfBytes], { type: "application/pdf" })).catch(failed);
  });
  const drop = $("verify-drop");
  drop.addEventListener("dragover", (event) => {
    event.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("over");
    const file = event.dataTransfer?.files[0];
    if (file) verifyPdf(file).catch(failed);
  });
}

/** The mail sink's captured messages, newest first, with their attachments (LOCAL only). */
async function listMail(): Promise<void> {
  const messages = (await (await fetch(`${STACK.mailSink}/messages`)).json()) as { body: { subject: string; personalizations: { to: { email: string }[] }[]; attachments?: { filename: string; content: string }[] } }[];
  const list = $("mail");
  list.replaceChildren(
    ...messages
      .slice(-10)
      .reverse()
      .map(({ body }) => {
        const item = document.createElement("li");
        const attachments = (body.attachments ?? []).map((a) => `${a.filename} (${Math.round((a.content.length * 3) / 4 / 1024)} KiB)`).join(", ");
        item.textContent = `${body.personalizations.flatMap((p) => p.to.map((t) => t.email)).join(", ")}: ${body.subject}${attachments ? ` · ${attachments}` : ""}`;
        return item;
      }),
  );
  $("mail-panel").hidden = false;
}

async function main(): Promise<void> {
  const config = (await (await fetch("/__/firebase/init.json")).json()) as Record<string, string>;
  const auth = getAuth(initializeApp(config));
  if (LOCAL) {
    connectAuthEmulator(auth, STACK.authEmulator, { disableWarnings: true });
    const targets = $<HTMLDataListElement>("targets");
    targets.append(...STACK.targets.map((t) => Object.assign(document.createElement("option"), { value: t })));
    $<HTMLInputElement>("email").value = STACK.users[0].email;
    $<HTMLInputElement>("password").value = STACK.password;
    $("demo-users").textContent = `Demo users (password ${STACK.password}): ${STACK.users.map((u) => `${u.email} (${u.role})`).join("; ")}`;
    $<HTMLInputElement>("target").value = STACK.targets[0];
    $<HTMLInputElement>("editor-instance").value = "inspection-photos"; // the demo's instance with photos and the Report status its template's watermark looks at
  }
  startEditor({ target: currentTarget, signedIn: () => user !== undefined, authorization });
  startVerifyPanel();
  onAuthStateChanged(auth, (signedIn) => {
    user = signedIn ?? undefined;
    $("who").textContent = user ? `Signed in as ${user.email}` : "Not signed in: requests go without credentials (401).";
    $("sign-out").hidden = !user;
    targetChanged(); // the templates this user may list, and the preview as this user
  });
  $("sign-in-form").addEventListener("submit", (event) => {
    event.preventDefault();
    signInWithEmailAndPassword(auth, $<HTMLInputElement>("email").value, $<HTMLInputElement>("password").value).catch((error: Error) => {
      $("who").textContent = `Sign-in failed: ${error.message}`;
    });
  });
  $("sign-out").addEventListener("click", () => void signOut(auth));

  routes = await loadRoutes();
  const select = $<HTMLSelectElement>("operation");
  offerRoutes(); // and the form of the first route offered
  select.addEventListener("change", () => renderForm(routes[Number(select.value)]));
  $("target").addEventListener("input", offerRoutes);
  $("target").addEventListener("change", targetChanged);
  $("operation-form").addEventListener("submit", (event) => {
    event.preventDefault();
    send(routes[Number(select.value)]).catch((error: Error) => {
      $("status").textContent = `Request failed: ${error.message}`;
    });
  });
  document.body.dataset.ready = "true";
}

void main();
