// The language of each run of text, for its marked content's /Lang (PDF/UA): by the script of its font
// where the face decides it, else by its text (Greek and Cyrillic words in Latin text, kana and Hangul).

import { SCRIPT_FAMILIES, SCRIPT_FONTS, type Family } from "./text/fonts";
import type { Piece, PieceSource } from "./text/paragraph";
import { HAN_LANGUAGE } from "./text/scripts";

/** scriptOfLanguage's answers: ICU's maximize() takes about 7 µs, a tenth of what tagging a page costs (measured). */
const SCRIPT_OF_LANGUAGE = new Map<string, string>();

/** The script a language is written in (ISO 15924, by CLDR's likely subtags): "Arab" for fa, "Deva" for mr. */
function scriptOfLanguage(language: string): string {
  let script = SCRIPT_OF_LANGUAGE.get(language);
  if (script === undefined) {
    try {
      script = new Intl.Locale(language).maximize().script ?? "Latn";
    } catch {
      script = "Latn";
    }
    // Bounded: a document's language is a locale that validation accepted, or one of the scripts' own.
    if (SCRIPT_OF_LANGUAGE.size < 1000) SCRIPT_OF_LANGUAGE.set(language, script);
  }
  return script;
}

/** Per family with a script of its own: the language its runs are marked with, and that script (Latin, Greek and Cyrillic share one family: see pieceLanguage). */
const FAMILY_LANGUAGE: Partial<Record<Family, { language: string; script: string }>> = Object.fromEntries(
  [...SCRIPT_FAMILIES.map((f) => [f, SCRIPT_FONTS[f].language] as const), ...Object.entries(HAN_LANGUAGE)].map(
    ([family, language]) => [family, { language, script: scriptOfLanguage(language) }],
  ),
);
/** Scripts of the Han families: a rare character from another Han family than the document's is its language all the same. */
const HAN_SCRIPTS = new Set(["Jpan", "Hans", "Hant", "Kore"]);
/** Kana and Hangul, which only Japanese and Korean are written in; global, to search from a piece's start (lastIndex). */
const KANA_OR_HANGUL = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

/** The document's language as pieceLanguage compares runs with it. */
export interface DocumentLanguage {
  language: string;
  /** Its primary subtag. */
  primary: string;
  /** The script it is written in (ISO 15924). */
  script: string;
  /** The script its primary language is written in by default (Serbian: Cyrillic, whatever sr-Latn says). */
  primaryScript: string;
  /** A Latin piece's language (English in a document of another script). */
  latin: PieceLanguage;
}

/** Runs of Greek or of Cyrillic words (two letters or more each, with what stands between them): a single letter is a symbol (α, Ω, µ) of the text around it. */
const GREEK_OR_CYRILLIC_WORDS = /[\u0370-\u03ff\u1f00-\u1fff]{2,}(?:[^\p{L}]+[\u0370-\u03ff\u1f00-\u1fff]{2,})*|[\u0400-\u052f]{2,}(?:[^\p{L}]+[\u0400-\u052f]{2,})*/gu;

/** A Greek or Cyrillic letter: a quick test before GREEK_OR_CYRILLIC_WORDS (most text has none). */
const GREEK_OR_CYRILLIC = /[\u0370-\u052f\u1f00-\u1fff]/;

/** What a piece's marked content says of its language: a /Lang property ("" for the document's language), and stretches of the text that say another. */
export interface PieceLanguage {
  readonly property: string;
  /** Greek or Cyrillic words in a Latin piece: [start, end) of the paragraph's text, and their property. */
  readonly words?: { start: number; end: number; property: string }[];
}

/** A piece in the document's language (most are): one object for all. */
const DOCUMENT_LANGUAGE: PieceLanguage = Object.freeze({ property: "" });

const langProperty = (language: string, document: Pick<DocumentLanguage, "language" | "primary">): string => {
  if (language === document.language) return "";
  const dash = language.indexOf("-");
  return (dash < 0 ? language : language.slice(0, dash)) === document.primary ? "" : `/Lang (${language})`;
};

/**
 * The language of a run of text by its script, when it differs from the document's: what its marked
 * content's /Lang says, so that a screen reader switches voice for a Japanese name in a German
 * document. A run in the script the document's language is written in is that language (Persian in
 * Arabic letters, Marathi in Devanagari); emoji and mathematical letters are their surroundings'.
 * Latin, Greek and Cyrillic share a font: its Greek and Cyrillic words (not single letters, which are
 * symbols) are marked apart. This part depends on the face alone (FontUse.language holds it for the
 * document); undefined where the text decides (pieceLanguage).
 */
export function faceLanguage(family: Family, document: DocumentLanguage): PieceLanguage | undefined {
  const own = FAMILY_LANGUAGE[family];
  if (own?.script === document.script || family === "emoji" || family === "math") return DOCUMENT_LANGUAGE;
  // Han from another Han family than the document's: a rare character is the document's language, Kana or Hangul is not.
  if (own && !(HAN_SCRIPTS.has(own.script) && HAN_SCRIPTS.has(document.script))) return { property: langProperty(own.language, document) };
  return undefined;
}

/** A Greek or Cyrillic word run of a paragraph (GREEK_OR_CYRILLIC_WORDS): [start, end) of its text. */
interface ScriptWord {
  readonly start: number;
  readonly end: number;
  readonly script: "Grek" | "Cyrl";
}

