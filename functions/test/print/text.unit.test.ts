// The renderer's text stage alone (src/print/render/text): line breaks by UAX #14 and ICU's
// dictionaries, never inside a grapheme cluster; shaping by HarfBuzz; visual order by UAX #9.

import { describe, expect, it } from "vitest";
import LineBreaker from "linebreak";
import { seededRandom } from "../../bench/stats";
import bidiFactory from "bidi-js";
import { embeddingLevels } from "../../src/print/render/text/bidi";
import { breakOpportunities } from "../../src/print/render/text/breaks";
import { documentText, type DocumentText, type Line, type Piece } from "../../src/print/render/text";
import { getFace, SCRIPT_FAMILIES, SCRIPT_FONTS, type ScriptFamily } from "../../src/print/render/text/fonts";
import { GlyphStore, loadShaper, shapedWordCount, shapeRun, throughHarfBuzz, WORD_SHAPED_SCRIPTS } from "../../src/print/render/text/shape";
import { scriptOf } from "../../src/print/render/text/scripts";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { cleanText, marksEnd, OTHER_CLUSTER_RULES } from "../../src/print/render/text/paragraph";

/** Whole numbers below n, from a seeded generator. */
function randomInts(seed: number): (n: number) => number {
  const random = seededRandom(seed);
  return (n: number): number => Math.floor(random() * n);
}

const graphemeStarts = (text: string): Set<number> =>
  new Set([...new Intl.Segmenter("en", { granularity: "grapheme" }).segment(text)].map((s) => s.index));
/** A piece's glyphs out of the glyph store, one object each. */
const glyphsOf = ({ glyphs, start, end }: Piece): { gid: number; adv: number; cluster: number; clusterEnd: number }[] =>
  Array.from({ length: end - start }, (_, k) => ({ gid: glyphs.gids[start + k], adv: glyphs.advances[start + k], cluster: glyphs.clusters[start + k], clusterEnd: glyphs.clusterEnds[start + k] }));
const gids = (line: Line): number[] => line.pieces.flatMap((p) => glyphsOf(p).map((g) => g.gid));
/** Each line's text, from where it starts to where the next one does. */
const lineTexts = (lines: readonly Line[]): string[] => lines.map((l, i) => l.text.slice(l.start, lines[i + 1]?.text === l.text ? lines[i + 1].start : undefined).trim());

async function text(locale: string, sample: string): Promise<DocumentText> {
  return documentText(sample, locale);
}

