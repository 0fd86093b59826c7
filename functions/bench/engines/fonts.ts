// The Noto TrueType files our renderer embeds (FAMILY_FILES of src/print/render/text/fonts.ts: one
// family per script, regular and bold, from the @expo-google-fonts packages). The peers use exactly
// these files, so that every script prints in the same typeface and sizes compare like for like:
// Chromium through a fontconfig file listing their folders (setup.ts), Typst as its font paths.
// pdfmake keeps Noto Sans alone (it cannot print the complex scripts anyway, see types.ts).
import { dirname, resolve } from "node:path";

/** The renderer's font module (lib/, compiled), typed by its source. */
type FontsModule = typeof import("../../src/print/render/text/fonts");
export type Family = import("../../src/print/render/text/fonts").Family;
type HanStyle = import("../../src/print/render/text/scripts").HanStyle;

export const NOTO_REGULAR = require.resolve("@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf");
export const NOTO_BOLD = require.resolve("@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf");

const FUNCTIONS_DIR = resolve(__dirname, "..", "..");
let fontsModule: FontsModule | undefined;
/** Read from lib/ on first use (lib/ may be built by setup.ts after this module loads). */
const fonts = (): FontsModule => (fontsModule ??= require(resolve(FUNCTIONS_DIR, "lib", "print", "render", "text", "fonts.js")) as FontsModule);

/** Every font file of the renderer (FONT_FILES), resolved from functions/ (the packages, not lib/fonts). */
export function notoFiles(): string[] {
  return fonts().FONT_FILES.map((f) => require.resolve(f, { paths: [FUNCTIONS_DIR] }));
}

/** The folders of those files (what fontconfig is given for Chromium). */
export function notoDirs(): string[] {
  return [...new Set(notoFiles().map((f) => dirname(f)))];
}

/** Each family's name as the font files declare it (name ID 1), what CSS and Typst select by. */
export const FAMILY_NAME: Record<Family, string> = {
  latin: "Noto Sans",
  arabic: "Noto Sans Arabic",
  hebrew: "Noto Sans Hebrew",
  devanagari: "Noto Sans Devanagari",
  bengali: "Noto Sans Bengali",
  tamil: "Noto Sans Tamil",
  thai: "Noto Sans Thai",
  khmer: "Noto Sans Khmer",
  telugu: "Noto Sans Telugu",
  gujarati: "Noto Sans Gujarati",
  kannada: "Noto Sans Kannada",
  malayalam: "Noto Sans Malayalam",
  gurmukhi: "Noto Sans Gurmukhi",
  oriya: "Noto Sans Oriya",
  sinhala: "Noto Sans Sinhala",
  lao: "Noto Sans Lao",
  myanmar: "Noto Sans Myanmar",
  tibetan: "Noto Serif Tibetan",
  georgian: "Noto Sans Georgian",
  armenian: "Noto Sans Armenian",
  ethiopic: "Noto Sans Ethiopic",
  math: "Noto Sans Math",
  japanese: "Noto Sans JP",
  simplifiedChinese: "Noto Sans SC",
  traditionalChinese: "Noto Sans TC",
  korean: "Noto Sans KR",
  emoji: "Noto Emoji",
};

/** Han fonts in the order our renderer tries them for a document's Han style (text/scripts.ts). */
const HAN_ORDER: Record<HanStyle, Family[]> = {
  japanese: ["japanese", "simplifiedChinese", "traditionalChinese", "korean"],
  simplifiedChinese: ["simplifiedChinese", "traditionalChinese", "japanese", "korean"],
  traditionalChinese: ["traditionalChinese", "simplifiedChinese", "japanese", "korean"],
  korean: ["korean", "traditionalChinese", "japanese", "simplifiedChinese"],
};

/** A family in a peer's font list; `except`: code points it must leave to a later family of the list. */
export interface ListedFont {
  name: string;
  except?: readonly (readonly [from: number, to: number])[];
}

/**
 * Noto Sans has Devanagari too, but our renderer prints Devanagari from Noto Sans Devanagari (one
 * family per script): the peers leave that block of Noto Sans alone, so that they use the same file.
 */
const LATIN_EXCEPT = [[0x0900, 0x097f]] as const;

/**
 * The font list a peer is given (CSS font-family, Typst's text font): Noto Sans first (Latin, Greek,
 * Cyrillic, digits and punctuation), one family per script, the Han families in the document's order,
 * emoji last. Peers fall back along the list character by character, as our renderer picks by script.
 */
export function fontList(han: HanStyle): ListedFont[] {
  const families: Family[] = ["latin", ...fonts().SCRIPT_FAMILIES, ...HAN_ORDER[han], "math", "emoji"];
  return families.map((f) => (f === "latin" ? { name: FAMILY_NAME[f], except: LATIN_EXCEPT } : { name: FAMILY_NAME[f] }));
}
