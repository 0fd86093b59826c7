// HTML to PDF in headless Chromium, the way most projects do it: puppeteer-core driving Debian's
// chromium, one browser kept warm for the whole run, a new page (tab) per render:
// setContent(html) then page.pdf({ format: "A4" }) with a header and footer template.
// `tagged`: puppeteer's default (true) writes a structure tree (accessibility tags) into the PDF: on
// long documents several times the size and the time. Our renderer writes untagged PDFs, so the
// like-for-like engine ("chromium") passes tagged: false; "chromium-tagged" keeps the default.
// Fonts: every Noto family our renderer embeds (the same files, from the npm packages), made visible to
// Chromium through a fontconfig file (FONTCONFIG_FILE, written by setup.ts), as fonts installed on the
// system would be, and named in the CSS font-family list (html.ts) so that no other system font stands in.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "puppeteer-core" with { "resolution-mode": "import" };
import { treeCpuMs, treePssBytes } from "../procfs";
import { buildHtml, footerTemplate, headerTemplate } from "./html";
import { buildModel } from "./model";
import type { Engine } from "./types";

export const CHROMIUM_PATH = process.env.BENCH_CHROMIUM ?? "/usr/bin/chromium";

/** The flags the brief asks for; puppeteer adds --headless=new (what --headless means since Chromium 132). */
export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function createChromium(options: { tagged: boolean }): Promise<Engine> {
  const puppeteer = (await import("puppeteer-core")).default;
  const userDataDir = mkdtempSync(join(tmpdir(), "bench-chromium-profile-"));
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      userDataDir,
      args: CHROMIUM_FLAGS,
      env: process.env as Record<string, string>,
    });
  } catch (e) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw e;
  }
  const pid = browser.process()?.pid;
  if (pid === undefined) throw new Error("Chromium started without a process id");
  return {
    async render(c) {
      const model = buildModel(c);
      const page = await browser.newPage();
      try {
        await page.setContent(buildHtml(model), { waitUntil: "load" });
        const bytes = await page.pdf({
          format: "A4",
          tagged: options.tagged,
          printBackground: true,
          displayHeaderFooter: true,
          headerTemplate: headerTemplate(model),
          footerTemplate: footerTemplate(model),
          // 50 pt, 60 pt, 50 pt as ours (puppeteer takes px, in, cm or mm)
          margin: { top: "0.6944in", bottom: "0.8333in", left: "0.6944in", right: "0.6944in" },
        });
        return { bytes };
      } finally {
        await page.close();
      }
    },
    helperCpuMs: () => treeCpuMs(pid),
    helperMemoryBytes: () => treePssBytes(pid),
    async close() {
      await browser.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
