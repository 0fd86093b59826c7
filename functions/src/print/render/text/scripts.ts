// Which font prints a character: the character's script, and the document's language for Han.

import { SCRIPT_FAMILIES, SCRIPT_FONTS, type Family } from "./fonts";

/** A character's script as font choice sees it. */
export type ScriptClass = Family | "han" | "kana" | "hangul" | "common" | "inherited" | "other";

const CLASSES: [RegExp, ScriptClass][] = [
  [/\p{Script=Latin}|\p{Script=Greek}|\p{Script=Cyrillic}/u, "latin"],
  ...SCRIPT_FAMILIES.map((family): [RegExp, ScriptClass] => [new RegExp(`\\p{Script=${SCRIPT_FONTS[family].script}}`, "u"), family]),
  [/\p{Script=Han}|\p{Script=Bopomofo}/u, "han"],
  [/\p{Script=Hiragana}|\p{Script=Katakana}/u, "kana"],
  [/\p{Script=Hangul}/u, "hangul"],
  [/\p{Extended_Pictographic}|\p{Emoji_Modifier}|\p{Regional_Indicator}/u, "emoji"],
  [/\p{Script=Inherited}/u, "inherited"],
  [/\p{Script=Common}/u, "common"],
];

/** scriptOf's answers: in the Basic Multilingual Plane by index into `classNames` plus one (0: not asked yet, a typed array reads faster than a map), above it by code point. */
const classNames: ScriptClass[] = [];
const bmpClasses = new Uint8Array(0x10000);
const astralClasses = new Map<number, ScriptClass>();

export function scriptOf(cp: number): ScriptClass {
  if (cp < 0x80) return (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) ? "latin" : "common";
  if (cp <= 0xffff) {
    const known = bmpClasses[cp];
    if (known !== 0) return classNames[known - 1];
  } else {
    const known = astralClasses.get(cp);
    if (known !== undefined) return known;
  }
  const ch = String.fromCodePoint(cp);
  let cls: ScriptClass = "other";
  for (const [re, c] of CLASSES) {
    if (re.test(ch)) {
      cls = c;
      break;
    }
  }
  // Emoji that are also "common" symbols (©, ™, ↔ ...) print from the text font when it has them.
  if (cls === "emoji" && cp < 0x2000) cls = "common";
  if (cp <= 0xffff) {
    let index = classNames.indexOf(cls);
    if (index < 0) index = classNames.push(cls) - 1;
    bmpClasses[cp] = index + 1;
  } else if (astralClasses.size < 50000) astralClasses.set(cp, cls);
  return cls;
}

/** The writing system Han characters follow: from the locale when there is one, else from the content. */
export type HanStyle = "japanese" | "simplifiedChinese" | "traditionalChinese" | "korean";

/** The language each Han style is (what a document mostly in Han, and a run in its family, are marked with). */
export const HAN_LANGUAGE: Readonly<Record<HanStyle, string>> = {
  japanese: "ja",
  korean: "ko",
  simplifiedChinese: "zh-Hans",
  traditionalChinese: "zh-Hant",
};

/** Han style of a BCP 47 locale, or undefined when the locale says nothing about it. */
export function hanStyleOfLocale(locale: string | undefined): HanStyle | undefined {
  if (!locale) return undefined;
  let tag: Intl.Locale;
  try {
    tag = new Intl.Locale(locale).maximize();
  } catch {
    return undefined;
  }
  if (tag.language === "ja") return "japanese";
  if (tag.language === "ko") return "korean";
  if (tag.language === "zh") return tag.script === "Hant" ? "traditionalChinese" : "simplifiedChinese";
  return undefined;
}

/** Han style from the content: kana means Japanese, Hangul Korean, otherwise Chinese (simplified). */
export function hanStyleOfText(text: string): HanStyle {
  if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(text)) return "japanese";
  if (/\p{Script=Hangul}/u.test(text)) return "korean";
  if (/\p{Script=Bopomofo}/u.test(text)) return "traditionalChinese";
  return "simplifiedChinese";
}

// eslint-disable-next-line no-control-regex -- every ASCII character, controls among them, is what this finds
const ASCII_RUNS = /[\x00-\x7f]+/g;

