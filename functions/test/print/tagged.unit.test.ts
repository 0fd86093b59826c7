// Tagged PDF (PDF/UA-1) and PDF/A-2u, read back with qpdf and poppler (test/print/pdfChecks.ts):
// the catalog's entries, the structure tree and its reading order, marked content, artifacts,
// alternative text, language spans, and each PDF/A-2u rule the renderer implements.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { renderInstancePdf, type PreparedImage, type PrintableInstance } from "../../src/print/render";
import { catalogOf, pageContents, pdfInfo, qpdfCheck, qpdfObjects, resolve, streamText, structText, unmarkedContent } from "./pdfChecks";
import { popplerLines, squash } from "./popplerText";

const options = { instanceId: "tagged", targetName: "Acme North", generatedAt: new Date("2026-05-04T16:12:05Z") };

const inspection: PrintableInstance = {
  title: "Boiler inspection B-12",
  objectTypeName: "Inspection",
  sections: [
    {
      title: "General",
      fields: [
        { label: "Inspector", type: "text", value: "François Lefèvre" },
        { label: "Passed", type: "boolean", value: true },
        { label: "Notes", type: "longtext", value: "First paragraph of the notes.\nSecond paragraph." },
        { label: "Contact", type: "text", value: "山田さくら (Yamada)" },
      ],
    },
    { title: "Empty section", fields: [] },
  ],
};

/** A table of `rows` rows that spans pages. */
const longTable = (rows: number): PrintableInstance => ({
  title: "Readings",
  objectTypeName: "Log",
  sections: [
    {
      title: "Readings",
      fields: [{ label: "Meter readings", type: "table", value: { columns: ["#", "Meter", "Value"], rows: Array.from({ length: rows }, (_, i) => ({ cells: [i + 1, `M-${i + 1}`, `v${i + 1}`] })) } }],
    },
  ],
});

/** The struct-text lines without their indentation. */
const lines = (text: string) => text.split("\n").map((l) => l.trim()).filter(Boolean);

