// The typefaces: Google's Noto families (SIL Open Font License 1.1), TrueType files from the
// @expo-google-fonts packages, one family per script with regular and bold. They are development
// dependencies: `npm run build` copies just these files into lib/fonts (stack/bundleFonts.mjs), so a
// deployed function carries about 60 MB of fonts instead of every style of every package.
//
// Each file is read and parsed on first use and kept for the life of the process: a Latin-only
// document never reads a CJK font. A parsed face holds no per-document state (each document
// collects its own glyphs, see fontUse.ts).

import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type * as HarfBuzz from "harfbuzzjs" with { "resolution-mode": "import" };
import { TrueTypeSource } from "../ttf";

const file = (pkg: string, name: string, weight: "400Regular" | "700Bold"): string =>
  `@expo-google-fonts/${pkg}/${weight}/${name}_${weight}.ttf`;
const both = (pkg: string, name: string): readonly [string, string] => [file(pkg, name, "400Regular"), file(pkg, name, "700Bold")];

/** A script printed from a family of its own. */
export interface ScriptFont {
  /** Its Unicode Script property value (`\p{Script=...}`). */
  readonly script: string;
  /** The language a run of it is marked with (/Lang), and a document mostly in it is given. */
  readonly language: string;
  /** Needs HarfBuzz (joining, reordering, conjuncts, stacked marks); else the cmap is exact. */
  readonly shaped: boolean;
  /** Regular and bold file, as package paths. */
  readonly files: readonly [regular: string, bold: string];
}

/** The scripts with a family of their own, in the order a document's dominant script is chosen. */
export const SCRIPT_FONTS = {
  arabic: { script: "Arabic", language: "ar", shaped: true, files: both("noto-sans-arabic", "NotoSansArabic") },
  hebrew: { script: "Hebrew", language: "he", shaped: true, files: both("noto-sans-hebrew", "NotoSansHebrew") },
  devanagari: { script: "Devanagari", language: "hi", shaped: true, files: both("noto-sans-devanagari", "NotoSansDevanagari") },
  bengali: { script: "Bengali", language: "bn", shaped: true, files: both("noto-sans-bengali", "NotoSansBengali") },
  tamil: { script: "Tamil", language: "ta", shaped: true, files: both("noto-sans-tamil", "NotoSansTamil") },
  telugu: { script: "Telugu", language: "te", shaped: true, files: both("noto-sans-telugu", "NotoSansTelugu") },
  gujarati: { script: "Gujarati", language: "gu", shaped: true, files: both("noto-sans-gujarati", "NotoSansGujarati") },
  kannada: { script: "Kannada", language: "kn", shaped: true, files: both("noto-sans-kannada", "NotoSansKannada") },
  malayalam: { script: "Malayalam", language: "ml", shaped: true, files: both("noto-sans-malayalam", "NotoSansMalayalam") },
  gurmukhi: { script: "Gurmukhi", language: "pa", shaped: true, files: both("noto-sans-gurmukhi", "NotoSansGurmukhi") },
  oriya: { script: "Oriya", language: "or", shaped: true, files: both("noto-sans-oriya", "NotoSansOriya") },
  sinhala: { script: "Sinhala", language: "si", shaped: true, files: both("noto-sans-sinhala", "NotoSansSinhala") },
  thai: { script: "Thai", language: "th", shaped: true, files: both("noto-sans-thai", "NotoSansThai") },
  lao: { script: "Lao", language: "lo", shaped: true, files: both("noto-sans-lao", "NotoSansLao") },
  khmer: { script: "Khmer", language: "km", shaped: true, files: both("noto-sans-khmer", "NotoSansKhmer") },
  myanmar: { script: "Myanmar", language: "my", shaped: true, files: both("noto-sans-myanmar", "NotoSansMyanmar") },
  // Noto has Tibetan in a serif design only.
  tibetan: { script: "Tibetan", language: "bo", shaped: true, files: both("noto-serif-tibetan", "NotoSerifTibetan") },
  georgian: { script: "Georgian", language: "ka", shaped: false, files: both("noto-sans-georgian", "NotoSansGeorgian") },
  armenian: { script: "Armenian", language: "hy", shaped: false, files: both("noto-sans-armenian", "NotoSansArmenian") },
  ethiopic: { script: "Ethiopic", language: "am", shaped: false, files: both("noto-sans-ethiopic", "NotoSansEthiopic") },
} as const satisfies Record<string, ScriptFont>;

export type ScriptFamily = keyof typeof SCRIPT_FONTS;
export const SCRIPT_FAMILIES = Object.keys(SCRIPT_FONTS) as ScriptFamily[];

export type Family =
  | "latin" // Latin, Greek, Cyrillic
  | ScriptFamily
  | "japanese"
  | "simplifiedChinese"
  | "traditionalChinese"
  | "korean"
  | "math" // mathematical letters and operators
  | "emoji"; // monochrome outlines (Noto Emoji)

/** Regular and bold file of each family, as package paths. */
export const FAMILY_FILES: Readonly<Record<Family, readonly [regular: string, bold: string]>> = {
  latin: both("noto-sans", "NotoSans"),
  ...(Object.fromEntries(SCRIPT_FAMILIES.map((f) => [f, SCRIPT_FONTS[f].files])) as Record<ScriptFamily, readonly [string, string]>),
  japanese: both("noto-sans-jp", "NotoSansJP"),
  simplifiedChinese: both("noto-sans-sc", "NotoSansSC"),
  traditionalChinese: both("noto-sans-tc", "NotoSansTC"),
  korean: both("noto-sans-kr", "NotoSansKR"),
  // One weight only: bold text uses the same outlines.
  math: [file("noto-sans-math", "NotoSansMath", "400Regular"), file("noto-sans-math", "NotoSansMath", "400Regular")],
  emoji: [file("noto-emoji", "NotoEmoji", "400Regular"), file("noto-emoji", "NotoEmoji", "400Regular")],
};