describe("line breaking", () => {
  it("breaks Japanese between characters, never before closing brackets, full stops, commas or small kana", async () => {
    const sample = "日本語の長い文章は、スペースがなくても改行されます。「括弧」の前後やちょっとした句読点（例：読点、句点）も正しく扱います。";
    const t = await text("ja", sample);
    const forbiddenStart = /^[、。」）：ょっゃゅー]/;
    // From four ems up: narrower lines cannot hold "（例：" or "ちょっ" and must cut them (as a browser would overflow).
    for (let em = 4000; em <= 20000; em += 250) {
      const lines = t.wrap(sample, false, em);
      expect(lines.length).toBeGreaterThan(1);
      for (const line of lines.slice(1)) expect(line.text.slice(line.start), `width ${em}`).not.toMatch(forbiddenStart);
      expect(lineTexts(lines).join("")).toBe(sample);
    }
  });

  it("wraps a shared paragraph to each width as a fresh one would (the last width's lines are kept)", async () => {
    // At most 64 characters: a document shares paragraphs this short (DocumentText.paragraph).
    const sample = "Pressure relief valve tested at 6.2 bar, seal replaced.";
    const shared = await text("en-GB", sample);
    const paragraph = shared.paragraph(sample, false);
    expect(shared.paragraph(sample, false)).toBe(paragraph);
    const widths = [4000, 9000, 4000, 4000, 80000, 9000];
    const seen = widths.map((em) => paragraph.wrap(em));
    for (let i = 0; i < widths.length; i++) {
      const fresh = (await text("en-GB", sample)).wrap(sample, false, widths[i]);
      expect(lineTexts(seen[i]), `width ${widths[i]}`).toEqual(lineTexts(fresh));
      expect(seen[i].map((l) => l.width)).toEqual(fresh.map((l) => l.width));
    }
    // Narrower widths give more lines; a width wrapped again hands back the same lines, and lines handed out for another width stay as they were.
    expect(seen[0].length).toBeGreaterThan(seen[1].length);
    expect(seen[4]).toHaveLength(1); // 80 ems: the whole sentence
    expect(seen[3]).toBe(seen[2]);
    expect(lineTexts(seen[0])).toEqual(lineTexts(paragraph.wrap(4000)));
  });

  it("breaks Thai and Khmer between words found by ICU's dictionary, not inside them", () => {
    const thai = "สวัสดีชาวโลก"; // สวัสดี | ชาว | โลก
    const breaks = breakOpportunities(thai);
    expect(breaks[6]).toBe(1);
    for (let i = 1; i < 6; i++) expect(breaks[i], `inside สวัสดี at ${i}`).toBe(0);
    const khmer = "សួស្តីពិភពលោក"; // សួស្តី | ពិភពលោក
    const k = breakOpportunities(khmer);
    expect(k[khmer.indexOf("ពិ")]).toBe(1);
    for (let i = 1; i < khmer.indexOf("ពិ"); i++) expect(k[i]).toBe(0);
  });

  it("never breaks before a Burmese or Khmer sentence mark, which ICU's dictionary takes for a word", () => {
    for (const text of ["ပို့ပြီးပါပြီ။", "ပြီးပါပြီ၊ ရုံး", "បាទ។ ខ្ញុំ"]) {
      const breaks = breakOpportunities(text);
      for (const mark of ["။", "၊", "។"]) if (text.includes(mark)) expect(breaks[text.indexOf(mark)], `${text} before ${mark}`).toBe(0);
      expect(breaks.some((b) => b === 1)).toBe(true); // still breaks between its words
    }
  });

  it("finds in Latin, Greek and Cyrillic letters, digits, spaces and . , : ; - / ( ) ' % & @ * # – — the opportunities UAX #14's breaker finds, without it", () => {
    const byBreaker = (text: string): number[] => {
      const at: number[] = [];
      const breaker = new LineBreaker(text);
      for (let bk = breaker.nextBreak(); bk; bk = breaker.nextBreak()) if (bk.position > 0 && bk.position < text.length) at.push(bk.position);
      return at;
    };
    const ours = (text: string): number[] => [...breakOpportunities(text).entries()].filter(([, b]) => b).map(([i]) => i);
    // Every Latin, Greek and Cyrillic letter (fullwidth ones too, which UAX #14 treats as ideographs), among the rest.
    const letters = Array.from({ length: 0x20000 }, (_, cp) => String.fromCodePoint(cp)).filter((c) => /(?=\p{L})[\p{sc=Latn}\p{sc=Grek}\p{sc=Cyrl}]/u.test(c));
    const others = "09 .,:;--//  ()'%&@*#\u2013\u2014";
    const random = randomInts(7);
    const samples = ["Inspection complete, no defects found. Next visit: 12.05.", " leading and trailing ", "a .b ;c", "1,234.56 kg", "-a a -b a/-1", "ＡＢＣＤ ＥＦＧＨ", ""];
    samples.push("Pump P-101 (north) — 72.5% of rated load; O'Brien's note: 'ok' – see #4 & @site *");
    for (let k = 0; k < 20_000; k++) samples.push(Array.from({ length: 1 + random(24) }, () => (random(2) ? letters[random(letters.length)] : others[random(others.length)])).join(""));
    // Each letter next to a letter, a digit, and each of the punctuation on both sides.
    for (const l of letters) samples.push(`a${l} ${l}-${l}/${l}.a`, `1${l},${l}:${l};${l}1`, `${l}-1 ${l}/1 ${l}${l}`, `(${l}) ${l}'${l}—${l}–${l}% ${l}`);
    // Every pair of the punctuation and a letter or digit, with and without spaces between, after text or at its start.
    for (const a of others + "a") for (const b of others + "a") samples.push(`${a}${b}a`, `x${a}${b}a`, `x${a} ${b}a`, ` ${a}  ${b}`);
    const differing = samples.filter((text) => ours(text).join() !== byBreaker(text).join());
    expect(differing.slice(0, 5)).toEqual([]);
    expect(ours("Inspection complete, no defects found.")).toEqual([11, 21, 24, 32]);
  });

  it("breaks Latin text at spaces and after hyphens, never inside a word that fits", () => {
    const breaks = breakOpportunities("state-of-the-art pump station");
    expect(breaks["state-".length]).toBe(1);
    expect(breaks["state-of-the-art ".length]).toBe(1);
    expect(breaks[2]).toBe(0);
  });

  it("cuts a line that has no break opportunity only between grapheme clusters (emoji sequences, conjuncts, marks)", async () => {
    for (const sample of ["👨‍👩‍👧👨‍👩‍👧👍🏽🇯🇵🇯🇵", "क्षत्रियक्षत्रिय", "فيهفيهفيه", "ที่ที่ที่ที่", "e\u0301e\u0301e\u0301"]) {
      const t = await text("und", sample);
      const lines = t.wrap(sample, false, 1); // narrower than any cluster: one cluster a line
      const starts = graphemeStarts(lines[0].text);
      expect(lines.length).toBeGreaterThan(2);
      for (const line of lines) expect(starts.has(line.start), `${sample} cut at ${line.start}`).toBe(true);
    }
  });
});

