// The text stage of the renderer: strings in, lines of positioned glyphs out (see paragraph.ts for
// the steps). One `DocumentText` per document holds what its strings share: language, direction, the Han
// forms, and the count of characters no font has.

import { GlyphStore, loadShaper, NEEDS_SHAPING } from "./shape";
import { CharStore, Paragraph, type Line, type TextContext } from "./paragraph";
import { beyondAscii, HAN_LANGUAGE, hanStyleOfLocale, hanStyleOfText, scriptOf, type HanStyle, type ScriptClass } from "./scripts";
import { SCRIPT_FAMILIES, SCRIPT_FONTS } from "./fonts";

export type { Line, Piece } from "./paragraph";
export type { Paragraph } from "./paragraph";
export { loadedFamilies } from "./fonts";

/** Scripts written right to left (ISO 15924): a document in a language written in one is laid out right to left. */
const RTL_SCRIPTS = new Set(["Arab", "Hebr", "Thaa", "Syrc", "Nkoo", "Adlm", "Rohg", "Samr", "Mand"]);

/** A letter of another script than Latin, Greek or Cyrillic (no ASCII letter is one). */
const OTHER_LETTER = /[^\P{L}\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]/u;

/** The language of a script class's characters, where the class has one ("cjk": the Han style's). */
const CLASS_LANGUAGE = new Map<ScriptClass, string>([
  ...SCRIPT_FAMILIES.map((f) => [f, SCRIPT_FONTS[f].language] as const),
  ["han", "cjk"],
  ["kana", "cjk"],
  ["hangul", "cjk"],
  ["latin", "en-GB"],
]);

/** The languages of CLASS_LANGUAGE, in its order, and each class's index among them. */
const CLASS_LANGUAGES = [...new Set(CLASS_LANGUAGE.values())];
const LANGUAGE_INDEX = new Map([...CLASS_LANGUAGE].map(([cls, language]) => [cls, CLASS_LANGUAGES.indexOf(language)]));

/** languageIndexOf's answers in the Basic Multilingual Plane, plus one (0: not asked yet). */
const BMP_LANGUAGES = new Uint8Array(0x10000);

/** The index in CLASS_LANGUAGES of a character's language by its script; CLASS_LANGUAGES.length when it has none. */
function languageIndexOf(cp: number): number {
  const known = cp <= 0xffff ? BMP_LANGUAGES[cp] : 0;
  if (known !== 0) return known - 1;
  const index = LANGUAGE_INDEX.get(scriptOf(cp)) ?? CLASS_LANGUAGES.length;
  if (cp <= 0xffff) BMP_LANGUAGES[cp] = index + 1;
  return index;
}

/**
 * The language that has the most characters in `text`, by their scripts (en-GB when none has any;
 * ties: the first in CLASS_LANGUAGE). `beyond`: the text's characters beyond ASCII (beyondAscii).
 */
function dominantLanguage(text: string, beyond: string, han: HanStyle): string {
  if (!OTHER_LETTER.test(beyond)) return "en-GB";
  // One pass, each character's script from scriptOf's cache (a regular expression per script was
  // twenty passes over the text).
  const counts = new Int32Array(CLASS_LANGUAGES.length + 1);
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i)!;
    if (cp > 0xffff) i++;
    counts[languageIndexOf(cp)]++;
  }
  let best = "en-GB";
  let most = 0;
  for (let k = 0; k < CLASS_LANGUAGES.length; k++) {
    if (counts[k] > most) {
      most = counts[k];
      best = CLASS_LANGUAGES[k] === "cjk" ? HAN_LANGUAGE[han] : CLASS_LANGUAGES[k];
    }
  }
  return best;
}

export interface TextSettings {
  /** BCP 47 language of the document (PDF /Lang, shaping, Han forms). */
  readonly language: string;
  /** Right-to-left document: mirrored layout. */
  readonly rtl: boolean;
  readonly han: HanStyle;
}

/** languageOf's answers, by the tag asked for (ICU's canonical form and likely script cost tens of µs a document). */
const LANGUAGES = new Map<string, { language: string; rtl: boolean }>();

/** A language tag in its canonical form (en-GB when it is none), and whether it is written right to left. */
function languageOf(tag: string): { language: string; rtl: boolean } {
  let answer = LANGUAGES.get(tag);
  if (!answer) {
    let language: string;
    try {
      language = new Intl.Locale(tag).toString();
    } catch {
      language = "en-GB";
    }
    // By the script the language is written in (CLDR's likely subtags): pa-PK is Punjabi in Arabic letters.
    answer = { language, rtl: RTL_SCRIPTS.has(new Intl.Locale(language).maximize().script ?? "") };
    // Bounded: a locale that validation accepted, or one of the scripts' own languages.
    if (LANGUAGES.size < 1000) LANGUAGES.set(tag, answer);
  }
  return answer;
}

