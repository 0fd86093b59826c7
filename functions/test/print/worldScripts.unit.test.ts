// Every major script through the renderer, read back with poppler (pdftotext) and PDF.js: the text
// of every script comes back exactly and in logical order, from the font of its script, shaped,
// right-to-left text right-aligned, and a right-to-left document mirrored.

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef } from "pdf-lib";
import { beforeAll, describe, expect, it } from "vitest";
import { PAGE_WIDTH, renderInstancePdf, type PrintableInstance, type RenderedPdf } from "../../src/print/render";
import { cleanText } from "../../src/print/render/text/paragraph";
import { pageContents, unmarkedContent } from "./pdfChecks";
import { pdfjsItems, streamData } from "./pdfText";
import { logicalLine, logicalText, pageRaster, popplerLines, popplerWarnings, squash } from "./popplerText";

const demo = JSON.parse(readFileSync(resolve(__dirname, "../../../emulator-data/demo.json"), "utf8")) as {
  documents: Record<string, PrintableInstance>;
};
const SCRIPT_DEMOS = ["world-scripts", "script-cjk", "script-rtl", "script-indic", "script-sea", "script-more"];
const AT = new Date("2026-05-04T16:12:05Z");
const render = (instance: PrintableInstance, locale?: string): Promise<RenderedPdf> =>
  renderInstancePdf(instance, { instanceId: "world", targetName: "Acme North", generatedAt: AT, locale });
const oneValue = (value: string, label = "Value"): PrintableInstance => ({
  title: "Sample",
  objectTypeName: "Test",
  sections: [{ title: "Section", fields: [{ label, type: "text", value }] }],
});

/** Strings the instance prints as they are: title, headings, labels, text values and table cells. */
function verbatimStrings(instance: PrintableInstance): string[] {
  const out = [instance.title, instance.objectTypeName];
  for (const s of instance.sections) {
    out.push(s.title);
    for (const f of s.fields) {
      out.push(f.label);
      if (typeof f.value === "string" && ["text", "longtext"].includes(f.type)) out.push(...f.value.split("\n"));
      if (f.type === "table") {
        const t = f.value as { columns: string[]; rows: { cells: unknown[] }[] };
        out.push(...t.columns, ...t.rows.flatMap((r) => r.cells.filter((c): c is string => typeof c === "string")));
      }
    }
  }
  return out.filter((s) => s.trim() !== "");
}

/** The Type0 fonts a PDF embeds. */
async function type0Fonts(bytes: Uint8Array): Promise<{ pdf: PDFDocument; fonts: PDFDict[] }> {
  const pdf = await PDFDocument.load(bytes, { updateMetadata: false });
  const fonts = pdf.context
    .enumerateIndirectObjects()
    .map(([, obj]) => obj)
    .filter((obj): obj is PDFDict => obj instanceof PDFDict && obj.get(PDFName.of("Subtype")) === PDFName.of("Type0"));
  return { pdf, fonts };
}

/** BaseFont names (subset tag removed) of the fonts a PDF embeds. */
async function fontNames(bytes: Uint8Array): Promise<string[]> {
  const { fonts } = await type0Fonts(bytes);
  return fonts.map((f) => String(f.get(PDFName.of("BaseFont"))).replace(/^\/[A-Z]{6}\+/, "")).sort();
}

/** Every ToUnicode entry's text, as UTF-16 hex digits. */
async function toUnicodeTargets(bytes: Uint8Array): Promise<string[]> {
  const { pdf, fonts } = await type0Fonts(bytes);
  return fonts
    .flatMap((f) => [...streamData(pdf.context.lookup(f.get(PDFName.of("ToUnicode")) as PDFRef) as PDFRawStream).toString("latin1").matchAll(/^<[0-9a-f]{4}> <([0-9a-f]*)>$/gm)])
    .map((m) => m[1]);
}

const rendered: Record<string, RenderedPdf> = {};
beforeAll(async () => {
  for (const id of SCRIPT_DEMOS) rendered[id] = await render(demo.documents[`tenants/acme-north/objectInstances/${id}`]);
});

