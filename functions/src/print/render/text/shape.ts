// From characters to positioned glyphs. Text in scripts that need it goes through HarfBuzz (the
// harfbuzzjs WebAssembly build): Arabic joining, Indic reordering and conjuncts, Thai and Khmer
// marks, emoji sequences, right-to-left runs. Other text (Latin, Greek, Cyrillic, CJK, single emoji)
// maps code point by code point through the font's cmap, which is exact for it and about ten times
// faster; it has no kerning.

import type * as HarfBuzz from "harfbuzzjs" with { "resolution-mode": "import" };
import { SCRIPT_FAMILIES, SCRIPT_FONTS, type Face, type Family } from "./fonts";
import { scriptOf } from "./scripts";

/**
 * The glyphs a document's text was shaped into, as parallel arrays (no object per glyph: a long
 * render made hundreds of thousands, a quarter of its time went to collecting them). A shaped run
 * is a stretch [start, end) of it, in visual order; units are 1/1000 em, and `clusters[i]..
 * clusterEnds[i]` is the stretch of the paragraph's text glyph i shows. The text stage writes it,
 * the layout measures with it and the drawing stage reads it. The arrays grow by replacement: read
 * them from the store, not from a copy kept across shaping.
 */
export class GlyphStore {
  gids = new Uint16Array(256);
  advances = new Float64Array(256);
  dx = new Float64Array(256);
  dy = new Float64Array(256);
  clusters = new Int32Array(256);
  clusterEnds = new Int32Array(256);
  length = 0;

  /** Appends a glyph; returns its index. */
  push(gid: number, advance: number, dx: number, dy: number, cluster: number, clusterEnd: number): number {
    const i = this.length;
    if (i === this.gids.length) this.grow();
    this.gids[i] = gid;
    this.advances[i] = advance;
    this.dx[i] = dx;
    this.dy[i] = dy;
    this.clusters[i] = cluster;
    this.clusterEnds[i] = clusterEnd;
    this.length = i + 1;
    return i;
  }

  private grow(): void {
    const size = this.gids.length * 2;
    const grown = <T extends Uint16Array | Float64Array | Int32Array>(a: T, b: T): T => {
      b.set(a);
      return b;
    };
    this.gids = grown(this.gids, new Uint16Array(size));
    this.advances = grown(this.advances, new Float64Array(size));
    this.dx = grown(this.dx, new Float64Array(size));
    this.dy = grown(this.dy, new Float64Array(size));
    this.clusters = grown(this.clusters, new Int32Array(size));
    this.clusterEnds = grown(this.clusterEnds, new Int32Array(size));
  }
}

/** Is there a character beyond ASCII in text[start, end)? (None of them needs shaping.) */
function beyondAscii(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (text.charCodeAt(i) > 0x7f) return true;
  return false;
}

/** Text that needs HarfBuzz (none of it ASCII): complex scripts, marks, joiners, variation selectors, emoji sequences. */
export const NEEDS_SHAPING = new RegExp(
  `\\p{M}|\\u200c|\\u200d|\\ufe0e|\\ufe0f|[\\p{Regional_Indicator}\\p{Emoji_Modifier}${SCRIPT_FAMILIES.filter((f) => SCRIPT_FONTS[f].shaped)
    .map((f) => `\\p{Script=${SCRIPT_FONTS[f].script}}`)
    .join("")}]`,
  "u",
);

/** Printed as nothing and never a reason to switch fonts (joiners, variation selectors, format characters). */
export function isIgnorable(cp: number): boolean {
  return (
    cp === 0xad ||
    cp === 0x34f ||
    cp === 0x61c ||
    cp === 0x180e ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x206f) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    cp === 0xfeff ||
    (cp >= 0xe0000 && cp <= 0xe0fff)
  );
}

/** Characters of context given to HarfBuzz on each side of a run. */
const CONTEXT = 16;

let hb: typeof HarfBuzz | undefined;
let loading: Promise<void> | undefined;
let buffer: HarfBuzz.Buffer | undefined;

/**
 * Loads HarfBuzz once per process (about 12 ms). An ES module with top-level await: this dynamic
 * import() stays an import() in the CommonJS build (TypeScript `module: node16`).
 */
export function loadShaper(): Promise<void> {
  loading ??= import("harfbuzzjs").then((m) => {
    hb = m;
  });
  return loading;
}

/** Shapes text[start, end) in one face and direction into `store`, in visual order; returns where its glyphs start there (they end at its length). */
export function shapeRun(store: GlyphStore, text: string, start: number, end: number, face: Face, rtl: boolean, language: string): number {
  if (!hb || !(rtl || (beyondAscii(text, start, end) && NEEDS_SHAPING.test(text.slice(start, end))))) return throughCmap(store, text, start, end, face);
  const script = scriptOfRun(text, start, end, face);
  const first = script ? throughWords(hb, store, text, start, end, face, rtl, language, script) : withHarfBuzz(hb, store, text, start, end, face, rtl, language);
  markClusterEnds(store, first, end, rtl);
  return first;
}

