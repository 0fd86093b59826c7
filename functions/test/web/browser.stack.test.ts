// The hosting origin in a real browser: Playwright (playwright-core) driving Debian's Chromium
// (installed with apt where missing, as the benchmark does). The API reference renders both OpenAPI
// documents from the origin itself; the playground signs in with the Firebase JS SDK (auth emulator),
// prints and previews the PDF on a canvas, sends one and finds the captured mail; a page of a second
// origin in CORS_ORIGINS calls a function URL directly with a Bearer token, and one from an origin
// that is not allowed is refused by the browser. The template editor re-renders a page as one types
// (the time from the last keystroke to the new page printed, not asserted: timings belong to the
// benchmarks), lists the schema's problems, and saves. Screenshots: .cache/screenshots/ (looked at).

import { createServer, type Server } from "node:http";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CACHE_DIR, HOST, URLS } from "../../stack/config";
import { ensureDebianPackage } from "../../stack/debianPackages";
import { firestore, freshUid } from "../api/fixtures";
import { BASES, call, idTokenFor } from "../helpers";

const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOTS = join(CACHE_DIR, "screenshots");
/** Origins of the CORS cases: the first is in CORS_ORIGINS (functions/.env.demo-print-admin), the second is not. */
const ALLOWED_PORT = 5010;
const REFUSED_PORT = 5011;

let browser: Browser;
const servers: Server[] = [];

/** A page on http://127.0.0.1:{port}/ that does nothing itself: the test runs fetch in it. */
async function originServer(port: number): Promise<void> {
  const server = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>another origin</title><p>another origin"));
  await new Promise<void>((resolve) => server.listen(port, HOST, resolve));
  servers.push(server);
}

beforeAll(async () => {
  const missing = ensureDebianPackage("chromium", CHROMIUM);
  if (missing) throw new Error(`Chromium is needed for the browser tests: ${missing}`);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
  mkdirSync(SCREENSHOTS, { recursive: true });
  await Promise.all([originServer(ALLOWED_PORT), originServer(REFUSED_PORT)]);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  for (const server of servers) server.close();
});

/** What a page's Content-Security-Policy refused (Chromium reports each on the console): none, for the pages to work. */
const cspViolations: string[] = [];

/** A new page of the given size that records every host it requests, and what its CSP refused. */
async function newPage(width: number, height: number): Promise<{ page: Page; hosts: Set<string> }> {
  const page = await browser.newPage({ viewport: { width, height } });
  const hosts = new Set<string>();
  page.on("request", (request) => hosts.add(new URL(request.url()).host));
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(`${page.url()}: ${message.text()}`);
  });
  return { page, hosts };
}

/** The hosting's security headers on a page (firebase.json hosting.headers): not framed, not sniffed, scripts of the origin only. */
function expectSecurityHeaders(headers: Record<string, string>): void {
  expect(headers["x-frame-options"]).toBe("DENY");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("no-referrer");
  expect(headers["content-security-policy"]).toMatch(/frame-ancestors 'none'/);
  expect(headers["content-security-policy"]).toMatch(/script-src 'self';/);
}