describe("world scripts: text comes back exactly", () => {
  it.each(SCRIPT_DEMOS)("%s: every word of every title, label, value and cell reads back exactly, nothing replaced", (id) => {
    const pdf = rendered[id];
    expect(pdf.missingCharacters).toBe(0);
    const text = logicalText(pdf.bytes);
    expect(text).not.toContain("\uFFFD");
    // Words without their punctuation: where poppler puts a comma between right-to-left and
    // left-to-right runs is its own guess (PDF.js, which reorders properly, is checked below).
    const words = verbatimStrings(demo.documents[`tenants/acme-north/objectInstances/${id}`]).flatMap((s) => s.split(/[\s\p{P}]+/u));
    expect(words.filter((w) => w !== "" && !text.includes(w))).toEqual([]);
  });

  it("left-to-right strings of the demos read back whole, spacing aside", () => {
    const ltr = (s: string): boolean => !/[\p{Script=Arabic}\p{Script=Hebrew}]/u.test(s);
    for (const id of SCRIPT_DEMOS) {
      const text = logicalText(rendered[id].bytes);
      const strings = verbatimStrings(demo.documents[`tenants/acme-north/objectInstances/${id}`]).filter(ltr);
      expect(strings.filter((s) => !text.includes(squash(s))), id).toEqual([]);
    }
  });

  it.each([
    ["Japanese", "山田 太郎（やまだ たろう）"],
    ["Chinese", "张伟，北京市朝阳区建国路88号"],
    ["Korean", "김민준, 서울특별시 중구 세종대로 110"],
    ["Hindi", "क्षत्रिय प्रिया शर्मा"],
    ["Bengali", "অমিত রায়, কলকাতা"],
    ["Tamil", "கார்த்திக் சென்னை"],
    ["Thai", "สมชาย ใจดี กรุงเทพมหานคร"],
    ["Khmer", "សុខ ចាន់ធី ភ្នំពេញ"],
    ["Greek and Cyrillic", "Νίκος Παπαδόπουλος / Ольга Смирнова"],
    ["Arabic", "فاطمة الزهراء، شارع التحرير القاهرة"],
    ["Hebrew", "שרה כהן, רחוב הרצל, תל אביב"],
  ])("%s: the value line reads back character for character, in logical order", async (_script, value) => {
    const lines = popplerLines((await render(oneValue(value))).bytes).map(logicalLine);
    expect(lines).toContain(value);
  });

  it("emoji and their sequences (skin tone, family, flag) read back whole, spaced like text", async () => {
    const value = "✅ Approved 👍🏽 👨‍👩‍👧 🇯🇵";
    const pdf = (await render(oneValue(value))).bytes;
    expect(popplerLines(pdf)).toContain(value);
  });

  it("keeps numbers and Latin words in their own order inside right-to-left text", async () => {
    // PDF.js reorders a run of right-to-left text (one font) itself: the logical string, spaces included.
    const hebrew = "שרה כהן, רחוב הרצל 15, תל אביב";
    expect((await pdfjsItems((await render(oneValue(hebrew))).bytes)).map((i) => i.str)).toContain(hebrew);
    // Runs of several fonts: poppler's runs read right to left (where it puts spaces between runs is its own guess).
    for (const value of ["تم تثبيت Firebase 12 في الخادم 3", "הותקן Firebase 12 בשרת 3", "ولم يُلاحظ أي تآكل"]) {
      const lines = popplerLines((await render(oneValue(value))).bytes).map(logicalLine);
      expect(lines.map(squash)).toContain(squash(value));
    }
  });
});

