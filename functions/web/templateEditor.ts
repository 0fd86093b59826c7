// The playground's template editor (issue 35): a template's JSON in a textarea and an object instance
// of the target; as the author types, POST /print/{target}/preview renders it (debounced, one request
// at a time, the newest text next) and page 1 (or every page) is drawn on canvases with pdf.js. A text
// that is not JSON is said with its line and column, and sent nowhere; the problems of a 400 are listed,
// each selecting its key in the JSON. Saved templates are listed and loaded with GET, saved with PUT.

import * as pdfjs from "pdfjs-dist";
import { locate, parseErrorPlace, placeOf, problemsOf, type Problem } from "./templateJson";

/** What the editor takes of the playground: the target path chosen, and the signed-in user and their headers. */
export interface EditorHost {
  target(): string;
  signedIn(): boolean;
  authorization(): Promise<Record<string, string>>;
}

/** Quiet time after a keystroke before the preview is asked for. */
const DEBOUNCE_MS = 150;
/** The fields the api adds to a template it answers (printTemplates.ts): not the template's own. */
const PROVENANCE = ["templateId", "version", "updatedAt", "source", "own"];
/** A start for a template of one's own: every part, with placeholders any instance fills. */
const EXAMPLE = {
  name: "Example",
  objectTypeNames: [],
  header: { left: "{title}", right: "{target}" },
  footer: { left: "{instanceId} · {generatedAt}", right: "Page {page} of {pages}" },
  hideEmptyFields: true,
  watermark: { text: "DRAFT" },
  code: { kind: "qr", value: "{target}/{instanceId}", position: "title-right" },
};

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const item = (text: string) => Object.assign(document.createElement("li"), { textContent: text });

let host: EditorHost;
/** Edits so far: the textarea says the newest (data-revision), the page canvas which one it shows. */
let revision = 0;
let timer: ReturnType<typeof setTimeout> | undefined;
/** The newest text waiting for the request in flight to end (a newer one replaces it). */
let waiting: { template: unknown; revision: number } | undefined;
let inFlight = false;
let lastPdf: Uint8Array | undefined;
/** One pdf.js worker for every preview, not one started per keystroke. */
let worker: pdfjs.PDFWorker | undefined;

const textarea = () => $<HTMLTextAreaElement>("editor-json");

function status(text: string, state: "ok" | "error" | "busy"): void {
  const line = $("editor-status");
  line.textContent = text;
  line.dataset.state = state;
}

/** Problems, each a button that selects what it names in the JSON (none: the list is emptied). */
function listProblems(problems: { text: string; start?: number; end?: number }[]): void {
  $("editor-problems").replaceChildren(
    ...problems.map(({ text, start, end }) => {
      const button = Object.assign(document.createElement("button"), { type: "button", className: "problem", textContent: text, disabled: start === undefined });
      if (start !== undefined) button.addEventListener("click", () => select(start, end ?? start));
      const li = document.createElement("li");
      li.append(button);
      return li;
    }),
  );
  textarea().setAttribute("aria-invalid", String(problems.length > 0));
}

/** The problems of a 400, each at its key and value (or, for a missing field, the object that lacks it). */
function showProblems(problems: Problem[]): void {
  const text = textarea().value;
  listProblems(
    problems.map((problem) => {
      const range = problem.path && locate(text, problem.path);
      if (!range) return { text: problem.text };
      return { text: `line ${placeOf(text, range.start).line}${range.exact ? "" : " (in here)"}: ${problem.text}`, ...range };
    }),
  );
}

/** Selects a part of the JSON and scrolls it into view (a textarea does not scroll to a selection made by script). */
function select(start: number, end: number): void {
  const area = textarea();
  area.focus();
  area.setSelectionRange(start, end);
  const lineHeight = parseFloat(getComputedStyle(area).lineHeight) || 16;
  area.scrollTop = (placeOf(area.value, start).line - 1) * lineHeight - area.clientHeight / 3;
}

/** The page shown is not the text's (it is not JSON, or the preview refused it): dimmed. */
const stale = (isStale: boolean) => $("editor-pages").classList.toggle("stale", isStale);

