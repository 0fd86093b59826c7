// The renderer's document settings: locale (formats and words), time zone and paper size.

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { PDFDocument, type PDFRawStream } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { PAPER_SIZES, renderInstancePdf, WORD_LANGUAGES, wordsFor, type PrintableInstance, type RenderOptions } from "../../src/print/render";
import { streamData } from "./pdfText";
import { popplerLines } from "./popplerText";

const demo = JSON.parse(readFileSync(resolve(__dirname, "../../../emulator-data/demo.json"), "utf8")) as { documents: Record<string, PrintableInstance> };
const AT = new Date("2026-05-04T16:12:05Z");
const render = (instance: PrintableInstance, settings: Partial<RenderOptions> = {}) =>
  renderInstancePdf(instance, { instanceId: "settings", targetName: "Acme", generatedAt: AT, ...settings });
const values: PrintableInstance = {
  title: "Settings",
  objectTypeName: "Test",
  sections: [
    {
      title: "Values",
      fields: [
        { label: "When", type: "datetime", value: "2026-03-05T23:30:00Z" },
        { label: "Day", type: "date", value: "2026-03-05" },
        { label: "Count", type: "number", value: 48250 },
        { label: "Year", type: "number", value: 2014 },
        { label: "Done", type: "boolean", value: true },
        { label: "Open", type: "boolean", value: false },
      ],
    },
  ],
};
const text = async (settings: Partial<RenderOptions>) => popplerLines((await render(values, settings)).bytes).join("\n");

describe("locale and time zone", () => {
  it("prints date-times in the time zone (23:30 UTC is the next morning in Tokyo), dates as stored", async () => {
    const tokyo = await text({ locale: "ja-JP", timeZone: "Asia/Tokyo" });
    expect(tokyo).toContain("2026年3月6日 8:30 JST");
    expect(tokyo).toContain("2026年3月5日");
    expect(await text({})).toContain("5 March 2026 at 23:30 UTC");
  });

  it("formats dates, numbers and booleans in the locale's conventions, and says its words", async () => {
    const german = await text({ locale: "de-DE", timeZone: "Europe/Berlin" });
    for (const s of ["6. März 2026 um 00:30 MEZ", "5. März 2026", "48.250", "2014", "Ja", "Nein", "Objekttyp", "Ziel", "Seite 1 von 1", "Instanz settings · Erstellt 4. Mai 2026 um 18:12:05 MESZ"]) {
      expect(german).toContain(s);
    }
    const american = await text({ locale: "en-US", timeZone: "America/New_York" });
    expect(american).toContain("March 5, 2026 at 6:30 PM EST");
    expect(american).toContain("48,250");
  });

  it("falls back by language, then to English; Chinese by script", () => {
    expect(wordsFor("de-AT").page(1, 2)).toBe("Seite 1 von 2");
    expect(wordsFor("fr-CA").yes).toBe("Oui");
    expect(wordsFor("zh-TW").page(1, 2)).toBe("第 1 頁，共 2 頁");
    expect(wordsFor("zh-CN").page(1, 2)).toBe("第 1 页，共 2 页");
    expect(wordsFor("zh-HK").untitled).toBe("無標題");
    expect(wordsFor("fi-FI").page(1, 2)).toBe("Page 1 of 2");
    expect(wordsFor("not a locale").yes).toBe("Yes");
  });

  it("has every word in every language the issue names", () => {
    expect(WORD_LANGUAGES.sort()).toEqual(["ar", "de", "en", "es", "fr", "he", "hi", "it", "ja", "ko", "nl", "pl", "pt", "ru", "sv", "th", "tr", "uk", "zh-Hans", "zh-Hant"].sort());
    const english = wordsFor("en");
    for (const language of WORD_LANGUAGES.filter((l) => l !== "en")) {
      const words = wordsFor(language);
      expect(words.page(3, 7), language).toMatch(/3.*7|7.*3/);
      expect(words.objectType, language).not.toBe(english.objectType);
      expect(words.noSections, language).not.toBe(english.noSections);
    }
  });

  it("prints an Arabic locale's words right to left, and ignores settings it cannot use (defaults, no error)", async () => {
    const arabic = await text({ locale: "ar-EG", timeZone: "Africa/Cairo" });
    expect(arabic).toContain("نعم");
    expect(arabic).toContain("نوع الكائن");
    const fallback = await text({ locale: "no such locale!", timeZone: "Mars/Olympus", paperSize: "A0" });
    expect(fallback).toContain("5 March 2026 at 23:30 UTC");
    expect(fallback).toContain("Page 1 of 1");
  });
});

describe("paper size", () => {
  it.each(Object.entries(PAPER_SIZES))("%s: every page is that paper, and labelled \"Page X of N\"", async (size, [width, height]) => {
    const pdf = await render(demo.documents["tenants/acme-north/objectInstances/audit-long"], { paperSize: size });
    const doc = await PDFDocument.load(pdf.bytes, { updateMetadata: false });
    expect(doc.getPageCount()).toBe(pdf.pageCount);
    for (const page of doc.getPages()) expect([page.getWidth(), page.getHeight()]).toEqual([width, height]);
    const lines = popplerLines(pdf.bytes);
    for (let i = 1; i <= pdf.pageCount; i++) expect(lines.join("\n")).toContain(`Page ${i} of ${pdf.pageCount}`);
  });

  it("takes more pages on shorter paper and fewer on longer", async () => {
    const pages = async (paperSize: string) => (await render(demo.documents["tenants/acme-north/objectInstances/audit-long"], { paperSize })).pageCount;
    const [a4, letter, legal] = [await pages("A4"), await pages("Letter"), await pages("Legal")];
    expect(legal).toBeLessThan(a4);
    expect(letter).toBeGreaterThanOrEqual(a4);
  });
});

describe("branding", () => {
  it("draws headings and rules in the accent colour, and the target's footer line on every page", async () => {
    const pdf = await render(demo.documents["tenants/acme-north/objectInstances/audit-long"], { accentColor: "#ff8000", footerText: "Acme North Ltd · Registered in England 01234567" });
    const doc = await PDFDocument.load(pdf.bytes, { updateMetadata: false });
    const contents = doc.getPages().map((p) => {
      const stream = p.node.Contents();
      return stream && "getContents" in stream ? streamData(stream as PDFRawStream).toString("latin1") : "";
    });
    expect(contents[0]).toContain("1 0.5 0 RG"); // the rule under the header, #ff8000
    expect(contents[0]).not.toContain("0.11 0.25 0.45 RG");
    const lines = popplerLines(pdf.bytes).join("\n");
    expect(lines.split("Acme North Ltd · Registered in England 01234567").length - 1).toBe(pdf.pageCount);
  });
});