describe("grapheme clusters without ICU's segmenter", () => {
  // Clusters of a character and the marks after it, where nothing else of UAX #29 applies (pickFonts):
  // compared with ICU's segmenter on every code point that text may hold, alone, in a row, and with marks.
  const allowed: string[] = [];
  for (let cp = 0x20; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    if (!OTHER_CLUSTER_RULES.test(ch)) allowed.push(ch);
  }
  const marks = allowed.filter((c) => /[\p{Mn}\p{Me}]/u.test(c));
  const segmenter = new Intl.Segmenter("en", { granularity: "grapheme" });
  const icu = (text: string): string[] => [...segmenter.segment(text)].map((s) => s.segment);
  const ours = (text: string): string[] => {
    const out: string[] = [];
    for (let i = 0; i < text.length; ) {
      const end = marksEnd(text, i + (text.codePointAt(i)! > 0xffff ? 2 : 1));
      out.push(text.slice(i, end));
      i = end;
    }
    return out;
  };

  it("takes Latin, Greek, Cyrillic, Armenian, Hebrew, Arabic, Thai, Japanese and Chinese with their marks, and not what other rules join", () => {
    expect(allowed.length).toBeGreaterThan(100_000);
    expect(marks.length).toBeGreaterThan(500);
    for (const text of ["e\u0301", "\u0628\u064e", "\u05e9\u05c1", "\u0e01\u0e34", "\u304b\u3099"]) expect(OTHER_CLUSTER_RULES.test(text)).toBe(false);
    // A spacing mark, an emoji, a flag, Hangul, a Devanagari conjunct, a soft hyphen, Thai's sara am.
    for (const text of ["\u0915\u094d\u0937", "\u{1f44d}\u{1f3fd}", "\u{1f1eb}\u{1f1f7}", "\u1100\u1161", "\ud55c", "a\u00adb", "\u0e01\u0e33", "\u0d9a\u0dd2"]) expect(OTHER_CLUSTER_RULES.test(text)).toBe(true);
  });

  it("cuts such text where ICU's segmenter does", () => {
    const differing: string[] = [];
    const check = (text: string) => {
      const a = icu(text);
      const b = ours(text);
      if (a.length !== b.length || a.some((s, i) => s !== b[i])) differing.push([...text].map((c) => c.codePointAt(0)!.toString(16)).join(" "));
    };
    for (let i = 0; i < allowed.length; i += 500) check(allowed.slice(i, i + 500).join(""));
    for (let i = 0; i < allowed.length; i++) check(allowed[i] + marks[i % marks.length] + marks[(i * 7) % marks.length] + allowed[(i * 31) % allowed.length]);
    for (let i = 0; i < marks.length; i++) check(marks[i] + allowed[(i * 13) % allowed.length] + marks[i]);
    expect(differing.slice(0, 5)).toEqual([]);
  });
});