describe("world scripts: fonts", () => {
  it("takes each script from its family, regular and bold", async () => {
    expect(await fontNames(rendered["script-indic"].bytes)).toEqual(
      expect.arrayContaining(["NotoSansDevanagari-Bold", "NotoSansDevanagari-Regular", "NotoSansBengali-Regular", "NotoSansTamil-Regular"]),
    );
    expect(await fontNames(rendered["script-sea"].bytes)).toEqual(expect.arrayContaining(["NotoSansThai-Bold", "NotoSansThai-Regular", "NotoSansKhmer-Regular"]));
    expect(await fontNames(rendered["script-rtl"].bytes)).toEqual(expect.arrayContaining(["NotoSansArabic-Bold", "NotoSansArabic-Regular", "NotoSansHebrew-Regular"]));
    expect(await fontNames(rendered["world-scripts"].bytes)).toEqual(expect.arrayContaining(["NotoEmoji-Regular", "NotoSansKR-Regular", "NotoSansJP-Bold"]));
    const more = ["Telugu", "Gujarati", "Kannada", "Malayalam", "Gurmukhi", "Oriya", "Sinhala", "Myanmar", "Lao", "Georgian", "Armenian", "Ethiopic"];
    expect(await fontNames(rendered["script-more"].bytes)).toEqual(
      expect.arrayContaining([...more.map((s) => `NotoSans${s}-Regular`), "NotoSerifTibetan-Regular", "NotoSansMath-Regular", "NotoSansTelugu-Bold"]),
    );
  });

  it("prints Han in one style per document: the locale's, else Japanese with kana, Korean with Hangul, else Chinese", async () => {
    const han = "直骨";
    const family = async (value: string, locale?: string): Promise<string[]> =>
      (await fontNames((await render(oneValue(value), locale)).bytes)).filter((n) => /NotoSans(JP|SC|TC|KR)-Regular/.test(n));
    expect(await family(han)).toEqual(["NotoSansSC-Regular"]);
    expect(await family(`${han} かな`)).toEqual(["NotoSansJP-Regular"]);
    expect(await family(`${han} 한글`)).toEqual(["NotoSansKR-Regular"]);
    expect(await family(han, "ja-JP")).toEqual(["NotoSansJP-Regular"]);
    expect(await family(han, "zh-TW")).toEqual(["NotoSansTC-Regular"]);
    expect(await family(han, "zh-Hant-HK")).toEqual(["NotoSansTC-Regular"]);
  });

  it("writes ToUnicode entries that give each cluster's text once: conjuncts, and Arabic letters sharing a dotless form", async () => {
    const targets = await toUnicodeTargets((await render(oneValue("क्षमा بد فيه شيء"))).bytes);
    const texts = targets.map((h) => String.fromCharCode(...(h.match(/.{4}/g) ?? []).map((x) => parseInt(x, 16))));
    expect(texts).toContain("क्ष"); // one glyph, three characters
    // Yeh (medial) and beh (initial) are drawn from dotless forms plus dots: each letter its own code.
    expect(texts).toContain("ي");
    expect(texts).toContain("ب");
    expect(texts).toContain(""); // the dots stand for nothing of their own
  });
});

describe("world scripts: direction and layout", () => {
  it("right-aligns a right-to-left value in a left-to-right document", async () => {
    const items = await pdfjsItems((await render(oneValue("שרה כהן"))).bytes);
    const value = items.find((i) => i.str === "שרה כהן")!;
    expect(value.right).toBeCloseTo(PAGE_WIDTH - 50, 0);
    expect(items.find((i) => i.str === "Value")!.x).toBeCloseTo(50, 0);
  });

  it("mirrors a right-to-left document: labels on the right, values to their left, footer swapped, tables right to left", async () => {
    const items = await pdfjsItems(rendered["script-rtl"].bytes);
    const at = (s: string) => items.find((i) => i.str === s)!;
    expect(at("Object type").right).toBeCloseTo(PAGE_WIDTH - 50, 0);
    expect(at("Target").right).toBeCloseTo(PAGE_WIDTH - 50, 0);
    expect(at("ahmed.mahmoud@acme.test").right).toBeLessThan(at("Object type").x);
    expect(at("ahmed.mahmoud@acme.test").right).toBeCloseTo(at("Acme North").right, 0);
    expect(at("Page 1 of 1").x).toBeCloseTo(50, 0);
    // The table's last column (pressure, numbers aligned to its end) is the leftmost.
    expect(at("6.2").x).toBeCloseTo(50 + 3.5, 0);
  });

  it("lays out a document mostly in Arabic right to left without a locale, and a Latin one with an Arabic locale", async () => {
    const latin = oneValue("Plain Latin text");
    const items = await pdfjsItems((await render(latin, "ar-EG")).bytes);
    expect(items.find((i) => i.str === "Value")!.right).toBeCloseTo(PAGE_WIDTH - 50, 0);
    // By the script of the language: Punjabi of Pakistan is written in Arabic letters (Gurmukhi in India), Azeri of Iran too.
    for (const [locale, mirrored] of [["pa-PK", true], ["az-IR", true], ["pa-IN", false], ["az-AZ", false]] as const) {
      const value = (await pdfjsItems((await render(latin, locale)).bytes)).find((i) => i.str === "Value")!;
      expect(mirrored ? value.right : value.x, locale).toBeCloseTo(mirrored ? PAGE_WIDTH - 50 : 50, 0);
    }
    const pdf = await PDFDocument.load((await render(latin, "ar-EG")).bytes, { updateMetadata: false });
    expect(String(pdf.catalog.get(PDFName.of("Lang")))).toBe("(ar-EG)");
    const arabic = await PDFDocument.load(rendered["script-rtl"].bytes, { updateMetadata: false });
    expect(String(arabic.catalog.get(PDFName.of("Lang")))).toBe("(ar)");
  });
});

