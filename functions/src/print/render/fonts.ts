// The embedded typeface: Noto Sans Regular and Bold (SIL Open Font License 1.1), TrueType files from
// the npm package @expo-google-fonts/noto-sans. It covers Latin (with diacritics), Greek and Cyrillic
// and has U+FFFD, which stands in for every character it lacks (emoji, CJK, ...).
//
// Font files are read and parsed once per process, on first use, and kept (module-level cache): a
// parsed font holds no per-document state (each document collects its own glyphs, see pdf.ts).
//
// Text is not shaped: each code point maps to its glyph through the font's cmap (cached per face),
// which is exact for the scripts this font covers (no ligatures or kerning; combining marks are
// composed first by NFC normalization). OpenType shaping (fontkit's font.layout, which pdf-lib's
// drawText runs) costs 0.3-1 ms per string, more than a whole page may take here.

import { readFileSync } from "node:fs";
import { TrueTypeSource } from "./ttf";

export const FONT_PACKAGE = "@expo-google-fonts/noto-sans";
const REGULAR_FILE = `${FONT_PACKAGE}/400Regular/NotoSans_400Regular.ttf`;
const BOLD_FILE = `${FONT_PACKAGE}/700Bold/NotoSans_700Bold.ttf`;

const REPLACEMENT_CHARACTER = 0xfffd;
/** Bounds the per-process glyph cache (text could hold any of Unicode's 1.1 million code points). */
const MAX_CACHED_CODE_POINTS = 20000;
const SPACE = 0x20;

/** A glyph as the layout uses it. `adv` is the advance width in 1/1000 em; `cp` the code point it shows. */
export interface GlyphRef {
  readonly gid: number;
  readonly adv: number;
  readonly cp: number;
}

/** Characters that are printed as nothing (format controls, variation selectors, soft hyphen, ...). */
function isIgnorable(cp: number): boolean {
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

export class Face {
  /** The font file, parsed (see ttf.ts). */
  readonly source: TrueTypeSource;
  readonly postscriptName: string;
  /** font units -> 1/1000 em */
  readonly scale: number;
  readonly replacement: GlyphRef;
  readonly space: GlyphRef;
  private readonly glyphs = new Map<number, GlyphRef>();

  constructor(source: TrueTypeSource) {
    this.source = source;
    this.postscriptName = source.postscriptName.replace(/[^A-Za-z0-9-]/g, "") || "Font";
    this.scale = 1000 / source.metrics.unitsPerEm;
    this.replacement = this.lookup(REPLACEMENT_CHARACTER) ?? this.lookup(0x3f) ?? { gid: 0, adv: 500, cp: REPLACEMENT_CHARACTER };
    this.space = this.lookup(SPACE) ?? { gid: 0, adv: 250, cp: SPACE };
  }

  private lookup(cp: number): GlyphRef | undefined {
    const gid = this.source.glyphId(cp);
    if (gid === 0) return undefined;
    return { gid, adv: Math.round(this.source.advanceWidth(gid) * this.scale * 1000) / 1000, cp };
  }

  /** The glyph for a code point; the replacement glyph when the font lacks it. */
  glyph(cp: number): GlyphRef {
    let ref = this.glyphs.get(cp);
    if (ref === undefined) {
      ref = this.lookup(cp) ?? this.replacement;
      if (this.glyphs.size < MAX_CACHED_CODE_POINTS) this.glyphs.set(cp, ref);
    }
    return ref;
  }

  /**
   * Glyphs of one line of text (no line breaks in it). Tabs print as a space; control characters and
   * unpaired surrogates as the replacement glyph; ignorable format characters not at all.
   */
  shape(text: string): GlyphRef[] {
    const s = /[^\x20-\x7e]/.test(text) ? text.normalize("NFC") : text;
    const out: GlyphRef[] = [];
    for (let i = 0; i < s.length; i++) {
      let cp = s.charCodeAt(i);
      if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < s.length) {
        const low = s.charCodeAt(i + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          cp = (cp - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
          i++;
        }
      }
      if (cp >= 0x20 && cp < 0x7f) {
        out.push(this.glyph(cp));
      } else if (cp === 0x09) {
        out.push(this.space);
      } else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || (cp >= 0xd800 && cp <= 0xdfff)) {
        out.push(this.replacement);
      } else if (!isIgnorable(cp)) {
        out.push(this.glyph(cp));
      }
    }
    return out;
  }
}