describe("shaping", () => {
  it("joins Arabic letters: a letter takes another form between others than alone", async () => {
    const t = await text("ar", "ببب");
    const alone = gids(t.wrap("ب", false, Infinity)[0]);
    const joined = gids(t.wrap("ببب", false, Infinity)[0]);
    expect(joined.filter((g) => !alone.includes(g)).length).toBeGreaterThan(0);
  });

  it("forms Devanagari conjuncts and reorders vowel signs: fewer glyphs than characters, i-matra drawn first", async () => {
    const t = await text("hi", "क्ष कि");
    const conjunct = t.wrap("क्ष", false, Infinity)[0];
    expect(gids(conjunct).length).toBeLessThan(3);
    const ki = t.wrap("कि", false, Infinity)[0];
    const ka = gids(t.wrap("क", false, Infinity)[0])[0];
    expect(gids(ki)).toHaveLength(2);
    expect(gids(ki)[1]).toBe(ka); // the vowel sign, logically after, is drawn before the consonant
  });

  it("orders runs visually: in a left-to-right line a Hebrew run reads right to left, numbers inside it left to right", async () => {
    const t = await text("en", "abc אבג 123 דה xyz");
    const [line] = t.wrap("abc אבג 123 דה xyz", false, Infinity);
    const visual = line.pieces.map((p) => glyphsOf(p).map((g) => p.source.text.slice(g.cluster, g.clusterEnd)).join("")).join("");
    expect(visual.replace(/\s+/g, " ").trim()).toBe("abc הד 123 גבא xyz");
    expect(line.rtl).toBe(false);
    expect((await text("he", "שלום")).wrap("שלום abc", false, Infinity)[0].rtl).toBe(true);
  });
});

