// Where a line may break: the Unicode Line Breaking Algorithm (UAX #14, the linebreak package),
// with words found by ICU's dictionaries (Intl.Segmenter) inside Thai, Lao, Khmer and Myanmar
// text, which has no spaces between words and which UAX #14 leaves to such a dictionary (class SA).

import LineBreaker from "linebreak";
import { beyondAscii } from "./scripts";

const DICTIONARY_SCRIPTS = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const isDictionaryChar = (ch: string | undefined): boolean => ch !== undefined && DICTIONARY_SCRIPTS.test(ch);
const PUNCTUATION = /\p{P}/u;
let words: Intl.Segmenter | undefined;

/**
 * Text of Latin, Greek and Cyrillic letters (but the fullwidth ones, ideographic to UAX #14),
 * digits, spaces, . , : ; (which UAX #14 never breaks before), hyphens and slashes: most of a
 * form's text. Its opportunities follow from a few of the algorithm's rules (simpleBreaks);
 * anything else goes to the breaker.
 */
const SIMPLE_BREAKS = /^(?:(?=\p{L})(?![\uff00-\uffef])[\p{sc=Latn}\p{sc=Grek}\p{sc=Cyrl}]|[0-9 .,:;\-/])*$/u;
const SPACE = 0x20;
const HYPHEN = 0x2d;
const SLASH = 0x2f;
/** Characters that no opportunity comes before: spaces (LB7), . , : ; and the slash (LB13). */
const kept = (c: number): boolean => c === SPACE || c === 0x2e || c === 0x2c || c === 0x3a || c === 0x3b || c === SLASH;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/**
 * simpleBreaks' text's opportunities as the breaker (the linebreak package) finds them: after
 * spaces (LB18, a hyphen after them too); after a hyphen or slash before anything but a digit
 * (LB25 keeps those together), a hyphen that begins a word as well (the package has no LB20.1);
 * nowhere else (before a hyphen, LB21; between letters and digits, LB23 and LB28).
 */
function simpleBreaks(text: string, out: Uint8Array, at: number, flag: number): void {
  for (let i = 1; i < text.length; i++) {
    const next = text.charCodeAt(i);
    if (kept(next)) continue;
    const previous = text.charCodeAt(i - 1);
    if (previous === SPACE) out[at + i] |= flag;
    else if ((previous === SLASH || previous === HYPHEN) && next !== HYPHEN && !isDigit(next)) out[at + i] |= flag;
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