export interface Faces {
  regular: Face;
  bold: Face;
}

let faces: Faces | undefined;

function loadFace(file: string): Face {
  // require.resolve finds the package from src/ (tests), lib/ (after tsc) and the deployed function.
  const buffer = readFileSync(require.resolve(file));
  return new Face(new TrueTypeSource(new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)));
}

/** The regular and bold faces, loaded on first use and kept for the life of the process. */
export function getFaces(): Faces {
  if (!faces) faces = { regular: loadFace(REGULAR_FILE), bold: loadFace(BOLD_FILE) };
  return faces;
}

/** Sum of advances, in 1/1000 em. */
export function advanceOf(glyphs: readonly GlyphRef[], from = 0, to = glyphs.length): number {
  let w = 0;
  for (let i = from; i < to; i++) w += glyphs[i].adv;
  return w;
}

const isBreakAfter = (cp: number): boolean => cp === 0x2d || cp === 0x2f || cp === 0x5c || cp === 0x5f || cp === 0x2010 || cp === 0x2013;

/**
 * Greedy line breaking of one line of glyphs into lines at most `max` wide (1/1000 em units).
 * Breaks at spaces (dropped) or after a hyphen, slash or underscore inside a word; a word longer than
 * a line is cut between characters. Every line holds at least one glyph, so any width terminates.
 */
export function wrapGlyphs(glyphs: readonly GlyphRef[], max: number): GlyphRef[][] {
  const n = glyphs.length;
  if (n === 0) return [[]];
  const lines: GlyphRef[][] = [];
  let start = 0;
  while (start < n) {
    let width = 0;
    let i = start;
    let spaceBreak = -1; // index of the last space seen after the line's first glyph
    let softBreak = -1; // index just after the last hyphen/slash inside a word
    let seenInk = false;
    for (; i < n; i++) {
      const g = glyphs[i];
      if (g.cp === SPACE) {
        if (seenInk) spaceBreak = i;
        width += g.adv; // spaces may hang past the edge
        continue;
      }
      if (width + g.adv > max && i > start) break;
      width += g.adv;
      seenInk = true;
      if (i > start && isBreakAfter(g.cp) && glyphs[i - 1].cp !== SPACE) softBreak = i + 1;
    }
    if (i >= n) {
      lines.push(trimEnd(glyphs.slice(start, n)));
      break;
    }
    let end: number;
    let next: number;
    if (spaceBreak > start && spaceBreak >= softBreak) {
      end = spaceBreak;
      next = spaceBreak + 1;
    } else if (softBreak > start) {
      end = softBreak;
      next = softBreak;
    } else {
      end = i;
      next = i;
    }
    lines.push(trimEnd(glyphs.slice(start, end)));
    start = next;
    while (start < n && glyphs[start].cp === SPACE) start++;
  }
  return lines;
}

function trimEnd(line: GlyphRef[]): GlyphRef[] {
  let end = line.length;
  while (end > 0 && line[end - 1].cp === SPACE) end--;
  return end === line.length ? line : line.slice(0, end);
}

/** Text (with line breaks) as wrapped lines of glyphs; an empty line stays an empty line. */
export function wrapText(face: Face, text: string, max: number): GlyphRef[][] {
  const lines: GlyphRef[][] = [];
  for (const paragraph of splitLines(text)) {
    for (const line of wrapGlyphs(face.shape(paragraph), max)) lines.push(line);
  }
  return lines;
}

export function splitLines(text: string): string[] {
  if (text.indexOf("\n") < 0 && text.indexOf("\r") < 0) return [text];
  return text.replace(/\r\n?/g, "\n").split("\n");
}

/** One line, cut with an ellipsis when wider than `max` (1/1000 em units). */
export function fitLine(face: Face, text: string, max: number): GlyphRef[] {
  const glyphs = face.shape(text.replace(/[\r\n]+/g, " "));
  if (advanceOf(glyphs) <= max) return glyphs;
  const ellipsis = face.glyph(0x2026);
  let width = ellipsis.adv;
  let i = 0;
  while (i < glyphs.length && width + glyphs[i].adv <= max) width += glyphs[i++].adv;
  return [...trimEnd(glyphs.slice(0, i)), ellipsis];
}