/** Every font file the renderer may read (what the build bundles). */
export const FONT_FILES: readonly string[] = [...new Set(Object.values(FAMILY_FILES).flat())];

/** Where `npm run build` puts the font files: lib/fonts (this file compiles to lib/print/render/text). */
export const BUNDLED_FONTS_DIR = join(__dirname, "..", "..", "..", "fonts");

/** A font file: from its package where installed (tests, emulator), else from the build's bundle. */
function fontPath(packagePath: string): string {
  const bundled = join(BUNDLED_FONTS_DIR, packagePath);
  if (existsSync(bundled)) return bundled;
  return require.resolve(packagePath);
}

/** A glyph of the cmap and its advance, for text that needs no shaping (cmap path). */
export interface CmapGlyph {
  readonly gid: number;
  /** Advance width in 1/1000 em. */
  readonly adv: number;
}

/** Bounds the per-face cache of code point lookups (text could hold any of 1.1 million code points). */
const MAX_CACHED_CODE_POINTS = 20000;

export class Face {
  readonly family: Family;
  readonly bold: boolean;
  readonly source: TrueTypeSource;
  readonly postscriptName: string;
  /** font units -> 1/1000 em */
  readonly scale: number;
  private readonly glyphs = new Map<number, CmapGlyph | null>();
  private shaperFont: HarfBuzz.Font | undefined;

  constructor(family: Family, bold: boolean, source: TrueTypeSource) {
    this.family = family;
    this.bold = bold;
    this.source = source;
    this.postscriptName = this.source.postscriptName.replace(/[^A-Za-z0-9-]/g, "") || "Font";
    this.scale = 1000 / this.source.metrics.unitsPerEm;
  }

  /** Advances in whole 1/1000 em by glyph id, filled as they are asked for (-1: not yet). */
  private advances?: Int32Array;

  /** The glyph of a code point through the cmap, or undefined when the font has none. */
  glyph(cp: number): CmapGlyph | undefined {
    let ref = this.glyphs.get(cp);
    if (ref === undefined) {
      const gid = this.source.glyphId(cp);
      ref = gid === 0 ? null : { gid, adv: this.advance(gid) };
      if (this.glyphs.size < MAX_CACHED_CODE_POINTS) this.glyphs.set(cp, ref);
    }
    return ref ?? undefined;
  }

  /** The glyph id of a code point through the cmap, 0 when the font has none (the text stage's lookup: no object per call). */
  gidOf(cp: number): number {
    if (cp > 0xffff) return this.glyph(cp)?.gid ?? 0;
    this.bmp ??= new Int32Array(0x10000);
    const known = this.bmp[cp];
    if (known !== 0) return known < 0 ? 0 : known;
    const gid = this.source.glyphId(cp);
    this.bmp[cp] = gid === 0 ? -1 : gid;
    return gid;
  }
  /** gidOf's answers for the Basic Multilingual Plane: 0 not asked yet, -1 none, else the glyph id. */
  private bmp?: Int32Array;

  has(cp: number): boolean {
    return this.gidOf(cp) !== 0;
  }

  /** A glyph's advance width in whole 1/1000 em, as the PDF's /W records it. */
  advance(gid: number): number {
    if (!this.advances) this.advances = new Int32Array(this.source.numGlyphs).fill(-1);
    let advance = this.advances[gid];
    if (advance === undefined) return Math.round(this.source.advanceWidth(gid) * this.scale);
    if (advance < 0) this.advances[gid] = advance = Math.round(this.source.advanceWidth(gid) * this.scale);
    return advance;
  }

  /** The face as HarfBuzz shapes with it (created on first use; holds a copy of the font file). */
  shaper(hb: typeof HarfBuzz): HarfBuzz.Font {
    if (!this.shaperFont) this.shaperFont = new hb.Font(new hb.Face(new hb.Blob(this.source.fileBytes), 0));
    return this.shaperFont;
  }
}

/** Faces loaded, by family: regular and bold. */
const faces = new Map<Family, [regular?: Face, bold?: Face]>();

/** Files this large (the CJK families: 5-10 MB each, nearly all glyph outlines) are read in part (TrueTypeSource.open). */
const READ_IN_PART_FROM_BYTES = 2 * 1024 * 1024;

/** A family's regular or bold face, loaded on first use and kept for the life of the process. */
export function getFace(family: Family, bold: boolean): Face {
  let weights = faces.get(family);
  if (!weights) faces.set(family, (weights = []));
  let face = weights[bold ? 1 : 0];
  if (!face) {
    const path = fontPath(FAMILY_FILES[family][bold ? 1 : 0]);
    let source: TrueTypeSource;
    if (statSync(path).size >= READ_IN_PART_FROM_BYTES) source = TrueTypeSource.open(path);
    else {
      const buffer = readFileSync(path);
      source = new TrueTypeSource(new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength));
    }
    face = new Face(family, bold, source);
    weights[bold ? 1 : 0] = face;
  }
  return face;
}

/** The families whose files this process has read so far (for tests and benchmarks). */
export function loadedFamilies(): Family[] {
  return [...faces].filter(([, weights]) => weights.some(Boolean)).map(([family]) => family);
}