describe("world scripts: hostile text", () => {
  // "Zalgo" text: each letter under sixty combining marks, which stack an em after another above and below.
  const marks = (count: number, seed: number): string => Array.from({ length: count }, (_, i) => String.fromCodePoint(0x300 + ((seed * 7 + i * 13) % 0x70))).join("");
  const flood = [..."Zalgo"].map((c, i) => c + marks(60, i)).join("");
  const rows = (value: string): PrintableInstance => ({
    title: "Sample",
    objectTypeName: "Test",
    sections: [{ title: "Section", fields: [
      { label: "Above", type: "text", value: "Plain line above" },
      { label: "Value", type: "text", value },
      { label: "Below", type: "text", value: "Plain line below" },
    ] }],
  });
  it("keeps a flood of combining marks inside its own line: the page differs from plain letters' only within the line's band", async () => {
    const dpi = 144;
    const plain = pageRaster((await render(rows("Zalgo"))).bytes, 1, dpi);
    const floodPdf = (await render(rows(flood))).bytes;
    const flooded = pageRaster(floodPdf, 1, dpi);
    // The clip is drawn as an artifact: everything on the page stays marked (PDF/UA).
    for (const content of pageContents(floodPdf)) expect(unmarkedContent(content)).toEqual([]);
    let top = Infinity;
    let bottom = -Infinity;
    for (let i = 0; i < plain.rgb.length; i++) {
      if (plain.rgb[i] === flooded.rgb[i]) continue;
      const row = Math.floor(i / 3 / plain.width);
      top = Math.min(top, row);
      bottom = Math.max(bottom, row);
    }
    expect(bottom).toBeGreaterThan(top); // the marks are drawn
    // Values are set at 10 pt: the band the line may draw in is under two ems high.
    expect((bottom - top) / (dpi / 72)).toBeLessThan(20);
  });

  it.each([
    ["a flood of marks", flood],
    ["3,000 emoji joined by ZWJ", "\u{1f44d}\u200d".repeat(3000)],
    ["60 women of one skin tone joined by ZWJ", "\u{1f469}\u{1f3fd}\u200d".repeat(60)],
  ])("cuts %s into clusters of at most 32 code points: it wraps inside the margins, and poppler reads every ToUnicode entry", async (_name, value) => {
    const clusters = [...new Intl.Segmenter("en", { granularity: "grapheme" }).segment(cleanText(value))].map((c) => [...c.segment].length);
    expect(Math.max(...clusters)).toBeLessThanOrEqual(32);
    expect(Math.max(...clusters)).toBeGreaterThan(24);
    // Never cut between an emoji and its skin tone: no modifier starts a cluster.
    expect(clusters.length).toBeGreaterThan(1);
    for (const c of new Intl.Segmenter("en", { granularity: "grapheme" }).segment(cleanText(value))) expect(c.segment).not.toMatch(/^\u200b?\p{Emoji_Modifier}/u);
    const { bytes } = await render(oneValue(value));
    expect(popplerWarnings(bytes)).toBe("");
    for (const target of await toUnicodeTargets(bytes)) expect(target.length / 2).toBeLessThanOrEqual(512); // a CMap string's limit, in bytes
    for (const item of await pdfjsItems(bytes)) expect(item.right, item.str.slice(0, 20)).toBeLessThanOrEqual(PAGE_WIDTH - 50 + 0.5);
    // Read back: every character of it (the value spans lines and pages, between footers).
    const counts = (s: string): Map<string, number> => [...s].reduce((m, c) => m.set(c, (m.get(c) ?? 0) + 1), new Map<string, number>());
    const read = counts(popplerLines(bytes).join(""));
    for (const [c, count] of counts(value.normalize("NFC"))) expect(read.get(c) ?? 0, `U+${c.codePointAt(0)!.toString(16)}`).toBeGreaterThanOrEqual(count);
  });
});

describe("world scripts: shared punctuation", () => {
  it("prints punctuation shared by scripts (Arabic comma, Devanagari danda, CJK full stop) after text of another script", async () => {
    const pdf = await render(oneValue("Plant N3، Hall 2। Block 4。 Done"));
    expect(pdf.missingCharacters).toBe(0);
    expect(popplerLines(pdf.bytes).join(" ")).toContain("Plant N3، Hall 2। Block 4。 Done");
  });

  it("prints fullwidth Latin letters and digits (Japanese text's) from the CJK fonts, which have them", async () => {
    const pdf = await render(oneValue("ＡＢＣ株式会社 ｚ１２３"));
    expect(pdf.missingCharacters).toBe(0);
    expect(popplerLines(pdf.bytes).join(" ")).toContain("ＡＢＣ株式会社 ｚ１２３");
  });
});