/** shapeRun's HarfBuzz path, for any text, the run shaped whole (the benchmark compares it with the cmap path). Needs loadShaper(). */
export function throughHarfBuzz(store: GlyphStore, text: string, start: number, end: number, face: Face, rtl: boolean, language: string): number {
  if (!hb) throw new Error("HarfBuzz is not loaded: await loadShaper() first");
  const first = withHarfBuzz(hb, store, text, start, end, face, rtl, language);
  markClusterEnds(store, first, end, rtl);
  return first;
}

/**
 * Each glyph of a run learns where its cluster's text ends: clusters come in visual order, ascending
 * in a left-to-right run and descending in a right-to-left one (HarfBuzz's default cluster level).
 */
function markClusterEnds(store: GlyphStore, first: number, end: number, rtl: boolean): void {
  const { clusters, clusterEnds } = store;
  const count = store.length - first;
  let next = end;
  for (let k = 0; k < count; k++) {
    const i = first + (rtl ? k : count - 1 - k); // logical order, last cluster first
    if (clusters[i] < next) {
      // the first glyph met of a new cluster: everything from here to `next` is its text
      const cluster = clusters[i];
      for (let j = i; j >= first && j < store.length && clusters[j] === cluster; j += rtl ? 1 : -1) clusterEnds[j] = next;
      next = cluster;
    }
  }
}

/**
 * Families whose font substitutes across a space, so that a word shapes differently beside one:
 * Noto Serif Tibetan gives ༀ (U+0F00) another glyph before a space. Their runs are shaped whole.
 */
const ACROSS_SPACES: readonly Family[] = ["tibetan"];

/** ISO 15924 codes of the scripts of the families shaped word by word (CLDR's likely script of each family's language). */
export const WORD_SHAPED_SCRIPTS = new Map<Family, string>(
  SCRIPT_FAMILIES.filter((f) => SCRIPT_FONTS[f].shaped && !ACROSS_SPACES.includes(f)).map((f) => [f, new Intl.Locale(SCRIPT_FONTS[f].language).maximize().script ?? ""]),
);

/**
 * A character that HarfBuzz puts in the cluster of the one before it, even a space: marks, joiners,
 * variation selectors, tags, and the Thai and Lao SARA AM (letters that HarfBuzz splits into a mark
 * and a vowel).
 */
const CONTINUES = /[\p{M}\p{Script=Inherited}\u{e0020}-\u{e007f}\u0e33\u0eb3]/uy;

/**
 * The script HarfBuzz would guess for the run, where the run can be shaped word by word: its face's
 * script with only common and inherited characters beside it (then it is the face's script), and
 * no space in it that a mark after it joins. Else undefined.
 */
function scriptOfRun(text: string, start: number, end: number, face: Face): string | undefined {
  const script = WORD_SHAPED_SCRIPTS.get(face.family);
  if (!script) return undefined;
  let own = false;
  for (let i = start; i < end; i++) {
    const cp = text.codePointAt(i)!;
    if (i > start && text.charCodeAt(i - 1) === 0x20) {
      CONTINUES.lastIndex = i;
      if (CONTINUES.test(text)) return undefined;
    }
    if (cp > 0xffff) i++;
    const cls = scriptOf(cp);
    if (cls === face.family) own = true;
    else if (cls !== "common" && cls !== "inherited") return undefined;
  }
  return own ? script : undefined;
}

/** A word as HarfBuzz shaped it: per glyph, in visual order, its id, advance, offsets and cluster (from the word's start). */
type ShapedWord = Float64Array;
const WORD_FIELDS = 5;
/**
 * Words kept in all, each of at most LONGEST_KEPT_WORD UTF-16 units (about 25 MB at worst, where
 * shaping doubles the glyphs; a few MB in practice); past it
 * all are forgotten and shaped again. One bound for every face, direction and language together:
 * the languages a caller can ask for are many. Longer words (a Thai phrase has no spaces) are
 * shaped each time.
 */
const WORDS_KEPT = 8192;
const LONGEST_KEPT_WORD = 32;
let wordsKept = 0;
/** Shaped words by face, then direction and language, then text. */
const shapedWords = new Map<Face, Map<string, Map<string, ShapedWord>>>();

/** Words shaped and kept so far, in every face, direction and language (tests see that runs went word by word). */
export function shapedWordCount(): number {
  return wordsKept;
}

function wordsOf(face: Face, rtl: boolean, language: string): Map<string, ShapedWord> {
  let byLanguage = shapedWords.get(face);
  if (!byLanguage) shapedWords.set(face, (byLanguage = new Map()));
  const key = (rtl ? "rtl " : "ltr ") + language;
  let words = byLanguage.get(key);
  if (!words) byLanguage.set(key, (words = new Map()));
  return words;
}