describe("tagged PDF (PDF/UA-1)", () => {
  it("is tagged: MarkInfo, a structure tree with a ParentTree, the title shown, the language, page keys and tab order", async () => {
    const { bytes } = await renderInstancePdf(inspection, options);
    expect(pdfInfo(bytes).Tagged).toBe("yes");
    expect(qpdfCheck(bytes)).toContain("No syntax or stream encoding errors found");
    const objects = qpdfObjects(bytes);
    const { catalog } = catalogOf(objects);
    expect(catalog["/MarkInfo"]).toEqual({ "/Marked": true });
    expect(catalog["/Lang"]).toBe("u:en-GB");
    expect(resolve(objects, catalog["/ViewerPreferences"]) ?? catalog["/ViewerPreferences"]).toMatchObject({ "/DisplayDocTitle": true });
    const root = resolve(objects, catalog["/StructTreeRoot"]);
    expect(root["/Type"]).toBe("/StructTreeRoot");
    expect(resolve(objects, root["/K"])["/S"]).toBe("/Document");
    const pages = resolve(objects, resolve(objects, catalog["/Pages"])["/Kids"][0]);
    expect(pages).toMatchObject({ "/StructParents": 0, "/Tabs": "/S" });
    expect(resolve(objects, root["/ParentTree"])["/Nums"][0]).toBe(0);
    // XMP: PDF/UA identification and the title (PDF/UA-1, 5 and 7.1).
    const xmp = streamText(bytes, catalog["/Metadata"]);
    expect(xmp).toContain("<pdfuaid:part>1</pdfuaid:part>");
    expect(xmp).toContain(">Boiler inspection B-12</rdf:li>");
  });

  it("reads in order: the title (H1), the object type and target, then per section its heading (H2) and a list item per field, label then value", async () => {
    const text = lines(structText((await renderInstancePdf(inspection, options)).bytes));
    const order = ["Document", "H1", '"Boiler inspection B-12"', "L", "LI", "Lbl", '"Object type"', "LBody", '"Inspection"', "Lbl", '"Target"', "LBody", '"Acme North"', "Sect", "H2", '"General"', "L", "Lbl", '"Inspector"', '"François Lefèvre"', '"Passed"', '"Yes"', '"Notes"', "P", '"First paragraph of the notes."', "P", '"Second paragraph."', "Sect", '"Empty section"', '"No fields"'];
    let at = 0;
    for (const want of order) {
      const found = text.findIndex((line, i) => i >= at && line.startsWith(want));
      expect(found, `${want} after line ${at}: ${text.slice(at, at + 8).join(" | ")}`).toBeGreaterThanOrEqual(0);
      at = found + 1;
    }
  });

  it("marks every piece of content: text and pictures for an element, rules, fills, running headers and footers as artifacts", async () => {
    for (const instance of [inspection, longTable(120)]) {
      const contents = pageContents((await renderInstancePdf(instance, options)).bytes);
      expect(contents.length).toBeGreaterThan(0);
      for (const content of contents) {
        expect(unmarkedContent(content)).toEqual([]);
        expect(content).toMatch(/\/Artifact/);
      }
    }
    // The checker finds what is not marked.
    expect(unmarkedContent("BT /F1 9 Tf [<0001>] TJ ET /P <</MCID 0>> BDC BT [<0002>] TJ ET EMC /Artifact BMC 0 0 m 1 1 l S EMC 0 0 m 2 2 l S")).toEqual(["TJ", "S"]);
  });

  it("gives a table spanning pages one header row of column headers (TH, scope Column) and each row once; repeated header rows are artifacts", async () => {
    const { bytes, pageCount } = await renderInstancePdf(longTable(120), options);
    expect(pageCount).toBeGreaterThan(2);
    const text = lines(structText(bytes));
    expect(text.filter((l) => l === '"Meter"')).toHaveLength(1); // the header, once, though drawn on every page
    expect(text.filter((l) => l === "TH:")).toHaveLength(3);
    expect(text.filter((l) => l === "TR")).toHaveLength(121);
    expect(text.filter((l) => l === "TD")).toHaveLength(360);
    const cells = text.filter((l) => /^"(M-\d+|v\d+|\d+)"$/.test(l)).map((l) => l.slice(1, -1));
    expect(cells).toEqual(Array.from({ length: 120 }, (_, i) => [String(i + 1), `M-${i + 1}`, `v${i + 1}`]).flat());
    const objects = qpdfObjects(bytes);
    const th = Object.values(objects).map((o) => o.value).filter((v) => v?.["/S"] === "/TH");
    expect(th.map((v) => v["/A"])).toEqual([{ "/O": "/Table", "/Scope": "/Column" }, { "/O": "/Table", "/Scope": "/Column" }, { "/O": "/Table", "/Scope": "/Column" }]);
    // Drawn on every page, marked content on the first only.
    const contents = pageContents(bytes);
    expect(contents.filter((c) => c.includes("/TH <<"))).toHaveLength(1);
  });

  it("gives a column header cut with an ellipsis its whole text as the TH's ActualText; a header shown whole has none", async () => {
    const columns = ["No.", ...Array.from({ length: 29 }, (_, i) => `Measurement column ${i + 1}`)];
    const table = (names: string[]): PrintableInstance => ({
      title: "Wide",
      objectTypeName: "Log",
      sections: [{ title: "Readings", fields: [{ label: "Grid", type: "table", value: { columns: names, rows: [{ cells: names.map((_, i) => i) }] } }] }],
    });
    const headers = async (names: string[]) =>
      Object.values(qpdfObjects((await renderInstancePdf(table(names), options)).bytes)).map((o) => o.value).filter((v) => v?.["/S"] === "/TH");
    const wide = await headers(columns);
    // "No." fits its column; every other header is cut to a letter or two and an ellipsis.
    expect(wide.map((th) => th["/ActualText"])).toEqual([undefined, ...columns.slice(1).map((c) => `u:${c}`)]);
    expect((await headers(columns.slice(0, 3))).map((th) => th["/ActualText"])).toEqual([undefined, undefined, undefined]);
  });

  it("gives pictures and the logo a Figure with alternative text: the caption, else the label; the logo, the target's name", async () => {
    const jpeg = await sharp({ create: { width: 300, height: 200, channels: 3, background: "#3060a0" } }).jpeg().toBuffer();
    const photo: PreparedImage = { format: "jpeg", bytes: new Uint8Array(jpeg), width: 300, height: 200, channels: 3 };
    const { bytes } = await renderInstancePdf(
      {
        title: "Photos",
        objectTypeName: "Inspection",
        sections: [
          {
            title: "Evidence",
            fields: [
              { label: "Front", type: "image", value: { storagePath: "a.jpg", caption: "Front of boiler B-12" } },
              { label: "Inspector's signature", type: "signature", value: { storagePath: "a.jpg" } },
            ],
          },
        ],
      },
      { ...options, images: new Map([["a.jpg", photo]]), logo: photo },
    );
    const objects = qpdfObjects(bytes);
    const figures = Object.values(objects).map((o) => o.value).filter((v) => v?.["/S"] === "/Figure");
    expect(figures.map((f) => f["/Alt"])).toEqual(["u:Acme North", "u:Front of boiler B-12", "u:Inspector's signature"]);
    for (const content of pageContents(bytes)) expect(content).toMatch(/\/Figure <<\/MCID \d+>> BDC q [\d. ]+ cm \/Im1 Do Q EMC/);
  });

  it("writes alternative texts long enough to outgrow the structure writer's buffer, each whole", async () => {
    const jpeg = await sharp({ create: { width: 30, height: 20, channels: 3, background: "#3060a0" } }).jpeg().toBuffer();
    const photo: PreparedImage = { format: "jpeg", bytes: new Uint8Array(jpeg), width: 30, height: 20, channels: 3 };
    // UTF-16 hex takes 4 bytes a character: 80 KB of /Alt in the first, five times the writer's first 16 KB (the others land in room
    // grown already; PackedObjects.end refuses an object that outgrew its room). One script: few marked-content sequences a line.
    const captions = [20000, 3000, 12000].map((n, i) => `${i}: ${"Prüfung der Anlage, Ventil geöffnet; ".repeat(n / 30)}`.slice(0, n));
    const { bytes } = await renderInstancePdf(
      {
        title: "Long captions",
        objectTypeName: "Inspection",
        sections: [{ title: "Evidence", fields: captions.map((caption, i) => ({ label: `Photo ${i}`, type: "image" as const, value: { storagePath: "a.jpg", caption } })) }],
      },
      { ...options, images: new Map([["a.jpg", photo]]) },
    );
    expect(qpdfCheck(bytes)).toContain("No syntax or stream encoding errors found");
    const figures = Object.values(qpdfObjects(bytes)).map((o) => o.value).filter((v) => v?.["/S"] === "/Figure");
    expect(figures.map((f) => f["/Alt"])).toEqual(captions.map((c) => `u:${c}`));
  });

  it("marks runs in another script with their language; the document's own script needs none", async () => {
    const [content] = pageContents((await renderInstancePdf(inspection, options)).bytes);
    // Its own marked-content sequence (never nested: poppler's structure reader drops nested text), with /Lang.
    expect(content).toMatch(/\/LBody <<\/MCID \d+\/Lang \(ja\)>> BDC/);
    expect(content).not.toContain("/Lang (en");
    const arabic = pageContents((await renderInstancePdf({ title: "تقرير", objectTypeName: "فحص", sections: [{ title: "عام", fields: [{ label: "المفتش", type: "text", value: "فاطمة Fluke 87V" }] }] }, { ...options, locale: "ar-EG" })).bytes)[0];
    expect(arabic).toMatch(/\/LBody <<\/MCID \d+\/Lang \(en\)>> BDC/);
    expect(arabic).not.toContain("/Lang (ar)");
  });

  it("takes a run in the script of the document's language for that language: Persian in Arabic letters, Marathi in Devanagari, Japanese with a rare Han character", async () => {
    const langs = async (locale: string, value: string): Promise<string[]> => {
      const doc: PrintableInstance = { title: "T", objectTypeName: "O", sections: [{ title: "S", fields: [{ label: "L", type: "text", value }] }] };
      const content = pageContents((await renderInstancePdf(doc, { ...options, locale })).bytes).join("\n");
      return [...new Set([...content.matchAll(/\/Lang \(([^)]*)\)/g)].map((m) => m[1]))].sort();
    };
    expect(await langs("fa-IR", "بازرسی ساختمان شماره ۱۲")).toEqual(["en"]); // the Latin labels, nothing else
    expect(await langs("ur-PK", "عمارت کا معائنہ")).toEqual(["en"]);
    expect(await langs("mr-IN", "इमारत तपासणी पूर्ण झाली")).toEqual(["en"]);
    expect(await langs("ar-EG", "بازرسی ساختمان")).toEqual(["en"]); // Arabic letters in an Arabic document
    expect(await langs("de-DE", "بازرسی ساختمان")).toEqual(["ar"]); // the language of Arabic letters, lacking a better guess
    // Japanese: a Korean name is Korean; 䶵 (a Han character Noto Sans JP lacks, from Noto Sans SC) stays Japanese.
    expect(await langs("ja-JP", "点検 김민준")).toEqual(["en", "ko"]);
    expect(await langs("ja-JP", "点検 䶵")).toEqual(["en"]);
  });

  it("leaves digits, punctuation and spaces in the document's language: a date or a reading among Japanese is read as Japanese", async () => {
    const langs = async (value: string): Promise<string[]> => {
      const doc: PrintableInstance = { title: "点検", objectTypeName: "報告", sections: [{ title: "一般", fields: [{ label: "日時", type: "text", value }] }] };
      const content = pageContents((await renderInstancePdf(doc, { ...options, targetName: "北工場", locale: "ja-JP" })).bytes).join("\n");
      return [...new Set([...content.matchAll(/\/Lang \(([^)]*)\)/g)].map((m) => m[1]))];
    };
    expect(await langs("2026-01-18 09:00 (4.18)")).toEqual([]);
    expect(await langs("測定 12.5 / 80%")).toEqual([]);
    expect(await langs("M-102 2026")).toEqual(["en"]); // a letter: the Latin piece is English
    expect(await langs("点検 Fluke 87V、12")).toEqual(["en"]);
  });

  it("marks the Greek and Cyrillic words of a Latin document with their language, the Latin ones around them not", async () => {
    const latin = "Pressure checked at the inlet and at the outlet of the boiler, both within the range the maker gives. ";
    const instance = (values: string[]): PrintableInstance => ({
      title: "Languages",
      objectTypeName: "Test",
      sections: [{ title: "Notes", fields: values.map((value, i) => ({ label: `Note ${i + 1}`, type: "longtext", value })) }],
    });
    // A longtext's lines are P elements (its paragraphs), a text's LBody.
    const languages = (content: string) => [...content.matchAll(/\/(?:LBody|P) <<\/MCID \d+(?:\/Lang \((\w+)\))?>> BDC/g)].map((m) => m[1] ?? "-");

    const [english] = pageContents((await renderInstancePdf(instance(["Ελληνικά", "Текст Fluke", `Τέλος: ${latin.repeat(3)}конец`]), options)).bytes);
    const lines = languages(english);
    // The document's own lines (under its title) come first, then the notes: Greek, Cyrillic and a
    // paragraph of several lines that starts in Greek and ends in Russian: each line by its own letters.
    const notes = lines.slice(lines.indexOf("el"));
    expect(lines.length - notes.length).toBeGreaterThan(0);
    expect(lines.slice(0, lines.length - notes.length).every((language) => language === "-")).toBe(true);
    expect(notes.length).toBeGreaterThan(5);
    // Greek; Russian, then "Fluke" in the document's language; "Τέλος:" and the English after it, line after line, then "конец".
    expect(notes).toEqual(["el", "ru", "-", "el", ...Array<string>(notes.length - 5).fill("-"), "ru"]);
    // A single Greek or Cyrillic letter is a symbol of the text around it (angles, ohms, micro).
    const [symbols] = pageContents((await renderInstancePdf(instance(["Der Neigungswinkel α beträgt 12°, der Widerstand 500 MΩ, 3 μm."]), { ...options, locale: "de-DE" })).bytes);
    expect(symbols).not.toMatch(/\/Lang \((el|ru)\)/);
    // Serbian is written in both scripts: a Serbian Latin document's Cyrillic words are Serbian, a German one's Russian.
    const serbian = (locale: string) => renderInstancePdf(instance(["Izveštaj o pregledu: Извештај о прегледу"]), { ...options, locale });
    expect(pageContents((await serbian("sr-Latn-RS")).bytes).join("\n")).not.toMatch(/\/Lang \(ru\)/);
    expect(pageContents((await serbian("de-DE")).bytes).join("\n")).toMatch(/\/Lang \(ru\)/);

    const [russian] = pageContents((await renderInstancePdf(instance(["Проверка", "Fluke 87V", "Ελληνικά"]), { ...options, locale: "ru-RU" })).bytes);
    expect(languages(russian).slice(-3)).toEqual(["-", "en", "el"]);
  });

  it("gives each multi-glyph cluster its own ActualText sequence, even next to an identical one, and no element to a blank line", async () => {
    const { bytes } = await renderInstancePdf(
      {
        title: "Clusters",
        objectTypeName: "Test",
        sections: [{ title: "S", fields: [{ label: "Syllables", type: "text", value: "दिदि किकि" }, { label: "Notes", type: "longtext", value: "a\n\nb\n\n\nc" }] }],
      },
      options,
    );
    expect(popplerLines(bytes).join("\n")).toContain("दिदि किकि");
    // The structure's text too (read from the glyphs' Unicode: poppler's structure reader ignores ActualText).
    const text = lines(structText(bytes));
    expect(squash(text.filter((l) => l.startsWith('"')).map((l) => l.slice(1, -1)).join(""))).toContain("दिदिकिकि");
    // Three paragraphs, three P elements, each with its text.
    const paragraphs = text.reduce<string[][]>((out, line) => (/^P( \(block\))?$/.test(line) ? [...out, []] : (out.length && line.startsWith('"') && out[out.length - 1].push(line), out)), []);
    expect(paragraphs.map((p) => p.join(""))).toEqual(['"a"', '"b"', '"c"']);
  });

  it("leaves out tags only when asked (the benchmark's measure of their cost)", async () => {
    const { bytes } = await renderInstancePdf(inspection, { ...options, tagged: false });
    expect(pdfInfo(bytes).Tagged).toBe("no");
    expect(pageContents(bytes)[0]).not.toMatch(/BDC|BMC/);
    // Its metadata all the same (as Typst's untagged PDF has), claiming no PDF/UA.
    const objects = qpdfObjects(bytes);
    const { catalog } = catalogOf(objects);
    expect(catalog["/StructTreeRoot"]).toBeUndefined();
    const xmp = streamText(bytes, catalog["/Metadata"]);
    expect(xmp).toContain("<dc:title><rdf:Alt><rdf:li xml:lang=\"x-default\">Boiler inspection B-12</rdf:li>");
    expect(xmp).not.toContain("pdfuaid:part");
  });
});