/**
 * A document's language, direction and Han forms: from `locale` when given, else from its content
 * (`allText`: every string it prints). Loads the shaper when the content needs it.
 */
export async function documentText(allText: string, locale?: string, maxRuns = Infinity): Promise<DocumentText> {
  // The scripts are tested on the text's characters beyond ASCII (none of the tests matches an ASCII character).
  const beyond = beyondAscii(allText);
  const han = hanStyleOfLocale(locale) ?? hanStyleOfText(beyond);
  const { language, rtl } = languageOf(locale ?? dominantLanguage(allText, beyond, han));
  if (rtl || NEEDS_SHAPING.test(beyond)) await loadShaper();
  const stores = spareStores.pop() ?? { glyphs: new GlyphStore(), chars: new CharStore() };
  stores.glyphs.length = 0;
  stores.chars.length = 0;
  return new DocumentText({ han, language, rtl, missing: 0, bidiControls: 0, runsLeft: maxRuns, maxRuns, ...stores }, stores);
}

/** A document's glyph and character stores. */
interface TextStores {
  readonly glyphs: GlyphStore;
  readonly chars: CharStore;
}
/** Stores of documents rendered, to be written again (a document's stores grow to its text: growing them anew took a tenth of a one-page render). */
const spareStores: TextStores[] = [];
/** Stores larger than this many glyphs or characters are left to the garbage collector rather than kept. */
const SPARE_STORE_SIZE = 1 << 16;

function releaseStores(stores: TextStores): void {
  const small = stores.glyphs.gids.length <= SPARE_STORE_SIZE && stores.chars.flags.length <= SPARE_STORE_SIZE;
  if (small && spareStores.length < 4 && !spareStores.includes(stores)) spareStores.push(stores);
}

const LINE_BREAKS = /[\r\n\u2028\u2029\u0085]/;

/** Splits text at line breaks (CR, LF, CRLF, and the Unicode line and paragraph separators). */
export function splitLines(text: string): string[] {
  return LINE_BREAKS.test(text) ? text.split(/\r\n|[\r\n\u2028\u2029\u0085]/) : [text];
}

export class DocumentText {
  private readonly ctx: TextContext;
  /** Short paragraphs, regular and bold, by text. */
  private readonly cache = [new Map<string, Paragraph>(), new Map<string, Paragraph>()];

  constructor(
    ctx: TextContext,
    private readonly stores: TextStores,
  ) {
    this.ctx = ctx;
  }

  get settings(): TextSettings {
    return { language: this.ctx.language, rtl: this.ctx.rtl, han: this.ctx.han };
  }

  /** Characters that no font has, printed as U+FFFD so far. */
  get missing(): number {
    return this.ctx.missing;
  }

  /** Explicit bidi controls removed from the text so far. */
  get bidiControls(): number {
    return this.ctx.bidiControls;
  }

  /** One paragraph, shaped (short strings are cached: labels, markers and footers repeat). */
  paragraph(text: string, bold: boolean): Paragraph {
    if (text.length > 64) return new Paragraph(text, bold, this.ctx);
    const cache = this.cache[bold ? 1 : 0];
    let p = cache.get(text);
    if (!p) {
      p = new Paragraph(text, bold, this.ctx);
      cache.set(text, p);
    }
    return p;
  }

  /** Done with the text: its glyphs and characters may be written over by another document's (nothing reads its lines again). */
  release(): void {
    releaseStores(this.stores);
  }

  /** Each line of the text as a shaped paragraph. */
  paragraphs(text: string, bold: boolean): readonly Paragraph[] {
    if (!LINE_BREAKS.test(text)) return this.paragraph(text, bold).alone;
    return splitLines(text).map((line) => this.paragraph(line, bold));
  }

  /** Text wrapped to `max` (1/1000 em); the author's line breaks kept, an empty line stays one. */
  wrap(text: string, bold: boolean, max: number): Line[] {
    const out: Line[] = [];
    for (const p of this.paragraphs(text, bold)) for (const line of p.wrap(max)) out.push(line);
    return out;
  }

  /** The text on one line (line breaks as spaces), cut with an ellipsis when wider than `max`. */
  fit(text: string, bold: boolean, max: number): Line {
    return this.paragraph(text.replace(/[\r\n\u2028\u2029\u0085]+/g, " "), bold).fit(max, this.paragraph("\u2026", bold));
  }
}