describe("shaping word by word", () => {
  /** Every string of the demo documents (each script's sample text is there). */
  const demoStrings = (): string[] => {
    const strings: string[] = [];
    const walk = (v: unknown): void => {
      if (typeof v === "string") strings.push(cleanText(v));
      else if (v && typeof v === "object") Object.values(v).forEach(walk);
    };
    walk(JSON.parse(readFileSync(resolve(__dirname, "../../../emulator-data/demo.json"), "utf8")));
    return strings;
  };
  const glyphArrays = (store: GlyphStore, first: number) =>
    (["gids", "advances", "dx", "dy", "clusters", "clusterEnds"] as const).map((k) => [...store[k].subarray(first, store.length)]);

  it("gives every character each font of a word-shaped script has, beside a space before and after, the glyphs of the run shaped whole", async () => {
    await loadShaper();
    const differing: string[] = [];
    for (const family of WORD_SHAPED_SCRIPTS.keys() as Iterable<ScriptFamily>) {
      const face = getFace(family, false);
      const { language } = SCRIPT_FONTS[family];
      const rtl = family === "arabic" || family === "hebrew";
      const chars: string[] = [];
      for (let cp = 0x21; cp < 0x30000; cp++) {
        if (cp >= 0xd800 && cp <= 0xdfff) continue;
        const cls = scriptOf(cp);
        if ((cls === family || cls === "common" || cls === "inherited") && face.has(cp)) chars.push(String.fromCodePoint(cp));
      }
      const letter = chars.find((c) => scriptOf(c.codePointAt(0)!) === family && /\p{L}/u.test(c))!;
      for (const c of chars) {
        const run = `${letter}${c} ${c}${letter} ${c}`;
        const byWords = new GlyphStore();
        const byRun = new GlyphStore();
        const a = shapeRun(byWords, run, 0, run.length, face, rtl, language);
        const b = throughHarfBuzz(byRun, run, 0, run.length, face, rtl, language);
        if (JSON.stringify(glyphArrays(byWords, a)) !== JSON.stringify(glyphArrays(byRun, b))) differing.push(`${family} U+${c.codePointAt(0)!.toString(16)}`);
      }
    }
    expect(differing).toEqual([]);
  }, 60_000);

  it("gives every shaped script's runs the glyphs HarfBuzz gives them shaped whole, words in any order, at a run's edge against other text or not", async () => {
    await loadShaper();
    const strings = demoStrings();
    const int = randomInts(2611);
    const wordsBefore = shapedWordCount();
    for (const family of SCRIPT_FAMILIES.filter((f) => SCRIPT_FONTS[f].shaped)) {
      const own = (w: string): boolean => [...w].some((c) => scriptOf(c.codePointAt(0)!) === family);
      const mine = (c: string): boolean => ["common", "inherited", family].includes(scriptOf(c.codePointAt(0)!));
      // The family's words with the punctuation and digits beside them, and a word that begins with a mark.
      const words = [...new Set(strings.flatMap((s) => s.split(" ")).filter((w) => own(w) && [...w].every(mine)))];
      const mark = words.join("").match(/\p{M}/u)?.[0];
      if (mark) words.push(mark + words[0]);
      expect(words.length, family).toBeGreaterThanOrEqual(4);
      const { language } = SCRIPT_FONTS[family];
      const rtl = family === "arabic" || family === "hebrew";
      for (let n = 0; n < 150; n++) {
        const run = Array.from({ length: 1 + int(10) }, () => words[int(words.length)]).join(int(5) === 0 ? "  " : " ");
        // Text of another script either side, touching the run or not (its edge words are shaped in context).
        const before = ["", "abc", "abc "][int(3)];
        const after = ["", "xyz", " xyz"][int(3)];
        const whole = before + run + after;
        const face = getFace(family, int(2) === 1);
        const byWords = new GlyphStore();
        const byRun = new GlyphStore();
        const a = shapeRun(byWords, whole, before.length, before.length + run.length, face, rtl, language);
        const b = throughHarfBuzz(byRun, whole, before.length, before.length + run.length, face, rtl, language);
        expect(glyphArrays(byWords, a), `${family}: ${JSON.stringify(whole)}`).toEqual(glyphArrays(byRun, b));
      }
    }
    // The words were kept: the runs above went word by word, not whole.
    expect(shapedWordCount() - wordsBefore).toBeGreaterThan(200);
  });
});

describe("shaped words kept", () => {
  it("keeps at most 8,192 words across faces and languages, none longer than 32 UTF-16 units, and shapes them alike when forgotten", async () => {
    await loadShaper();
    const face = getFace("arabic", false);
    const letters = "ابتثجحخدذرزسشصضطظعغفقكلمنهوي";
    const word = (n: number): string => [...n.toString(28)].map((d) => letters[parseInt(d, 28)]).join("") + "ة";
    const shape = (text: string): number[][] => {
      const store = new GlyphStore();
      const first = shapeRun(store, text, 0, text.length, face, true, "ar");
      return [[...store.gids.subarray(first, store.length)], [...store.clusters.subarray(first, store.length)]];
    };
    const sample = `${word(1)} ${word(2)}`;
    const before = shape(sample);
    let most = 0;
    for (let n = 0; n < 9000; n += 3) {
      shape(`${word(n)} ${word(n + 1)} ${word(n + 2)}`);
      most = Math.max(most, shapedWordCount());
    }
    // Filled up to the bound, never past it (forgotten all at once, so the count fell back after).
    expect(most).toBeLessThanOrEqual(8192);
    expect(most).toBeGreaterThan(8180);
    expect(shapedWordCount()).toBeLessThan(most);
    // A word longer than 32 units is shaped each time, never kept.
    const kept = shapedWordCount();
    shape(letters.repeat(2));
    expect(shapedWordCount()).toBe(kept);
    expect(shape(sample)).toEqual(before);
  });
});