/**
 * A run shaped word by word, each word between spaces shaped once per process (as browsers do:
 * documents repeat their words, and HarfBuzz was a fifth of a long Arabic render). Nothing joins,
 * kerns or substitutes across a space in these fonts (a test puts every character each font has
 * beside a space and compares with whole runs), so a word shapes alike wherever it is; one at the
 * run's edge against other text is shaped in its context.
 */
function throughWords(h: typeof HarfBuzz, store: GlyphStore, text: string, start: number, end: number, face: Face, rtl: boolean, language: string, script: string): number {
  const first = store.length;
  const words = wordsOf(face, rtl, language);
  // Words and the spaces between them, in visual order: from the last in a right-to-left run.
  for (let i = rtl ? end : start; rtl ? i > start : i < end; ) {
    let a = i;
    let b = i;
    const space = text.charCodeAt(rtl ? i - 1 : i) === 0x20;
    if (rtl) while (a > start && (text.charCodeAt(a - 1) === 0x20) === space) a--;
    else while (b < end && (text.charCodeAt(b) === 0x20) === space) b++;
    i = rtl ? a : b;
    const alone = space || ((a > start || a === 0 || text.charCodeAt(a - 1) === 0x20) && (b < end || b === text.length || text.charCodeAt(b) === 0x20));
    if (!alone || b - a > LONGEST_KEPT_WORD) {
      withHarfBuzz(h, store, text, a, b, face, rtl, language, script);
      continue;
    }
    const word = text.slice(a, b);
    let shaped = words.get(word);
    if (!shaped) {
      const at = withHarfBuzz(h, store, word, 0, word.length, face, rtl, language, script, 0);
      shaped = new Float64Array((store.length - at) * WORD_FIELDS);
      for (let g = at, k = 0; g < store.length; g++, k += WORD_FIELDS) {
        shaped[k] = store.gids[g];
        shaped[k + 1] = store.advances[g];
        shaped[k + 2] = store.dx[g];
        shaped[k + 3] = store.dy[g];
        shaped[k + 4] = store.clusters[g];
      }
      store.length = at;
      if (wordsKept >= WORDS_KEPT) {
        for (const byLanguage of shapedWords.values()) for (const kept of byLanguage.values()) kept.clear();
        wordsKept = 0;
      }
      words.set(word, shaped);
      wordsKept++;
    }
    for (let k = 0; k < shaped.length; k += WORD_FIELDS) store.push(shaped[k], shaped[k + 1], shaped[k + 2], shaped[k + 3], shaped[k + 4] + a, 0);
  }
  return first;
}

/** HarfBuzz's glyphs for text[start, end) into `store`, with `context` characters either side; the script given, or guessed from the text. */
function withHarfBuzz(
  h: typeof HarfBuzz,
  store: GlyphStore,
  text: string,
  start: number,
  end: number,
  face: Face,
  rtl: boolean,
  language: string,
  script?: string,
  context = CONTEXT,
): number {
  buffer ??= new h.Buffer();
  buffer.reset();
  // Some text either side is context (Arabic joins across a run's edge); not the whole paragraph,
  // which HarfBuzz would copy again for each run. Clusters are UTF-16 indices into that window.
  const from = Math.max(0, start - context);
  buffer.addText(text.slice(from, Math.min(text.length, end + context)), start - from, end - start);
  buffer.setDirection(rtl ? h.Direction.RTL : h.Direction.LTR);
  buffer.setLanguage(language);
  if (script) buffer.setScript(script);
  buffer.guessSegmentProperties();
  h.shape(face.shaper(h), buffer);
  const scale = face.scale;
  const first = store.length;
  // Infos and positions apart: getGlyphInfosAndPositions defines five properties per glyph and was a
  // sixth of a long Khmer render (measured: 740 of 4,260 ms), the garbage it left a good part of the rest.
  const infos = buffer.getGlyphInfos();
  const positions = buffer.getGlyphPositions();
  for (let i = 0; i < infos.length; i++) {
    const p = positions[i];
    store.push(infos[i].codepoint, (p?.xAdvance ?? 0) * scale, (p?.xOffset ?? 0) * scale, (p?.yOffset ?? 0) * scale, infos[i].cluster + from, 0);
  }
  return first;
}

/** shapeRun's path for text that needs no shaping: glyph by glyph through the font's cmap. */
export function throughCmap(store: GlyphStore, text: string, start: number, end: number, face: Face): number {
  const first = store.length;
  for (let i = start; i < end; i++) {
    const cp = text.codePointAt(i)!;
    const at = i;
    if (cp > 0xffff) i++;
    const gid = cp >= 0xad && isIgnorable(cp) ? 0 : face.gidOf(cp);
    // A default-ignorable character prints as nothing (as HarfBuzz does) and stands for nothing.
    if (store.length > first && store.clusterEnds[store.length - 1] === end) store.clusterEnds[store.length - 1] = at;
    if (gid === 0) continue;
    store.push(gid, face.advance(gid), 0, 0, at, end);
  }
  return first;
}