/** Signs a demo user in on the playground (the demo password is filled in). */
async function signIn(page: Page, email = "north-admin@acme.test"): Promise<void> {
  await page.fill("#email", email);
  await page.click("#sign-in-form button[type=submit]");
  await page.locator("#who", { hasText: `Signed in as ${email}` }).waitFor({ timeout: 10_000 });
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
const localHosts = (hosts: Set<string>) => [...hosts].every((h) => h.startsWith("127.0.0.1:") || h.startsWith("localhost:"));

describe("the API reference", () => {
  it("renders both OpenAPI documents, with their operations and authentication schemes, from the origin itself", async () => {
    const { page, hosts } = await newPage(1280, 800);
    expectSecurityHeaders((await page.goto(`${URLS.hosting}/reference/`))!.headers());
    await page.locator(".opblock").first().waitFor({ timeout: 20_000 });
    expect(await page.locator(".opblock-summary-path").allTextContents()).toContain("/api/tenant/{tenantId}/roles");
    // Both authentication schemes, under "Authorize".
    await page.click(".auth-wrapper button.authorize");
    const schemes = await page.locator(".modal-ux").textContent();
    expect(schemes).toContain("bearerAuth");
    expect(schemes).toContain("basicAuth");
    await page.click(".modal-ux .close-modal");
    await shot(page, "reference-1280");
    // The print function's document, through the selector of definitions.
    await page.selectOption("select#select", { index: 1 });
    await page.locator(".opblock-summary-path", { hasText: "/print/tenant/{tenantId}/print" }).first().waitFor({ timeout: 20_000 });
    expect(localHosts(hosts), [...hosts].join(", ")).toBe(true); // no CDN: it works offline
    await page.close();
  });

  it("tries an operation out against the origin that serves the documents, not a fixed local server", async () => {
    const { page } = await newPage(1280, 800);
    await page.goto(`${URLS.hosting}/reference/`);
    const operation = page.locator(".opblock", { has: page.locator(".opblock-summary-path", { hasText: /^\/api\/openapi\.json$/ }) });
    await operation.locator(".opblock-summary-control").click();
    await operation.locator("button.try-out__btn").click();
    await operation.locator("button.execute").click();
    await operation.locator(".live-responses-table tr.response .response-col_status").first().waitFor({ timeout: 20_000 });
    expect(await operation.locator(".request-url pre").textContent()).toBe(`${URLS.hosting}/api/openapi.json`);
    expect((await operation.locator(".live-responses-table tr.response .response-col_status").first().textContent())?.trim()).toBe("200");
    await page.close();
  });
});

describe("the playground", () => {
  let page: Page;
  let hosts: Set<string>;
  beforeAll(async () => {
    ({ page, hosts } = await newPage(1280, 800));
    expectSecurityHeaders((await page.goto(`${URLS.hosting}/playground/`))!.headers());
    await page.locator("body[data-ready=true]").waitFor({ timeout: 20_000 });
  });
  afterAll(() => page.close());

  const chooseRoute = async (label: string) => {
    const value = await page.locator("#operation option", { hasText: label }).first().getAttribute("value");
    await page.selectOption("#operation", value!);
  };

  it("signs in with the Firebase JS SDK (the auth emulator), the demo user offered", async () => {
    expect(await page.inputValue("#email")).toBe("north-admin@acme.test");
    await signIn(page);
  });

  it("prints a PDF of the demo data and shows its first page on a canvas, with the request id", async () => {
    await page.fill("#target", "/tenant/acme-north");
    await chooseRoute("POST print /print");
    await page.fill("textarea[name=body]", JSON.stringify({ objectInstanceId: "inspection-short" }));
    await page.click("#operation-form button[type=submit]");
    await page.locator("#status[data-status='201']").waitFor({ timeout: 20_000 });
    expect(await page.textContent("#status")).toMatch(/request id [0-9a-f-]{8,}/);
    expect(JSON.parse((await page.textContent("#answer"))!).data.pageCount).toBeGreaterThan(0);
    await page.locator("#preview[data-pages]").waitFor({ timeout: 20_000 });
    // The canvas shows the page: dark pixels (text) on white.
    // (In the page: DOM globals, which this file's Node types do not declare.)
    const inked = await page.evaluate(() => {
      const canvas = (globalThis as any).document.getElementById("preview");
      const { data } = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height);
      let dark = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i] < 128 && data[i + 3] > 0) dark++;
      return { dark, width: canvas.width, height: canvas.height };
    });
    expect(inked.width).toBeGreaterThan(300);
    expect(inked.height / inked.width).toBeCloseTo(841.89 / 595.28, 1);
    expect(inked.dark).toBeGreaterThan(1000);
    expect(await page.getAttribute("#download", "href")).toMatch(/^blob:/);
    await shot(page, "playground-print-1280");
  });

  it("starts a print job and follows its progress bar to the end: the failure listed, the archive offered", async () => {
    await page.fill("#target", "/tenant/acme-north");
    await chooseRoute("POST print /print-jobs");
    await page.fill("textarea[name=body]", JSON.stringify({ objectInstanceIds: ["inspection-short", "multilingual", "no-such-instance"] }));
    await page.click("#operation-form button[type=submit]");
    await page.locator("#status[data-status='202']").waitFor({ timeout: 20_000 });
    await page.locator("#job-download:not([hidden])").waitFor({ timeout: 60_000 });
    // The bar is full: (done + failed) / total.
    expect(await page.evaluate(() => {
      const bar = (globalThis as any).document.getElementById("job-progress");
      return [bar.value, bar.max];
    })).toEqual([3, 3]);
    expect(await page.textContent("#job-status")).toBe("completed_with_failures: 2 printed, 1 failed of 3");
    expect(await page.locator("#job-failures li").allTextContents()).toEqual([expect.stringMatching(/^no-such-instance: 404 /)]);
    const zip = await page.evaluate(async () => {
      const href = (globalThis as any).document.getElementById("job-download").href;
      return new Uint8Array(await (await fetch(href)).arrayBuffer()).slice(0, 2).join(",");
    });
    expect(zip).toBe("80,75"); // "PK": a ZIP archive
    await shot(page, "playground-print-job-1280");
  });

  it("sends the PDF by email and lists the message the local mail sink captured, with its attachment", async () => {
    const to = `${freshUid("browser")}@example.com`;
    await chooseRoute("POST print /send-pdf");
    await page.fill("textarea[name=body]", JSON.stringify({ objectInstanceId: "inspection-short", to }));
    await page.click("#operation-form button[type=submit]");
    await page.locator("#status[data-status='200']").waitFor({ timeout: 20_000 });
    await page.locator("#mail li", { hasText: to }).waitFor({ timeout: 20_000 });
    expect(await page.locator("#mail li", { hasText: to }).textContent()).toMatch(/\.pdf \(\d+ KiB\)/);
    expect(localHosts(hosts), [...hosts].join(", ")).toBe(true);
  });

  it("verifies a PDF in the Verify panel: a signed one the target printed is valid, the same with a byte changed is not", async () => {
    // A tenant of its own that signs (the demo's targets print unsigned), where the playground's user may print.
    const tenant = freshUid("browser-signed");
    await firestore().doc(`tenants/${tenant}`).set({ name: "Browser signed", organizationId: null, features: {}, print: { sign: true } });
    await firestore().doc(`tenants/${tenant}/members/north-admin`).set({ permissions: ["READ"] });
    await firestore().doc(`tenants/${tenant}/objectInstances/doc`).set({ title: "Signed in a browser", objectTypeName: "T", sections: [{ title: "S", fields: [{ label: "A", type: "text", value: "b" }] }] });
    const printed = await call(`${BASES.print.functionUrl}/tenant/${tenant}/print`, { method: "POST", auth: { bearer: await idTokenFor("north-admin@acme.test") }, body: { objectInstanceId: "doc" }, timeoutMs: 30_000 });
    expect(printed.json.data.sign).toBe(true);
    const signed = Buffer.from(await (await fetch(printed.json.data.downloadUrl)).arrayBuffer());
    await page.fill("#target", `/tenant/${tenant}`);
    await page.setInputFiles("#verify-file", { name: "signed.pdf", mimeType: "application/pdf", buffer: signed });
    await page.locator("#verify-status[data-verdict=valid]").waitFor({ timeout: 20_000 });
    const shown = await page.locator("#verify-result").innerText();
    expect(shown).toMatch(/Valid\s+yes/);
    expect(shown).toMatch(/Printed by this target\s+yes/);
    expect(shown).toContain(printed.json.data.storagePath);
    expect(shown).toContain("CN=print-admin local test signer");
    await shot(page, "playground-verify-1280");
    const tampered = Buffer.from(signed);
    tampered[200] ^= 0x01;
    await page.setInputFiles("#verify-file", { name: "tampered.pdf", mimeType: "application/pdf", buffer: tampered });
    await page.locator("#verify-status[data-verdict=invalid]").waitFor({ timeout: 20_000 });
    expect(await page.locator("#verify-result").innerText()).toMatch(/Printed by this target\s+no/);
    // The demo's target again, for the tests below.
    await page.fill("#target", "/tenant/acme-north");
    await page.dispatchEvent("#target", "change");
  });

  it("lists the audit trail filtered by an action chosen from the document's values (the query parameters of the api document)", async () => {
    await chooseRoute("GET api /audit-events");
    await page.fill("#target", "/tenant/acme-north");
    expect(await page.locator("select[name='query:action'] option").allTextContents()).toEqual(expect.arrayContaining(["(any)", "pdf.printed", "pdf.mailed"]));
    await page.selectOption("select[name='query:action']", "pdf.mailed");
    await page.fill("input[name='query:limit']", "5");
    await page.click("#operation-form button[type=submit]");
    await page.locator("#answer", { hasText: "event(s)" }).waitFor({ timeout: 20_000 }); // (the status before was a 200 too)
    expect(await page.getAttribute("#status", "data-status")).toBe("200");
    const events = JSON.parse((await page.textContent("#answer"))!).data as { action: string }[];
    expect(events.length).toBeGreaterThan(0); // the mail of the test before
    expect(events.length).toBeLessThanOrEqual(5);
    expect(new Set(events.map((e) => e.action))).toEqual(new Set(["pdf.mailed"]));
  });

  it("offers each route only under the target kinds it serves (a division or a site has no users or roles)", async () => {
    const offered = async (target: string) => {
      await page.fill("#target", target);
      return (await page.locator("#operation option").allTextContents()).map((text) => text.trim());
    };
    const userAndRoleRoutes = /\/roles$|\/user\/\{userId\}\/(?:auth-ownership-status|restore|claim|release)|^DELETE api \/user\/\{userId\}$/;
    for (const target of ["/tenant/acme-north/division/ops", "/organization/acme/tenant/acme-north/division/ops", "/site/harbor"]) {
      const routes = await offered(target);
      expect(routes.filter((r) => userAndRoleRoutes.test(r)), target).toEqual([]);
      expect(routes, target).toEqual(expect.arrayContaining(["POST print /print", "POST print /send-pdf", "GET api /audit-events"]));
    }
    await shot(page, "playground-division-1280");
    await page.screenshot({ path: "/tmp/playground-division-1280.png", fullPage: true });
    for (const target of ["/tenant/acme-north", "/organization/acme", "/organization/acme/tenant/acme-north"]) {
      const routes = await offered(target);
      expect(routes.filter((r) => userAndRoleRoutes.test(r)).length, target).toBeGreaterThanOrEqual(6);
      expect(routes, target).toEqual(expect.arrayContaining(["GET api /roles", "GET api /user/{userId}/auth-ownership-status"]));
    }
    // The route chosen stays chosen (with its form) while the target changes to one it serves.
    await chooseRoute("GET api /user/{userId}/auth-ownership-status");
    await page.fill("input[name='path:userId']", "north-reader");
    await offered("/organization/acme");
    expect(await page.inputValue("input[name='path:userId']")).toBe("north-reader");
    // Left for a division, another route is chosen and its form shown.
    await offered("/tenant/acme-north/division/ops");
    expect(await page.locator("#operation option:checked").textContent()).not.toMatch(userAndRoleRoutes);
    expect(await page.locator("input[name='path:userId']").count()).toBe(0);
    await offered("/tenant/acme-north");
  });

  it("answers a route it cannot serve with the error as JSON, and is usable on a phone-sized screen", async () => {
    await chooseRoute("GET api /roles");
    await page.fill("#target", "/tenant/no-such-tenant");
    await page.click("#operation-form button[type=submit]");
    await page.locator("#status[data-status='401'], #status[data-status='404']").waitFor({ timeout: 20_000 });
    expect(JSON.parse((await page.textContent("#answer"))!)).toMatchObject({ statusCode: expect.any(Number), message: expect.any(String) });
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, "playground-phone");
  });

});