describe("bidi levels without bidi-js's every rule", () => {
  it("resolves letters, numbers, separators, marks and neutrals of both directions as bidi-js does, and leaves the rest to it", () => {
    const bidi = bidiFactory();
    // Of each type the shorter path resolves, and some it leaves to bidi-js (brackets, a tab, a zero-width joiner, an emoji).
    const pool = ["a", "Z", "é", "\u05d0", "\u05e9", "\u0628", "\u0645", "1", "9", "\u0661", "\u06f3", "+", "-", "$", "%", "#", ",", ".", ":", "/", "\u064e", "\u0301", " ", " ", "!", "?", "\u2014", "@", "(", ")", "[", "\t", "\u200d", "\u{1f600}"];
    const random = randomInts(11);
    const samples = ["", " ", "\u0645\u0631\u062d\u0628\u0627 123", "abc \u05d0\u05d1\u05d2 12.5%", "\u0661\u0662/\u0663\u0664", "- 12 \u0628", "\u064e\u0628"];
    // Every code unit of the Basic Multilingual Plane by its bidi type, for strings of any characters of the chosen types.
    const byType = new Map<string, string[]>();
    for (let unit = 0x20; unit < 0x10000; unit++) {
      const ch = String.fromCharCode(unit);
      const type = bidi.getBidiCharTypeName(ch);
      const units = byType.get(type);
      if (units) units.push(ch);
      else byType.set(type, [ch]);
    }
    const types = [...byType.values()];
    const anyOfAType = (): string => {
      const units = types[random(types.length)];
      return units[random(units.length)];
    };
    for (let k = 0; k < 30_000; k++) samples.push(Array.from({ length: 1 + random(16) }, () => (random(3) ? pool[random(pool.length)] : anyOfAType())).join(""));
    const differing: string[] = [];
    for (const text of samples) {
      for (const direction of [undefined, "ltr", "rtl"] as const) {
        const expected = bidi.getEmbeddingLevels(text, direction);
        const ours = embeddingLevels(text, direction);
        if (ours.level !== (expected.paragraphs[0]?.level ?? 0) || [...ours.levels].join() !== [...expected.levels].join()) differing.push(`${direction}: ${JSON.stringify(text)}`);
      }
    }
    expect(differing.slice(0, 5)).toEqual([]);
  });
});

describe("clean text", () => {
  it("gives every character of the Basic Multilingual Plane what its rules say, whichever path it takes: tabs as spaces, controls as U+FFFD, bidi controls gone, composed", () => {
    // eslint-disable-next-line no-control-regex -- control characters are what the rule replaces
    const byRules = (text: string): string => text.replace(/[\u202a-\u202e\u2066-\u2069]/g, "").toWellFormed().replace(/\t/g, " ").replace(/[\x00-\x1f\x7f-\x9f]/g, "\ufffd").normalize("NFC");
    const differing: string[] = [];
    for (let cp = 0; cp <= 0xffff; cp++) {
      for (const text of [`a${String.fromCharCode(cp)}`, `${String.fromCharCode(cp)}\u00e9 \u2014`]) if (cleanText(text) !== byRules(text)) differing.push(text);
    }
    expect(differing.slice(0, 5)).toEqual([]);
  });
});

