// From characters to positioned glyphs. Text in scripts that need it goes through HarfBuzz (the
// harfbuzzjs WebAssembly build): Arabic joining, Indic reordering and conjuncts, Thai and Khmer
// marks, emoji sequences, right-to-left runs. Other text (Latin, Greek, Cyrillic, CJK, single emoji)
// maps code point by code point through the font's cmap, which is exact for it and about ten times
// faster; it has no kerning.

import type * as HarfBuzz from "harfbuzzjs" with { "resolution-mode": "import" };
import { SCRIPT_FAMILIES, SCRIPT_FONTS, type Face } from "./fonts";

/** A glyph placed by the shaper. Units are 1/1000 em; `cluster..clusterEnd` is the text it shows. */
export interface Glyph {
  readonly face: Face;
  readonly gid: number;
  readonly adv: number;
  readonly dx: number;
  readonly dy: number;
  readonly cluster: number;
  clusterEnd: number;
}

/** Text that needs HarfBuzz: complex scripts, marks, joiners, variation selectors, emoji sequences. */
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

/** Glyphs of text[start, end) in one face and direction, in visual order. */
export function shapeRun(text: string, start: number, end: number, face: Face, rtl: boolean, language: string): Glyph[] {
  if (!hb || !(rtl || NEEDS_SHAPING.test(text.slice(start, end)))) return throughCmap(text, start, end, face);
  return throughHarfBuzz(text, start, end, face, rtl, language);
}

/** shapeRun's HarfBuzz path, for any text (the benchmark compares it with the cmap path). Needs loadShaper(). */
export function throughHarfBuzz(text: string, start: number, end: number, face: Face, rtl: boolean, language: string): Glyph[] {
  if (!hb) throw new Error("HarfBuzz is not loaded: await loadShaper() first");
  const glyphs = withHarfBuzz(hb, text, start, end, face, rtl, language);
  // Each glyph learns where its cluster's text ends: clusters come in visual order, ascending in a
  // left-to-right run and descending in a right-to-left one (HarfBuzz's default cluster level).
  let next = end;
  for (let k = 0; k < glyphs.length; k++) {
    const i = rtl ? k : glyphs.length - 1 - k; // logical order, last cluster first
    const g = glyphs[i];
    if (g.cluster < next) {
      // the first glyph met of a new cluster: everything from here to `next` is its text
      const cluster = g.cluster;
      for (let j = i; j >= 0 && j < glyphs.length && glyphs[j].cluster === cluster; j += rtl ? 1 : -1) glyphs[j].clusterEnd = next;
      next = cluster;
    }
  }
  return glyphs;
}

function withHarfBuzz(h: typeof HarfBuzz, text: string, start: number, end: number, face: Face, rtl: boolean, language: string): Glyph[] {
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
  const out: Glyph[] = [];
  // Infos and positions apart: getGlyphInfosAndPositions defines five properties per glyph and was a
  // sixth of a long Khmer render (measured: 740 of 4,260 ms), the garbage it left a good part of the rest.
  const infos = buffer.getGlyphInfos();
  const positions = buffer.getGlyphPositions();
  for (let i = 0; i < infos.length; i++) {
    const p = positions[i];
    out.push({ face, gid: infos[i].codepoint, adv: (p?.xAdvance ?? 0) * scale, dx: (p?.xOffset ?? 0) * scale, dy: (p?.yOffset ?? 0) * scale, cluster: infos[i].cluster + from, clusterEnd: 0 });
  }
  return out;
}

/** shapeRun's path for text that needs no shaping: glyph by glyph through the font's cmap. */
export function throughCmap(text: string, start: number, end: number, face: Face): Glyph[] {
  const out: Glyph[] = [];
  for (let i = start; i < end; i++) {
    const cp = text.codePointAt(i)!;
    const at = i;
    if (cp > 0xffff) i++;
    const g = cp >= 0xad && isIgnorable(cp) ? undefined : face.glyph(cp);
    const previous = out.length > 0 ? out[out.length - 1] : undefined;
    // A default-ignorable character prints as nothing (as HarfBuzz does) and stands for nothing.
    if (previous && previous.clusterEnd === end) previous.clusterEnd = at;
    if (!g) continue;
    out.push({ face, gid: g.gid, adv: g.adv, dx: 0, dy: 0, cluster: at, clusterEnd: end });
  }
  return out;
}