/** After each keystroke: once the author pauses, the text is checked as JSON and its preview asked for. */
function edited(): void {
  revision++;
  textarea().dataset.revision = String(revision);
  clearTimeout(timer);
  const current = revision;
  timer = setTimeout(() => {
    const text = textarea().value;
    let template: unknown;
    try {
      template = JSON.parse(text);
    } catch (error) {
      const place = parseErrorPlace(text, error as Error);
      status(`Not JSON, not sent: ${(error as Error).message}`, "error");
      listProblems(place ? [{ text: `line ${place.line}, column ${place.column}`, start: place.offset }] : []);
      stale(true);
      return;
    }
    waiting = { template, revision: current };
    void next();
  }, DEBOUNCE_MS);
}

/** Sends the waiting text, unless a request is in flight: its end sends the newest then. */
async function next(): Promise<void> {
  if (inFlight || !waiting) return;
  const { template, revision: sent } = waiting;
  waiting = undefined;
  inFlight = true;
  try {
    await preview(template, sent);
  } catch (error) {
    if (sent === revision) status(`Preview failed: ${(error as Error).message}`, "error");
  } finally {
    inFlight = false;
    void next();
  }
}

/** One preview: the page drawn when it is a PDF; the status and problems said only for the newest text. */
async function preview(template: unknown, sent: number): Promise<void> {
  const started = performance.now();
  if (sent === revision) status("Rendering...", "busy");
  const objectInstanceId = $<HTMLInputElement>("editor-instance").value.trim();
  const res = await fetch(`/print${host.target()}/preview`, {
    method: "POST",
    headers: { ...(await host.authorization()), "content-type": "application/json" },
    body: JSON.stringify({ objectInstanceId, template }),
  });
  if (!res.ok) {
    const message = ((await res.json().catch(() => ({}))) as { message?: string }).message ?? res.statusText;
    if (sent !== revision) return;
    const problems = res.status === 400 ? problemsOf(message, ["template"]) : [];
    status(problems.length ? `${res.status}: the template has problems (select one to see it in the JSON):` : `${res.status}: ${message}`, "error");
    showProblems(problems);
    stale(true);
    return;
  }
  lastPdf = new Uint8Array(await res.arrayBuffer());
  const warnings = JSON.parse(decodeURIComponent(res.headers.get("Print-Warnings") ?? "%5B%5D")) as string[];
  $("editor-warnings").replaceChildren(...warnings.map(item));
  $("editor-warnings-title").textContent = warnings.length ? `Warnings (${warnings.length})` : "No warnings";
  const pages = await draw(lastPdf, sent);
  if (sent !== revision) return;
  status(`${res.status}: ${pages} page(s), rendered in ${Math.round(performance.now() - started)} ms`, "ok");
  showProblems([]);
  stale(false);
}

/** Page 1, or every page, drawn off screen then copied at once: the canvas never shows a blank page between two. */
async function draw(bytes: Uint8Array, shown: number): Promise<number> {
  // A copy: pdf.js hands its buffer to the worker, and the bytes are drawn again when all pages are asked for.
  const task = pdfjs.getDocument({ data: bytes.slice(), worker: (worker ??= new pdfjs.PDFWorker()) });
  try {
    const pdf = await task.promise;
    const box = $("editor-pages");
    const count = $<HTMLInputElement>("editor-all-pages").checked ? pdf.numPages : 1;
    const drawn: HTMLCanvasElement[] = [];
    for (let n = 1; n <= count; n++) {
      const page = await pdf.getPage(n);
      const scale = Math.min(2, box.clientWidth / page.getViewport({ scale: 1 }).width) * devicePixelRatio;
      const viewport = page.getViewport({ scale });
      const canvas = Object.assign(document.createElement("canvas"), { width: viewport.width, height: viewport.height });
      canvas.setAttribute("aria-label", `Page ${n} of the preview`);
      await page.render({ canvas, canvasContext: canvas.getContext("2d")!, viewport }).promise;
      drawn.push(canvas);
    }
    const first = $<HTMLCanvasElement>("editor-page");
    first.width = drawn[0].width;
    first.height = drawn[0].height;
    first.getContext("2d")!.drawImage(drawn[0], 0, 0);
    box.replaceChildren(first, ...drawn.slice(1));
    Object.assign(first.dataset, { revision: String(shown), pages: String(pdf.numPages) });
    return pdf.numPages;
  } finally {
    void task.destroy(); // the document, not the shared worker
  }
}