describe("PDF/A-2u (conformance: PDF/A-2u)", () => {
  let bytes: Uint8Array;
  let objects: ReturnType<typeof qpdfObjects>;
  let catalog: Record<string, any>;
  let trailer: Record<string, any>;
  beforeAll(async () => {
    bytes = (await renderInstancePdf(inspection, { ...options, conformance: "PDF/A-2u" })).bytes;
    objects = qpdfObjects(bytes);
    ({ catalog, trailer } = catalogOf(objects));
  });

  it("6.1.2: a PDF header with a binary comment", () => {
    expect(Buffer.from(bytes.subarray(0, 15)).toString("latin1")).toMatch(/^%PDF-1\.7\n%[\x80-\xff]{4}/);
  });

  it("6.1.3: a file identifier, and no encryption", () => {
    expect(trailer["/ID"]).toHaveLength(2);
    expect(trailer["/Encrypt"]).toBeUndefined();
  });

  it("6.2.2 and 6.2.4.3: an sRGB output intent (GTS_PDFA1) with its ICC profile, for the device colours the pages use", () => {
    const [intent] = catalog["/OutputIntents"] as Record<string, any>[];
    expect(intent).toMatchObject({ "/Type": "/OutputIntent", "/S": "/GTS_PDFA1", "/OutputConditionIdentifier": "u:sRGB IEC61966-2.1" });
    expect(resolve(objects, intent["/DestOutputProfile"])["/N"]).toBe(3);
    const profile = Buffer.from(streamText(bytes, intent["/DestOutputProfile"]), "latin1");
    expect(profile.subarray(12, 20).toString("latin1")).toBe("mntrRGB "); // an RGB display profile
    expect(profile.readUInt32BE(0)).toBe(profile.length);
  });

  it("6.2.11: every font embedded (TrueType subsets), with a Unicode map", () => {
    const fonts = Object.values(objects).map((o) => o.value ?? o.stream?.dict).filter((v) => v?.["/Type"] === "/Font" && v["/Subtype"] === "/Type0");
    expect(fonts.length).toBeGreaterThan(0);
    for (const font of fonts) {
      expect(font["/ToUnicode"]).toBeDefined();
      const descendant = resolve(objects, font["/DescendantFonts"][0]);
      expect(descendant["/CIDToGIDMap"]).toBe("/Identity");
      expect(resolve(objects, descendant["/FontDescriptor"])["/FontFile2"]).toBeDefined();
    }
  });

  it("6.2.11.7.2: every code a page shows has a Unicode value, none U+0000, U+FEFF or U+FFFE (marks and a cluster's other glyphs: the empty text)", async () => {
    // Arabic marks, an Indic conjunct and reordered vowel sign, Thai marks: glyphs that stand for no text of their own.
    const world: PrintableInstance = {
      title: "Scripts",
      objectTypeName: "Log",
      sections: [{ title: "Names", fields: [
        { label: "Arabic", type: "text", value: "مُحَمَّد بِنْ عَبْدِ اللّٰه" },
        { label: "Hindi", type: "text", value: "क्षत्रिय हिन्दी किताब" },
        { label: "Thai", type: "text", value: "น้ำใจ ภาษาไทย" },
        { label: "German", type: "text", value: "Größe" },
      ] }],
    };
    const pdf = (await renderInstancePdf(world, { ...options, conformance: "PDF/A-2u" })).bytes;
    const all = qpdfObjects(pdf);
    const page = resolve(all, resolve(all, catalogOf(all).catalog["/Pages"])["/Kids"][0]);
    const fonts = resolve(all, page["/Resources"])["/Font"] as Record<string, string>;
    /** Per font resource: code (4 hex digits) -> its Unicode value (hex, maybe empty). */
    const maps = Object.fromEntries(
      Object.entries(fonts).map(([name, ref]) => {
        const cmap = streamText(pdf, resolve(all, ref)["/ToUnicode"]);
        return [name.slice(1), new Map([...cmap.matchAll(/^<([0-9a-f]{4})> <([0-9a-f]*)>$/gm)].map((m) => [m[1], m[2]]))];
      }),
    );
    let shown = 0;
    let empty = 0;
    for (const content of pageContents(pdf)) {
      // A text object's font (Tf), then its hex strings, each glyph a 2-byte code.
      // Every glyph string a hex string (qpdf writes a string of printable bytes as a literal: none here, or it would go unchecked).
      expect(content).not.toMatch(/\((?:[^()\\]|\\.)*\)\s*(?:Tj|'|")|\[[^\]]*\([^\]]*\]\s*TJ/);
      for (const [, font, body] of content.matchAll(/\/(F\d+) [\d.]+ Tf ([^]*?)(?=\/F\d+ [\d.]+ Tf|ET)/g)) {
        // (Not an ActualText: a text string, which qpdf's normalized content writes in lower case too.)
        for (const [, hex] of body.matchAll(/(?<!\/ActualText )<([0-9a-f]+)>/g)) {
          for (let i = 0; i < hex.length; i += 4) {
            const value = maps[font].get(hex.slice(i, i + 4));
            expect(value, `${font} <${hex.slice(i, i + 4)}>`).toBeDefined();
            expect(value!.match(/.{4}/g) ?? []).not.toEqual(expect.arrayContaining([expect.stringMatching(/^(0000|feff|fffe)$/)]));
            shown++;
            if (value === "") empty++;
          }
        }
      }
    }
    expect(shown).toBeGreaterThan(80);
    expect(empty).toBeGreaterThan(0); // the marks are there, mapped to the empty text
  });

  it("6.6.2: XMP metadata, unfiltered, identifying PDF/A-2u (and PDF/UA-1 through an extension schema), equal to the document information", () => {
    const metadata = objects[`obj:${catalog["/Metadata"]}`].stream.dict;
    expect(metadata["/Filter"]).toBeUndefined();
    const xmp = streamText(bytes, catalog["/Metadata"]);
    expect(xmp).toContain("<pdfaid:part>2</pdfaid:part><pdfaid:conformance>U</pdfaid:conformance>");
    expect(xmp).toContain("<pdfaSchema:namespaceURI>http://www.aiim.org/pdfua/ns/id/</pdfaSchema:namespaceURI>");
    const info = resolve(objects, trailer["/Info"]);
    expect(xmp).toContain(`<rdf:li xml:lang="x-default">${String(info["/Title"]).replace(/^u:/, "")}</rdf:li>`);
    expect(xmp).toContain(`<pdf:Producer>${String(info["/Producer"]).replace(/^u:/, "")}</pdf:Producer>`);
    expect(String(info["/CreationDate"])).toContain("20260504161205");
    expect(xmp).toContain("<xmp:CreateDate>2026-05-04T16:12:05Z</xmp:CreateDate>");
  });

  it("6.6.2: a title with control characters, line breaks and XML's own characters reads the same in the document information and the XMP", async () => {
    const title = "Pump\tstation\nNorth\u0001 & <A> \"B\" \ud800";
    const pdf = (await renderInstancePdf({ ...inspection, title }, { ...options, conformance: "PDF/A-2u" })).bytes;
    const all = qpdfObjects(pdf);
    const { catalog: root, trailer: end } = catalogOf(all);
    const info = String(resolve(all, end["/Info"])["/Title"]).replace(/^u:/, "");
    const xmp = streamText(pdf, root["/Metadata"]);
    // eslint-disable-next-line no-control-regex
    expect(Buffer.from(xmp, "latin1").toString("utf8")).not.toMatch(/[\x00-\x08\x0b\x0c\x0e-\x1f]/);
    const xmpTitle = /<dc:title><rdf:Alt><rdf:li xml:lang="x-default">(.*?)<\/rdf:li>/.exec(Buffer.from(xmp, "latin1").toString("utf8"))![1];
    const unescaped = xmpTitle.replace(/&(amp|lt|gt|quot);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"' })[e]!);
    expect(info).toBe("Pump station North\ufffd & <A> \"B\" \ufffd");
    expect(unescaped).toBe(info);
  });

  it("is what an untagged-free archival file needs besides: tagged as well, and no output intent without the option", async () => {
    expect(pdfInfo(bytes).Tagged).toBe("yes");
    const plain = catalogOf(qpdfObjects((await renderInstancePdf(inspection, options)).bytes)).catalog;
    expect(plain["/OutputIntents"]).toBeUndefined();
  });
});

describe("every demo instance prints tagged", () => {
  const fixture = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "emulator-data", "demo.json"), "utf8")) as { documents: Record<string, Record<string, any>> };
  const instances = Object.entries(fixture.documents).filter(([path]) => /\/objectInstances\/[^/]+$/.test(path));

  it.each(instances.map(([path, doc]) => [path.split("/").pop()!, doc] as const))("%s: the structure holds its title, sections, labels and table cells in reading order", async (id, doc) => {
    const { bytes } = await renderInstancePdf(doc as PrintableInstance, { ...options, instanceId: id });
    expect(pdfInfo(bytes).Tagged).toBe("yes");
    for (const content of pageContents(bytes)) expect(unmarkedContent(content)).toEqual([]);
    // The text of the structure, in its order, without spaces (lines wrap anywhere); right-to-left text
    // reads backwards in poppler's output, so those documents are checked for presence only.
    const squash = (s: string) => s.replace(/\s+/g, "");
    const structure = squash([...structText(bytes).matchAll(/^\s*"(.*)"$/gm)].map((m) => m[1]).join(""));
    const rtl = /[\u0590-\u08ff]/.test(JSON.stringify(doc));
    const expected = [String(doc.title), ...(doc.sections as any[]).flatMap((s) => [s.title, ...(s.fields as any[]).flatMap((f) => [f.label, ...(f.type === "table" ? (f.value?.rows ?? []).flatMap((r: any) => r.cells.filter((c: unknown) => typeof c === "string" && c !== "")) : [])])])]
      .filter((t): t is string => typeof t === "string" && t.trim() !== "")
      .map(squash);
    let at = 0;
    for (const text of expected) {
      if (rtl && /[\u0590-\u08ff]/.test(text)) continue;
      const found = structure.indexOf(text, rtl ? 0 : at);
      expect(found, `'${text}' in the structure${rtl ? "" : ` after offset ${at}`}`).toBeGreaterThanOrEqual(0);
      if (!rtl) at = found + text.length;
    }
  }, 30_000); // the 22-page audit took 5 s on a machine running two stacks' tests beside it
});