describe("invisible formatting characters", () => {
  const latin = getFace("latin", false);
  const HYPHEN = latin.glyph(0x2010)!.gid;
  const visual = (line: Line): string => line.pieces.map((p) => glyphsOf(p).map((g) => p.source.text.slice(g.cluster, g.clusterEnd)).join("")).join("");
  const width = (line: Line): number => line.pieces.reduce((w, p) => w + glyphsOf(p).reduce((v, g) => v + g.adv, 0), 0);

  // The cmap path (plain Latin) and HarfBuzz's (a combining accent in the paragraph) alike.
  it.each([
    ["Donau\u00addampf\u00adschiff\u00adfahrts\u00adgesell\u00adschaft\u00adskapitän"],
    ["Cafe\u0301\u00adrestaurant\u00adbesitzer\u00adverein\u00adigung\u00adsmitglieder"],
  ])("shows a soft hyphen only where a line breaks after it, as a hyphen standing for it: %s", async (sample) => {
    const t = await text("de", sample);
    expect(gids(t.wrap(sample, false, Infinity)[0])).not.toContain(HYPHEN);
    for (let max = 2000; max <= 12000; max += 500) {
      const lines = t.wrap(sample, false, max);
      expect(lines.length, `width ${max}`).toBeGreaterThan(1);
      let hyphenated = 0;
      for (const [i, line] of lines.entries()) {
        const drawn = gids(line);
        // A line that breaks after a soft hyphen ends with a hyphen standing for it; a line cut where
        // nothing fits (wider than the hyphen leaves room for) has none, nor has any other place.
        const atSoftHyphen = visual(line).endsWith("\u00ad");
        if (i < lines.length - 1 && sample.normalize("NFC")[lines[i + 1].start - 1] !== "\u00ad") expect(atSoftHyphen).toBe(false);
        if (atSoftHyphen) hyphenated++;
        expect(drawn.indexOf(HYPHEN), `width ${max} line ${i}`).toBe(atSoftHyphen ? drawn.length - 1 : -1);
        expect(line.width).toBeCloseTo(width(line), 6);
        if (atSoftHyphen) expect(line.width, `width ${max} line ${i}`).toBeLessThanOrEqual(max);
      }
      expect(hyphenated, `width ${max}`).toBeGreaterThan(0);
      expect(lineTexts(lines).join("")).toBe(sample.normalize("NFC"));
    }
  });

  it.each([["a\u200eb\u200fc\u202ad\u202ce\u2066f\u2069g"], ["a\u200eb\u202ac\u202cd\u0301"]])(
    "draws direction marks and embedding controls as nothing: %s",
    async (sample) => {
      const t = await text("en", sample);
      const [line] = t.wrap(sample, false, Infinity);
      const letters = [...sample.normalize("NFC")].filter((c) => /\p{L}/u.test(c));
      const inked = line.pieces.flatMap((p) => glyphsOf(p).filter((g) => g.adv > 0 || g.gid !== 3));
      expect(inked.map((g) => g.gid).filter((g) => !letters.some((c) => latin.glyph(c.codePointAt(0)!)?.gid === g))).toEqual(
        sample.includes("\u0301") ? [latin.glyph(0x301)?.gid ?? inked.at(-1)!.gid] : [],
      );
      expect(line.width).toBeCloseTo(letters.reduce((w, c) => w + latin.glyph(c.codePointAt(0)!)!.adv, 0), 6);
    },
  );

  // Issue 38, F3 ("Trojan Source"): an override printed "DE89 \u202e0004 3210\u202c 0130 0000" as "DE89 0000 01300004 3210".
  it.each([
    ["xy \u202eabc\u202c z", "xy abc z"],
    ["DE89 \u202e0004 3210\u202c 0130 0000", "DE89 0004 3210 0130 0000"],
    ["\u202e0001", "0001"],
    ["\u2067abc\u2069 \u202bdef\u202c \u2066\u2068ghi\u2069\u2069 \u202a\u202dj\u202c\u202c", "abc def ghi j"],
  ])("removes explicit embeddings, overrides and isolates before bidi analysis, and counts them: %j reads %j", async (sample, stored) => {
    const t = await text("en", sample);
    const [line] = t.wrap(sample, false, Infinity);
    expect(line.text).toBe(stored);
    expect(visual(line)).toBe(stored);
    expect(line.rtl).toBe(false);
    expect(t.bidiControls).toBe(sample.length - stored.length);
  });

  it("still takes a paragraph's direction from its own letters once the controls are gone", async () => {
    const sample = "\u202aשלום abc\u202c";
    const t = await text("en", sample);
    const [line] = t.wrap(sample, false, Infinity);
    expect(line.rtl).toBe(true);
    // Left to right as drawn: the Latin word, then the Hebrew one's letters right to left.
    expect(visual(line)).toBe("abc םולש");
  });
});
