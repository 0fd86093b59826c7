// Where a line may break: the Unicode Line Breaking Algorithm (UAX #14, the linebreak package),
// with words found by ICU's dictionaries (Intl.Segmenter) inside Thai, Lao, Khmer and Myanmar
// text, which has no spaces between words and which UAX #14 leaves to such a dictionary (class SA).

import LineBreaker from "linebreak";
import { beyondAscii } from "./scripts";

const DICTIONARY_SCRIPTS = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const isDictionaryChar = (ch: string | undefined): boolean => ch !== undefined && DICTIONARY_SCRIPTS.test(ch);
const PUNCTUATION = /\p{P}/u;
let words: Intl.Segmenter | undefined;

/** `result[i] === 1` when a line may start at index i (0 < i < text.length) of one paragraph. */
export function breakOpportunities(text: string): Uint8Array {
  const out = new Uint8Array(text.length + 1);
  const breaker = new LineBreaker(text);
  for (let bk = breaker.nextBreak(); bk; bk = breaker.nextBreak()) out[bk.position] = 1;
  if (DICTIONARY_SCRIPTS.test(beyondAscii(text))) {
    words ??= new Intl.Segmenter("th", { granularity: "word" });
    for (const { index } of words.segment(text)) {
      // Between words, not before a punctuation mark (Burmese ။ and ၊, Khmer ។ are words to ICU; UAX #14 keeps them with the word before).
      if (index > 0 && isDictionaryChar(text[index - 1]) && isDictionaryChar(text[index]) && !PUNCTUATION.test(text[index])) out[index] = 1;
    }
  }
  out[0] = 0;
  out[text.length] = 0;
  return out;
}