describe("the playground's template editor", () => {
  const TEMPLATE_DOC = "tenants/acme-north/printTemplates/safety-inspection-customer";
  let page: Page;
  let demoTemplate: FirebaseFirestore.DocumentData | undefined;
  /** Every preview the page asked for: its status, and the template it sent. */
  const previews: { status: number; template?: { watermark?: { text: string }; footer?: { right?: string } } }[] = [];

  beforeAll(async () => {
    demoTemplate = (await firestore().doc(TEMPLATE_DOC).get()).data(); // put back after the save below
    ({ page } = await newPage(1280, 900));
    page.on("response", (res) => {
      if (res.url().endsWith("/preview")) previews.push({ status: res.status(), template: res.request().postDataJSON().template });
    });
    await page.goto(`${URLS.hosting}/playground/`);
    await page.locator("body[data-ready=true]").waitFor({ timeout: 20_000 });
    await signIn(page);
    // Keystrokes and the frames that show a new page, timed in the page (performance.now()).
    await page.evaluate(() => {
      const { document, requestAnimationFrame, performance, MutationObserver } = globalThis as any;
      performance.setResourceTimingBufferSize(1000); // every preview's timing kept (250 by default)
      const times: Record<string, number> = ((globalThis as any).editorTimes = {});
      document.getElementById("editor-json").addEventListener("keydown", () => (times.key = performance.now()));
      const canvas = document.getElementById("editor-page");
      new MutationObserver(() => requestAnimationFrame(() => (times[canvas.dataset.revision] = performance.now()))).observe(canvas, { attributeFilter: ["data-revision"] });
    });
  });
  afterAll(async () => {
    await page.close();
    if (demoTemplate) await firestore().doc(TEMPLATE_DOC).set(demoTemplate);
  });

  /** Waits for the page of the text as it now is; the ms from its last keystroke to the frame that showed it. */
  async function pageOfText(): Promise<number> {
    const revision = await page.getAttribute("#editor-json", "data-revision");
    await page.locator(`#editor-page[data-revision="${revision}"]`).waitFor({ timeout: 20_000 });
    await page.locator("#editor-status[data-state=ok]").waitFor({ timeout: 10_000 });
    return page.evaluate((r) => new Promise<number>((resolve) => {
      const times = (globalThis as any).editorTimes;
      const read = () => (times[r] ? resolve(Math.round(times[r] - times.key)) : setTimeout(read, 10));
      read();
    }), revision!);
  }

  /** A hash of the page canvas's pixels. */
  const pixels = () =>
    page.evaluate(() => {
      const canvas = (globalThis as any).document.getElementById("editor-page");
      const { data } = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height);
      let hash = 2166136261;
      for (let i = 0; i < data.length; i++) hash = Math.imul(hash ^ data[i], 16777619);
      return `${canvas.width}x${canvas.height}:${hash >>> 0}`;
    });

  /** Selects the `nth` occurrence of `text` in the JSON from its offset `from` to its end, as a mouse would, to type over it. */
  const selectInJson = (text: string, nth = 0, from = 0) =>
    page.evaluate(
      ({ text, nth, from }) => {
        const area = (globalThis as any).document.getElementById("editor-json");
        let at = area.value.indexOf(text);
        for (let n = 0; n < nth; n++) at = area.value.indexOf(text, at + 1);
        area.focus();
        area.setSelectionRange(at + from, at + text.length);
      },
      { text, nth, from },
    );

  it("previews the demo's template on inspection-photos: page 1 on the canvas, with its warnings", async () => {
    await page.fill("#target", "/tenant/acme-north");
    expect(await page.inputValue("#editor-instance")).toBe("inspection-photos");
    await page.locator("#editor-templates option[value=safety-inspection-customer]").waitFor({ state: "attached", timeout: 20_000 });
    await page.selectOption("#editor-templates", "safety-inspection-customer");
    await page.locator("#editor-saved", { hasText: "Loaded version 1" }).waitFor({ timeout: 20_000 }); // in the textarea
    await pageOfText();
    expect(JSON.parse(await page.inputValue("#editor-json"))).toMatchObject({ name: "Safety Inspection: customer copy", watermark: { text: "DRAFT" } });
    expect(await page.getAttribute("#editor-page", "data-pages")).toMatch(/^[1-9]\d*$/);
    // The demo's template names two sections inspection-photos lacks: the Print-Warnings header, listed.
    expect(await page.locator("#editor-warnings li").allTextContents()).toContain("section 'Findings & Measurements' is not in the instance");
  });

  it("draws the page again as one types, one preview in flight at a time and the newest text last", async () => {
    // The watermark DRAFT to COPY typed quickly (one request after the pause), then the footer's "Page"
    // to "Seite" slowly (a request after each key, each waiting for the one before).
    for (const [text, typed, from, delay] of [['"text": "DRAFT', "COPY", 9, 40], ['"right": "Page', "Seite", 10, 250]] as const) {
      const before = await pixels();
      const sent = previews.length;
      await selectInJson(text, 0, from);
      await page.keyboard.type(typed, { delay });
      const ms = await pageOfText();
      console.log(`[editor] keystroke to page: ${ms} ms (typed ${typed}, ${delay} ms between keys; ${previews.length - sent} preview request(s))`);
      expect(await pixels()).not.toBe(before);
      expect(previews.at(-1)).toMatchObject({ status: 200, template: { watermark: { text: "COPY" }, footer: { right: expect.stringMatching(/^(Page|Seite) /) } } });
    }
    expect(previews.at(-1)!.template?.footer?.right).toBe("Seite {page} of {pages}");
    await page.locator("#editor-page").screenshot({ path: join(SCREENSHOTS, "editor-page-1280.png") });
    // The browser's own timing of the previews: none started before the one before it had ended.
    const spans = await page.evaluate(() =>
      (globalThis as any).performance
        .getEntriesByType("resource")
        .filter((e: any) => e.name.endsWith("/preview"))
        .map((e: any) => [e.startTime, e.responseEnd]),
    );
    expect(spans.length).toBeGreaterThan(3);
    for (let i = 1; i < spans.length; i++) expect(spans[i][0]).toBeGreaterThanOrEqual(spans[i - 1][1]);
  });

  it("names a problem of the schema where it is in the JSON, sends no text that is not JSON, then saves the fixed template", async () => {
    // The second field's width, "half" typed over with "third" (a quote first: not JSON until the last one).
    await selectInJson('"width": "half"', 1, 9);
    await page.keyboard.type('"third"', { delay: 40 });
    const problem = page.locator("#editor-problems button", { hasText: "'sections.0.fields.1.width': Invalid option" });
    await problem.waitFor({ timeout: 20_000 });
    expect(await problem.textContent()).toMatch(/^line \d+: 'sections\.0\.fields\.1\.width': Invalid option: expected one of "full"\|"half"$/);
    expect(previews.at(-1)!.status).toBe(400);
    expect(await page.getAttribute("#editor-pages", "class")).toContain("stale");
    await problem.click();
    const selected = () => page.evaluate(() => {
      const area = (globalThis as any).document.getElementById("editor-json");
      return area.value.slice(area.selectionStart, area.selectionEnd);
    });
    expect(await selected()).toBe('"width": "third"');
    await shot(page, "editor-problem-1280");
    // Half a key: not JSON, said with its line and column; nothing sent.
    const sent = previews.length;
    await page.keyboard.type('"wid', { delay: 40 });
    await page.locator("#editor-status", { hasText: "Not JSON" }).waitFor({ timeout: 10_000 });
    expect(await page.locator("#editor-problems button").allTextContents()).toEqual([expect.stringMatching(/^line \d+, column \d+$/)]);
    expect(previews.length).toBe(sent);
    await page.keyboard.type('th": "half"', { delay: 40 });
    await pageOfText();
    expect(await page.locator("#editor-problems li").count()).toBe(0);
    // Saved with PUT: the next version, listed as such.
    await page.click("#editor-save");
    await page.locator("#editor-saved[data-version='2']").waitFor({ timeout: 20_000 });
    expect(await page.textContent("#editor-saved")).toBe("Print template saved. Version 2.");
    expect(await page.locator("#editor-templates option:checked").textContent()).toMatch(/\(v2\)$/);
    expect((await firestore().doc(TEMPLATE_DOC).get()).get("watermark.text")).toBe("COPY");
    await shot(page, "editor-saved-1280");
    await page.screenshot({ path: "/tmp/editor.png", fullPage: true });
  });

  it("draws every page on request", async () => {
    await page.check("#editor-all-pages");
    const pages = Number(await page.getAttribute("#editor-page", "data-pages"));
    await page.waitForFunction((n) => (globalThis as any).document.querySelectorAll("#editor-pages canvas").length === n, pages, { timeout: 20_000 });
    expect(pages).toBeGreaterThan(1);
    await page.uncheck("#editor-all-pages");
  });

  it("lists and saves templates for ADMINs only: a reader is told why (401, naming the permission)", async () => {
    await page.click("#sign-out");
    await signIn(page, "north-reader@acme.test");
    await page.locator("#editor-list-status", { hasText: "Saved templates: 401 This route needs the ADMIN permission" }).waitFor({ timeout: 20_000 });
    expect(await page.inputValue("#editor-template-id")).toBe("safety-inspection-customer");
    await page.click("#editor-save");
    await page.locator("#editor-saved", { hasText: /^Not saved: 401 This route needs the ADMIN permission/ }).waitFor({ timeout: 20_000 });
    // The preview is a print's: a reader may ask for it.
    await pageOfText();
  });
});

