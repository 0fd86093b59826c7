// Where a line may break: the Unicode Line Breaking Algorithm (UAX #14, the linebreak package),
// with words found by ICU's dictionaries (Intl.Segmenter) inside Thai, Lao, Khmer and Myanmar
// text, which has no spaces between words and which UAX #14 leaves to such a dictionary (class SA).

import LineBreaker from "linebreak";
import { beyondAscii } from "./scripts";

const DICTIONARY_SCRIPTS = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const isDictionaryChar = (ch: string | undefined): boolean => ch !== undefined && DICTIONARY_SCRIPTS.test(ch);
const PUNCTUATION = /\p{P}/u;
let words: Intl.Segmenter | undefined;

// UAX #14's classes that simpleBreaks knows, in PAIRS' order.
const [AL, NU, IS, SY, HY, OP, CP, QU, B2, BA, PO] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const START = 11;
const SPACE = 0x20;
/** The digits and punctuation most of a form's text has, by class (letters are AL). */
const CLASS_CHARACTERS: readonly (readonly [string, number])[] = [
  ["&@*#", AL],
  ["0123456789", NU],
  [".,:;", IS],
  ["/", SY],
  ["-", HY],
  ["(", OP],
  [")", CP],
  ["'", QU],
  ["\u2014", B2],
  ["\u2013", BA],
  ["%", PO],
];

/**
 * Text of Latin, Greek and Cyrillic letters (but the fullwidth ones, ideographic to UAX #14), spaces
 * and CLASS_CHARACTERS: its opportunities follow from UAX #14's pair table alone. Anything else goes
 * to the breaker.
 */
const SIMPLE_BREAKS = new RegExp(
  `^(?:(?=\\p{L})(?![\\uff00-\\uffef])[\\p{sc=Latn}\\p{sc=Grek}\\p{sc=Cyrl}]|[ ${CLASS_CHARACTERS.map(([chars]) => [...chars].map((c) => `\\u{${c.charCodeAt(0).toString(16)}}`).join("")).join("")}])*$`,
  "u",
);
/** Each character's class up to the last of CLASS_CHARACTERS (0, AL, for the rest: SIMPLE_BREAKS admits only letters beside them). */
const CLASSES = new Uint8Array(Math.max(...CLASS_CHARACTERS.flatMap(([chars]) => [...chars].map((c) => c.charCodeAt(0)))) + 1);
for (const [chars, cls] of CLASS_CHARACTERS) for (const c of chars) CLASSES[c.charCodeAt(0)] = cls;
const classOf = (c: number): number => (c < CLASSES.length ? CLASSES[c] : AL);

/**
 * UAX #14's pair table for those classes, a row per class before (the last that is not a space;
 * START: none but spaces) and a column per class after: "_" a break, "%" a break only after a
 * space, "^" none even after spaces. As the linebreak package has it (a test compares the two).
 */
const PAIRS = [
  // AL NU IS SY HY OP CP QU B2 BA PO
  "%%^^%%^%_%%", // AL
  "%%^^%%^%_%%", // NU
  "%%^^%_^%_%_", // IS
  "_%^^%_^%_%_", // SY
  "_%^^%_^%_%_", // HY
  "^^^^^^^^^^^", // OP
  "%%^^%_^%_%%", // CP
  "%%^^%^^%%%%", // QU
  "__^^%_^%^%_", // B2
  "__^^%_^%_%_", // BA
  "%%^^%%^%_%_", // PO
  "%%^^%%^%%%%", // START
].map((row) => Uint8Array.from(row, (d) => (d === "_" ? 2 : d === "%" ? 1 : 0)));

/** simpleBreaks' text's opportunities as the breaker (the linebreak package) finds them, without its object per opportunity. */
function simpleBreaks(text: string, out: Uint8Array, at: number, flag: number): void {
  let before = START;
  let spaced = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === SPACE) {
      spaced = true;
      continue;
    }
    const cls = classOf(c);
    const pair = PAIRS[before][cls];
    if (i > 0 && (pair === 2 || (pair === 1 && spaced))) out[at + i] |= flag;
    before = cls;
    spaced = false;
  }
}

/** `result[i] === 1` when a line may start at index i (0 < i < text.length) of one paragraph. */
export function breakOpportunities(text: string): Uint8Array {
  const out = new Uint8Array(text.length + 1);
  markBreaks(text, out, 0, 1);
  return out;
}

/** breakOpportunities into `out`: `flag` set in out[at + i] for each such i (what a paragraph keeps in its document's character store). */
export function markBreaks(text: string, out: Uint8Array, at: number, flag: number): void {
  if (SIMPLE_BREAKS.test(text)) {
    // The same as the breaker finds (tested), without its object per opportunity.
    simpleBreaks(text, out, at, flag);
    return;
  }
  const breaker = new LineBreaker(text);
  for (let bk = breaker.nextBreak(); bk; bk = breaker.nextBreak()) if (bk.position > 0 && bk.position < text.length) out[at + bk.position] |= flag;
  if (DICTIONARY_SCRIPTS.test(beyondAscii(text))) {
    words ??= new Intl.Segmenter("th", { granularity: "word" });
    for (const { index } of words.segment(text)) {
      // Between words, not before a punctuation mark (Burmese ။ and ၊, Khmer ។ are words to ICU; UAX #14 keeps them with the word before).
      if (index > 0 && isDictionaryChar(text[index - 1]) && isDictionaryChar(text[index]) && !PUNCTUATION.test(text[index])) out[at + index] |= flag;
    }
  }
}