/** The target's templates (its own and inherited) in the list, after the example; ADMIN only: else the answer is said. */
async function listTemplates(): Promise<void> {
  const select = $<HTMLSelectElement>("editor-templates");
  const chosen = select.value;
  const res = await fetch(`/api${host.target()}/print-templates`, { headers: await host.authorization() });
  const json = (await res.json().catch(() => ({}))) as { message?: string; data?: { templateId: string; name: string; version: number; own: boolean; source: string }[] };
  const options = (json.data ?? []).map((t) =>
    Object.assign(document.createElement("option"), { value: t.templateId, textContent: `${t.templateId}: ${t.name} (v${t.version}${t.own ? "" : `, from ${t.source}`})` }),
  );
  select.replaceChildren(Object.assign(document.createElement("option"), { value: "", textContent: "Example (unsaved)" }), ...options);
  if (options.some((o) => o.value === chosen)) select.value = chosen;
  $("editor-list-status").textContent = res.ok ? `${options.length} saved template(s) on ${host.target()}` : `Saved templates: ${res.status} ${json.message ?? res.statusText}`;
}

/** Loads the chosen template (GET) or the example into the textarea, and previews it. */
async function load(templateId: string): Promise<void> {
  const saved = $("editor-saved");
  let template: unknown = EXAMPLE;
  if (templateId) {
    const res = await fetch(`/api${host.target()}/print-templates/${encodeURIComponent(templateId)}`, { headers: await host.authorization() });
    const json = (await res.json()) as { message: string; data?: Record<string, unknown> };
    if (!res.ok || !json.data) {
      saved.textContent = `${res.status}: ${json.message}`;
      return;
    }
    const { version, own, source } = json.data;
    template = Object.fromEntries(Object.entries(json.data).filter(([key]) => !PROVENANCE.includes(key)));
    saved.textContent = `Loaded version ${version}${own ? "" : ` (inherited from ${source}: saving makes it this target's own)`}`;
    saved.dataset.version = String(version);
  } else {
    saved.textContent = "";
    delete saved.dataset.version;
  }
  $<HTMLInputElement>("editor-template-id").value = templateId;
  textarea().value = JSON.stringify(template, null, 2);
  edited();
}

/** Saves the JSON as the target's own template (PUT): the new version, or the answer's error and problems. */
async function save(): Promise<void> {
  const saved = $("editor-saved");
  const templateId = $<HTMLInputElement>("editor-template-id").value.trim();
  const text = textarea().value;
  if (!templateId) {
    saved.textContent = "Give the template an id to save it as.";
    return;
  }
  try {
    JSON.parse(text);
  } catch (error) {
    saved.textContent = `Not saved: not JSON (${(error as Error).message})`;
    return;
  }
  saved.textContent = "Saving...";
  const res = await fetch(`/api${host.target()}/print-templates/${encodeURIComponent(templateId)}`, {
    method: "PUT",
    headers: { ...(await host.authorization()), "content-type": "application/json" },
    body: text,
  });
  const json = (await res.json().catch(() => ({}))) as { message?: string; data?: { version: number } };
  if (!res.ok || !json.data) {
    saved.textContent = `Not saved: ${res.status} ${json.message ?? res.statusText}`;
    if (res.status === 400 && json.message) showProblems(problemsOf(json.message));
    return;
  }
  // The list first (it shows the new version too), then the answer: the page changes at once.
  await listTemplates().catch(() => undefined);
  $<HTMLSelectElement>("editor-templates").value = templateId;
  saved.textContent = `${json.message} Version ${json.data.version}.`;
  saved.dataset.version = String(json.data.version);
}

/** Wires the editor's controls; starts from the example. */
export function startEditor(playground: EditorHost): void {
  host = playground;
  textarea().addEventListener("input", edited);
  $("editor-instance").addEventListener("input", edited);
  $("editor-templates").addEventListener("change", () => {
    load($<HTMLSelectElement>("editor-templates").value).catch((error: Error) => ($("editor-saved").textContent = `Not loaded: ${error.message}`));
  });
  $("editor-all-pages").addEventListener("change", () => {
    if (lastPdf) void draw(lastPdf, Number($<HTMLCanvasElement>("editor-page").dataset.revision));
  });
  $("editor-save").addEventListener("click", () => {
    save().catch((error: Error) => ($("editor-saved").textContent = `Not saved: ${error.message}`));
  });
  textarea().value = JSON.stringify(EXAMPLE, null, 2);
}

/** The target or the user changed: the list of templates again, and the preview of the text as it is. */
export function targetChanged(): void {
  $("editor-target").textContent = host.target();
  if (!host.signedIn()) {
    status("Sign in (1.) to preview and to list templates.", "busy");
    return;
  }
  listTemplates().catch((error: Error) => ($("editor-list-status").textContent = `Saved templates: ${error.message}`));
  edited();
}