describe("the hosting pages", () => {
  it("break no rule of their Content-Security-Policy: the reference, the playground, its template editor", () => {
    expect(cspViolations).toEqual([]);
  });
});

describe("CORS, as a browser enforces it", () => {
  /** Runs fetch in a page of the origin on `port` against the api function's own URL. */
  async function fetchFrom(port: number, token: string) {
    const { page } = await newPage(800, 600);
    await page.goto(`http://${HOST}:${port}/`);
    const result = await page.evaluate(
      async ({ url, token }) => {
        try {
          const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
          return { status: res.status, requestId: res.headers.get("x-request-id"), body: await res.json() };
        } catch (error) {
          return { error: String(error) };
        }
      },
      { url: `${URLS.api}/api/tenant/acme-north/roles?limit=2`, token },
    );
    await page.close();
    return result;
  }

  it("lets a page of an allowed origin call a function URL with a Bearer token (preflight, exposed headers)", async () => {
    const result = await fetchFrom(ALLOWED_PORT, await idTokenFor("north-admin@acme.test"));
    expect(result).toMatchObject({ status: 200, requestId: expect.stringMatching(/.+/), body: { statusCode: 200 } });
  });

  it("lets only the playground's origin read the local mail sink's messages (not any site the developer visits)", async () => {
    const allowOrigin = async (origin: string) => (await fetch(`${URLS.mailSink}/messages`, { headers: { origin } })).headers.get("access-control-allow-origin");
    expect(await allowOrigin(URLS.hosting)).toBe(URLS.hosting);
    expect(await allowOrigin(`http://${HOST}:${REFUSED_PORT}`)).toBeNull();
  });

  it("leaves a page of another origin with a network error: the browser refuses the answer", async () => {
    const result = await fetchFrom(REFUSED_PORT, await idTokenFor("north-admin@acme.test"));
    expect(result).toEqual({ error: expect.stringContaining("Failed to fetch") });
  });
});
