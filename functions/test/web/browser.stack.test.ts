// The hosting origin in a real browser: Playwright (playwright-core) driving Debian's Chromium
// (installed with apt where missing, as the benchmark does). The API reference renders both OpenAPI
// documents from the origin itself; the playground signs in with the Firebase JS SDK (auth emulator),
// prints and previews the PDF on a canvas, sends one and finds the captured mail; a page of a second
// origin in CORS_ORIGINS calls a function URL directly with a Bearer token, and one from an origin
// that is not allowed is refused by the browser. Screenshots: .cache/screenshots/ (looked at).

import { createServer, type Server } from "node:http";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CACHE_DIR, HOST, URLS } from "../../stack/config";
import { ensureDebianPackage } from "../../stack/debianPackages";
import { freshUid } from "../api/fixtures";
import { idTokenFor } from "../helpers";

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
    await page.click("#sign-in-form button[type=submit]");
    await page.locator("#who", { hasText: "Signed in as north-admin@acme.test" }).waitFor({ timeout: 10_000 });
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

  it("breaks no rule of its Content-Security-Policy, nor did the reference", () => {
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
