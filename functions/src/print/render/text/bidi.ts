// A paragraph's bidi embedding levels (UAX #9): bidi-js for any text, and a shorter path of the same
// rules for the text most paragraphs hold, which needs only the weak, neutral and implicit ones: no
// explicit embeddings or isolates (cleanText removes them), no paragraph or segment separators, no
// bracket pairs (rule N0), no boundary neutrals, nothing beyond the Basic Multilingual Plane. bidi-js
// walks every rule with a map of type counts at each step: a tenth of a long Arabic render.

import bidiFactory from "bidi-js";

let bidi: ReturnType<typeof bidiFactory> | undefined;

/** The types the shorter path resolves, a bit each, by bidi-js's names. */
const BY_NAME: Readonly<Record<string, number>> = Object.fromEntries(["L", "R", "AL", "EN", "ES", "ET", "AN", "CS", "NSM", "WS", "ON"].map((name, i) => [name, 1 << i]));
const { L, R, AL, EN, ES, ET, AN, CS, NSM, WS, ON } = BY_NAME;
/** A code unit the shorter path leaves to bidi-js. */
const OTHER = 1 << 11;

/** Each code unit's type for the shorter path (0: not looked up yet). */
const types = new Uint16Array(0x10000);

function typeOf(unit: number): number {
  let type = types[unit];
  if (type === 0) {
    bidi ??= bidiFactory();
    const ch = String.fromCharCode(unit);
    const bracket = bidi.openingToClosingBracket(ch) !== null || bidi.closingToOpeningBracket(ch) !== null;
    type = unit >= 0xd800 && unit <= 0xdfff ? OTHER : bracket ? OTHER : (BY_NAME[bidi.getBidiCharTypeName(ch)] ?? OTHER);
    types[unit] = type;
  }
  return type;
}

/** The resolved types of the paragraph at hand, reused. */
let resolved = new Uint16Array(256);

/**
 * The embedding level of each UTF-16 code unit of a paragraph, and the paragraph's level: from
 * `direction` when given, else from its first strong character (P2, P3). The same as bidi-js's
 * getEmbeddingLevels (tested against it).
 */
export function embeddingLevels(text: string, direction?: "ltr" | "rtl"): { levels: Uint8Array; level: number } {
  const n = text.length;
  if (n === 0) return { levels: new Uint8Array(0), level: 0 };
  if (resolved.length < n) resolved = new Uint16Array(Math.max(n, resolved.length * 2));
  const t = resolved;
  let level = direction === "rtl" ? 1 : direction === "ltr" ? 0 : -1;
  for (let i = 0; i < n; i++) {
    const type = typeOf(text.charCodeAt(i));
    if (type === OTHER) return byBidiJs(text, direction);
    t[i] = type;
    if (level < 0 && type & (L | R | AL)) level = type === L ? 0 : 1;
  }
  if (level < 0) level = 0;
  const sos = level === 1 ? R : L;
  // W1: a mark takes the type of what it follows (sos at the start).
  for (let i = 0; i < n; i++) if (t[i] === NSM) t[i] = i === 0 ? sos : t[i - 1];
  // W2: a European number after Arabic letters is an Arabic number; W3: Arabic letters are R.
  for (let i = 0, strong = sos; i < n; i++) {
    if (t[i] & (L | R | AL)) strong = t[i];
    else if (t[i] === EN && strong === AL) t[i] = AN;
  }
  for (let i = 0; i < n; i++) if (t[i] === AL) t[i] = R;
  // W4: a single separator between two numbers of one type takes their type (ES between European ones only).
  for (let i = 1; i < n - 1; i++) {
    if (!(t[i] & (ES | CS))) continue;
    const before = t[i - 1];
    if (before === t[i + 1] && (t[i] === ES ? before === EN : before & (EN | AN))) t[i] = before;
  }
  // W5: terminators next to European numbers are European numbers.
  for (let i = 0; i < n; i++) {
    if (t[i] !== EN) continue;
    for (let j = i - 1; j >= 0 && t[j] === ET; j--) t[j] = EN;
    for (i++; i < n && t[i] & (ET | EN); i++) t[i] = EN;
  }
  // W6: other separators and terminators are neutral; W7: European numbers after L text are L.
  for (let i = 0; i < n; i++) if (t[i] & (ET | ES | CS)) t[i] = ON;
  for (let i = 0, strong = sos; i < n; i++) {
    if (t[i] === EN) {
      if (strong === L) t[i] = L;
    } else if (t[i] & (L | R)) strong = t[i];
  }
  // N1, N2: a run of neutrals takes the direction of the text around it when both sides agree
  // (numbers count as R), else the paragraph's.
  const side = (type: number): number => (type & (R | EN | AN) ? R : L);
  for (let i = 0; i < n; i++) {
    if (!(t[i] & (WS | ON))) continue;
    let j = i;
    while (j + 1 < n && t[j + 1] & (WS | ON)) j++;
    const before = i > 0 ? side(t[i - 1]) : sos;
    const after = j + 1 < n ? side(t[j + 1]) : sos;
    const direction = before === after ? before : sos;
    for (let k = i; k <= j; k++) t[k] = direction;
    i = j;
  }
  // I1, I2: levels from the resolved types.
  const levels = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (level === 1) levels[i] = t[i] & (L | EN | AN) ? 2 : 1;
    else levels[i] = t[i] === R ? 1 : t[i] & (AN | EN) ? 2 : 0;
  }
  // L1: whitespace at the paragraph's end at the paragraph's level.
  for (let i = n - 1; i >= 0 && typeOf(text.charCodeAt(i)) === WS; i--) levels[i] = level;
  return { levels, level };
}

function byBidiJs(text: string, direction?: "ltr" | "rtl"): { levels: Uint8Array; level: number } {
  bidi ??= bidiFactory();
  const result = bidi.getEmbeddingLevels(text, direction);
  return { levels: result.levels, level: result.paragraphs[0]?.level ?? 0 };
}
