// From characters to positioned glyphs. Text in scripts that need it goes through HarfBuzz (the
// harfbuzzjs WebAssembly build): Arabic joining, Indic reordering and conjuncts, Thai and Khmer
// marks, emoji sequences, right-to-left runs. Other text (Latin, Greek, Cyrillic, CJK, single emoji)
// maps code point by code point through the font's cmap, which is exact for it and about ten times
// faster; it has no kerning.

import type * as HarfBuzz from "harfbuzzjs" with { "resolution-mode": "import" };
import { SCRIPT_FAMILIES, SCRIPT_FONTS, type Face } from "./fonts";

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
  return throughHarfBuzz(store, text, start, end, face, rtl, language);
}

/** shapeRun's HarfBuzz path, for any text (the benchmark compares it with the cmap path). Needs loadShaper(). */
export function throughHarfBuzz(store: GlyphStore, text: string, start: number, end: number, face: Face, rtl: boolean, language: string): number {
  if (!hb) throw new Error("HarfBuzz is not loaded: await loadShaper() first");
  const first = withHarfBuzz(hb, store, text, start, end, face, rtl, language);
  // Each glyph learns where its cluster's text ends: clusters come in visual order, ascending in a
  // left-to-right run and descending in a right-to-left one (HarfBuzz's default cluster level).
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
  return first;
}

function withHarfBuzz(h: typeof HarfBuzz, store: GlyphStore, text: string, start: number, end: number, face: Face, rtl: boolean, language: string): number {
  buffer ??= new h.Buffer();
  buffer.reset();
  // Some text either side is context (Arabic joins across a run's edge); not the whole paragraph,
  // which HarfBuzz would copy again for each run. Clusters are UTF-16 indices into that window.
  const from = Math.max(0, start - CONTEXT);
  buffer.addText(text.slice(from, Math.min(text.length, end + CONTEXT)), start - from, end - start);
  buffer.setDirection(rtl ? h.Direction.RTL : h.Direction.LTR);
  buffer.setLanguage(language);
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