/** What pieceLanguage found in a paragraph's text, kept per paragraph (PieceSource) and filled on first need. */
interface SourceLetters {
  words?: ScriptWord[];
  /** Indices of kana and Hangul letters, ascending. */
  kanaOrHangul?: number[];
}

const SOURCE_LETTERS = new WeakMap<PieceSource, SourceLetters>();

function sourceLetters(source: PieceSource): SourceLetters {
  let letters = SOURCE_LETTERS.get(source);
  if (!letters) SOURCE_LETTERS.set(source, (letters = {}));
  return letters;
}

/** The paragraph's Greek and Cyrillic word runs, found in one pass over its text. */
function scriptWords(source: PieceSource): ScriptWord[] {
  const letters = sourceLetters(source);
  if (letters.words) return letters.words;
  const words: ScriptWord[] = [];
  // A regular expression rather than a loop of charCodeAt: paragraph texts come in several string
  // representations, which make that call a megamorphic lookup per character (measured: 900 a page).
  if (GREEK_OR_CYRILLIC.test(source.text)) {
    for (const m of source.text.matchAll(GREEK_OR_CYRILLIC_WORDS)) words.push({ start: m.index, end: m.index + m[0].length, script: m[0] < "\u0400" ? "Grek" : "Cyrl" });
  }
  return (letters.words = words);
}

/** A Latin, Greek or Cyrillic letter. */
const LATIN_LETTER = /(?=\p{L})[\p{sc=Latn}\p{sc=Grek}\p{sc=Cyrl}]/u;

/** Does text[from, to) hold a Latin, Greek or Cyrillic letter? ASCII by its code (most pieces: digits and punctuation), the rest by LATIN_LETTER. */
function hasLatinLetter(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i) | 0x20; // ASCII letters to lower case
    if (c >= 0x61 && c <= 0x7a) return true;
    if (c >= 0x80) return LATIN_LETTER.test(text.slice(i, to));
  }
  return false;
}

/** The paragraph's kana and Hangul letters, found in one pass over its text. */
function kanaOrHangul(source: PieceSource): number[] {
  const letters = sourceLetters(source);
  return (letters.kanaOrHangul ??= Array.from(source.text.matchAll(KANA_OR_HANGUL), (m) => m.index));
}

/** The first index of an ascending list whose value is at or past `at` (binary search). */
function firstFrom<T>(list: readonly T[], at: number, key: (item: T) => number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(list[mid]) < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The language of a piece whose face does not decide it (faceLanguage): by its text. What is in the
 * paragraph's text is found once per paragraph and looked up per piece by binary search, so the work
 * stays linear in the text: a search of the paragraph per piece made a paragraph whose font changes
 * at every character quadratic (640,000 characters of "aא": 103 s).
 */
export function pieceLanguage(piece: Piece, document: DocumentLanguage): PieceLanguage {
  const latin = piece.face.family === "latin";
  // Most pieces: Latin letters in a paragraph without a Greek or Cyrillic one (the text stage knows it of most), in a Latin document.
  if (latin && !piece.source.greekOrCyrillic && document.latin === DOCUMENT_LANGUAGE) return DOCUMENT_LANGUAGE;
  // The piece's text: its clusters' range.
  const { clusters, clusterEnds } = piece.glyphs;
  const first = piece.start;
  const last = piece.end - 1;
  const from = Math.min(clusters[first], clusters[last]);
  const to = clusters[first] <= clusters[last] ? clusterEnds[last] : clusterEnds[first];
  // Digits, punctuation and spaces have no language of their own: a date or a reading in a Japanese
  // document is read as Japanese, not switched to the English voice of the Latin words around it.
  if (latin && !hasLatinLetter(piece.source.text, from, to)) return DOCUMENT_LANGUAGE;
  if (latin && !piece.source.greekOrCyrillic) return document.latin;
  const own = FAMILY_LANGUAGE[piece.face.family];
  if (own) {
    const letters = kanaOrHangul(piece.source);
    const next = firstFrom(letters, from, (i) => i);
    return next < letters.length && letters[next] < to ? { property: langProperty(own.language, document) } : DOCUMENT_LANGUAGE;
  }
  const all = scriptWords(piece.source);
  const words: { start: number; end: number; property: string }[] = [];
  for (let k = firstFrom(all, from + 1, (w) => w.end); k < all.length && all[k].start < to; k++) {
    const { start, end, script } = all[k];
    // A Serbian Latin document's Cyrillic words are Serbian all the same.
    const language = document.script === script || document.primaryScript === script ? document.language : script === "Grek" ? "el" : "ru";
    words.push({ start, end, property: langProperty(language, document) });
  }
  return words.length > 0 ? { property: document.latin.property, words } : document.latin;
}

/** The document's language as pieceLanguage compares runs with it. */
export function documentLanguage(language: string): DocumentLanguage {
  const primary = language.split("-")[0].toLowerCase();
  const script = scriptOfLanguage(language);
  const latin = langProperty(script === "Latn" ? language : "en", { language, primary });
  return { language, primary, script, primaryScript: scriptOfLanguage(primary), latin: latin ? { property: latin } : DOCUMENT_LANGUAGE };
}