/**
 * The text's characters beyond ASCII, each stretch of ASCII between them a space: all that a test of
 * single characters that are not ASCII (a class of scripts, marks, letters of other scripts) needs to
 * see. Such a class costs about 13 ns a character to test, and most of a document's text is ASCII.
 */
export const beyondAscii = (text: string): string => text.replace(ASCII_RUNS, " ");
const HAN_ORDER: Record<HanStyle, Family[]> = {
  japanese: ["japanese", "simplifiedChinese", "traditionalChinese", "korean"],
  simplifiedChinese: ["simplifiedChinese", "traditionalChinese", "japanese", "korean"],
  traditionalChinese: ["traditionalChinese", "simplifiedChinese", "japanese", "korean"],
  korean: ["korean", "traditionalChinese", "japanese", "simplifiedChinese"],
};

const LATIN_ORDER: readonly Family[] = ["latin", "emoji"];
const FULLWIDTH_LATIN_ORDER = Object.fromEntries(Object.entries(HAN_ORDER).map(([han, order]) => [han, ["latin", ...order, "emoji"]])) as Record<HanStyle, Family[]>;

/** Characters of blocks that CJK fonts cover (CJK symbols, full-width forms, ...), worth a CJK font's load. */
const isCjkBlock = (cp: number): boolean =>
  (cp >= 0x2e80 && cp <= 0x9fff) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xffef) || cp >= 0x20000;

/** Mathematical operators and letters (bold, script, fraktur, double-struck ...), which Noto Sans Math has. */
const isMathBlock = (cp: number): boolean =>
  (cp >= 0x2200 && cp <= 0x22ff) || (cp >= 0x27c0 && cp <= 0x27ef) || (cp >= 0x2980 && cp <= 0x2aff) || (cp >= 0x1d400 && cp <= 0x1d7ff);

/** Symbol blocks (arrows, shapes, dingbats ...) that the text font may lack and the CJK fonts often have. */
const isSymbolBlock = (cp: number): boolean => cp >= 0x2000 && cp <= 0x2bff;

/** Scripts a shared character is used with (Script_Extensions): the Arabic comma, the danda, CJK marks... */
const EXTENSIONS: [RegExp, Family | "han"][] = [
  ...SCRIPT_FAMILIES.map((family): [RegExp, Family] => [new RegExp(`\\p{Script_Extensions=${SCRIPT_FONTS[family].script}}`, "u"), family]),
  [/\p{Script_Extensions=Han}|\p{Script_Extensions=Hiragana}|\p{Script_Extensions=Katakana}|\p{Script_Extensions=Hangul}/u, "han"],
];
const extensionCache = new Map<number, (Family | "han")[]>();

function extensionsOf(cp: number): (Family | "han")[] {
  let found = extensionCache.get(cp);
  if (!found) {
    const ch = String.fromCodePoint(cp);
    found = EXTENSIONS.filter(([re]) => re.test(ch)).map(([, family]) => family);
    if (extensionCache.size < 50000) extensionCache.set(cp, found);
  }
  return found;
}

/** The fonts to try for a character, best first (the caller tries the preceding character's font before these). */
export function fontChain(cls: ScriptClass, cp: number, han: HanStyle): readonly Family[] {
  switch (cls) {
    case "latin":
      // Fullwidth Latin letters (Ａ, ｚ), which CJK text uses, are in the CJK fonts, not in the Latin one.
      return isCjkBlock(cp) ? FULLWIDTH_LATIN_ORDER[han] : LATIN_ORDER;
    case "common":
    case "inherited":
    case "other": {
      const chain: Family[] = ["latin"];
      for (const family of extensionsOf(cp)) chain.push(...(family === "han" ? HAN_ORDER[han] : [family]));
      if (isMathBlock(cp)) chain.push("math");
      if (isCjkBlock(cp)) chain.push(...HAN_ORDER[han]);
      chain.push("emoji");
      if (isSymbolBlock(cp)) chain.push(HAN_ORDER[han][0]);
      return chain;
    }
    case "han":
      return HAN_ORDER[han];
    case "kana":
      return han === "japanese" ? HAN_ORDER.japanese : ["japanese", ...HAN_ORDER[han].filter((f) => f !== "japanese")];
    case "hangul":
      return ["korean"];
    case "emoji":
      return ["emoji", "latin"];
    default:
      return [cls, "latin"];
  }
}
