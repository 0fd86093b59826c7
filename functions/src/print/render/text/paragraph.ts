// One paragraph of text (no line breaks in it) through the text stage:
//   clean -> pick a font per grapheme -> bidi levels (UAX #9) -> runs of one font and level ->
//   shape each run -> break opportunities (UAX #14) -> lines of a width, each in visual order.
// Shaping happens once per paragraph; wrapping to any width afterwards only measures.

import { LayoutLimitExceeded } from "../layoutLimit";
import { embeddingLevels } from "./bidi";
import { BIDI_CONTROLS, HAS_BIDI_CONTROL } from "./bidiControls";
import { markBreaks } from "./breaks";
import { getFace, type Face } from "./fonts";
import { fontChain, scriptOf, type HanStyle } from "./scripts";
import { isIgnorable, shapeRun, type GlyphStore } from "./shape";

/** What a document's text shares: its language (Han forms, shaping), direction, and what could not print. */
export interface TextContext {
  readonly han: HanStyle;
  /** BCP 47 language for the shaper (e.g. "ja", "ar", "en"). */
  readonly language: string;
  /** The document's direction: the direction of text that has no strong character of its own. */
  readonly rtl: boolean;
  /** Characters no font has, printed as U+FFFD (counted per document, for the log). */
  missing: number;
  /** Explicit bidi controls removed from the document's text (counted, for the log). */
  bidiControls: number;
  /**
   * Runs (one font, one direction) the document may still shape, of `maxRuns`: each costs a shaping
   * call, a piece per line and a font switch in the PDF whatever its length, so text whose font or
   * direction changes at every character costs several times what plain text does (issue 38, F1).
   */
  runsLeft: number;
  readonly maxRuns: number;
  /** Where the document's glyphs are shaped into. */
  readonly glyphs: GlyphStore;
  /** Where its paragraphs keep what they know per character. */
  readonly chars: CharStore;
}

/** In a CharStore's flags: a grapheme cluster starts at the character. */
const CLUSTER_START = 1;
/** In a CharStore's flags: a line may start at the character (UAX #14). */
const BREAK = 2;

/**
 * What a document's paragraphs know per character, one paragraph after another (a paragraph holds
 * where its own begin): its cluster's advance (1/1000 em; 0 inside a cluster) and flags. Arrays of
 * their own were three typed arrays a paragraph, a table cell's, kept alive until the table is drawn:
 * most of what the garbage collector copied in a long table.
 */
export class CharStore {
  advance = new Float64Array(1024);
  flags = new Uint8Array(1024);
  length = 0;

  /** Room for `n` characters, cleared; returns where they start. */
  take(n: number): number {
    const at = this.length;
    if (at + n > this.flags.length) {
      const size = Math.max(this.flags.length * 2, at + n);
      const advance = new Float64Array(size);
      advance.set(this.advance.subarray(0, at));
      const flags = new Uint8Array(size);
      flags.set(this.flags.subarray(0, at));
      this.advance = advance;
      this.flags = flags;
    } else {
      this.advance.fill(0, at, at + n);
      this.flags.fill(0, at, at + n);
    }
    this.length = at + n;
    return at;
  }
}

/**
 * What the pieces of one paragraph share: its text, and one object per paragraph, so that what the
 * PDF stage finds in the text (language.ts: where its Greek words and its kana are) is found once per
 * paragraph rather than once per piece.
 */
export interface PieceSource {
  /** The paragraph's text, which the pieces' glyph clusters index. */
  readonly text: string;
  /** Can the text hold Greek or Cyrillic letters? false: it holds none (the Latin fast path's test said so). */
  readonly greekOrCyrillic: boolean;
}

/** Glyphs of one face and direction inside a line, in visual order: [start, end) of the document's glyph store. */
export interface Piece {
  readonly face: Face;
  readonly rtl: boolean;
  readonly glyphs: GlyphStore;
  readonly start: number;
  readonly end: number;
  readonly source: PieceSource;
}

/** A line: its pieces in visual order (left to right), its width in 1/1000 em, and its paragraph's direction. */
export interface Line {
  readonly pieces: readonly Piece[];
  readonly width: number;
  readonly rtl: boolean;
  /** The paragraph's text and where this line starts in it. */
  readonly text: string;
  readonly start: number;
}

/** A run of one face and level: text [start, end), its glyphs [first, last) of the glyph store, in visual order. */
interface Run {
  start: number;
  end: number;
  level: number;
  face: Face;
  first: number;
  last: number;
}

const REPLACEMENT = "\ufffd";
const SOFT_HYPHEN = 0xad;
/** Right-to-left letters, and the mark that makes text run right to left (RLM; the explicit controls are gone: cleanText). */
const RTL_CHARS = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u{10800}-\u{10fff}\u{1e800}-\u{1efff}\u200f]/u;
/** Plain Latin text's characters (ASCII, Latin-1 and Latin Extended, general punctuation, the euro), as ranges. */
const SIMPLE_LATIN_RANGES: readonly [number, number][] = [[0x20, 0x7e], [0xa0, 0x2ff], [0x2010, 0x2027], [0x2030, 0x205e], [0x20ac, 0x20ac]];
/** Text of only these characters (all in the Basic Multilingual Plane). */
const onlyIn = (ranges: readonly [number, number][]): RegExp => {
  const unit = (cp: number): string => `\\u${cp.toString(16).padStart(4, "0")}`;
  return new RegExp(`^[${ranges.map(([from, to]) => `${unit(from)}-${unit(to)}`).join("")}]*$`);
};
/** SIMPLE_LATIN with Greek and Cyrillic. */
const SIMPLE = onlyIn([...SIMPLE_LATIN_RANGES, [0x370, 0x3ff], [0x400, 0x4ff]]);
/** Most text, tested first (it also tells pieceLanguage that a paragraph has neither Greek nor Cyrillic). */
const SIMPLE_LATIN = onlyIn(SIMPLE_LATIN_RANGES);
const STRONG = /[\p{L}]/u;
let graphemes: Intl.Segmenter | undefined;

/**
 * Tabs as spaces; control characters and unpaired surrogates as U+FFFD; explicit bidi embeddings,
 * overrides and isolates removed (counted in `removed.bidiControls`: bidiControls.ts says why);
 * composed (NFC); no grapheme cluster longer than MAX_CLUSTER code points.
 */
export function cleanText(text: string, removed?: { bidiControls: number }): string {
  // Already clean: no controls, nothing to compose (no marks), nothing ill-formed (tested on every such character).
  if (SIMPLE_LATIN.test(text)) return text;
  let visible = text;
  if (HAS_BIDI_CONTROL.test(text)) {
    visible = text.replace(BIDI_CONTROLS, "");
    if (removed) removed.bidiControls += text.length - visible.length;
  }
  const clean = visible
    .toWellFormed()
    .replace(/\t/g, " ")
    // eslint-disable-next-line no-control-regex -- control characters are what this replaces
    .replace(/[\x00-\x1f\x7f-\x9f]/g, REPLACEMENT)
    .normalize("NFC");
  return clean.length > MAX_CLUSTER && LONG_EXTENSION.test(clean) ? boundClusters(clean) : clean;
}

/**
 * Code points one grapheme cluster may hold. Unicode's longest emoji sequence has 10, and no script
 * stacks more than a handful of marks; UAX #15's stream-safe format draws the line at 30 marks. Text
 * past it (a "Zalgo" flood of marks, a chain of emoji joined by ZWJ) would be one cluster, which a line
 * cannot break, a ToUnicode entry cannot hold (512 bytes) and a reader cannot read.
 */
const MAX_CLUSTER = 32;
/** A run of characters that may all extend one cluster (marks, joiners, emoji, jamo, tags): maybe too long. */
const LONG_EXTENSION = /(?:[\p{M}\p{Extended_Pictographic}\p{Emoji_Modifier}\u1100-\u11ff\ud7b0-\ud7ff]|\u200c|\u200d|[\u{e0020}-\u{e007f}]){32,}/u;

/** Cuts every grapheme cluster into pieces of at most MAX_CLUSTER code points with zero-width spaces (a cluster break, printed as nothing). */
function boundClusters(text: string): string {
  graphemes ??= new Intl.Segmenter("en", { granularity: "grapheme" });
  let out = "";
  for (const { segment } of graphemes.segment(text)) {
    if (segment.length <= MAX_CLUSTER) {
      out += segment;
      continue;
    }
    const codePoints = [...segment];
    for (let i = 0; i < codePoints.length; ) {
      // After a joiner where there is one (a ZWJ chain parts between its emoji, not between an emoji and its skin tone).
      // Searched within this piece only: lastIndexOf from its end back to the cluster's start made a
      // flood of 100,000 marks quadratic (2 s; 524,000 of them 32 s).
      let end = Math.min(i + MAX_CLUSTER, codePoints.length);
      let joiner = end - 1;
      while (joiner > i && codePoints[joiner] !== "\u200d") joiner--;
      if (end < codePoints.length && joiner > i) end = joiner + 1;
      out += (i > 0 ? "\u200b" : "") + codePoints.slice(i, end).join("");
      i = end;
    }
  }
  return out;
}

export class Paragraph {
  readonly text: string;
  readonly rtl: boolean;
  private readonly glyphs: GlyphStore;
  /** Its pieces' source. */
  private readonly source: PieceSource;
  private readonly runs: Run[];
  /** Its characters' advances and flags: at `at` and after in the document's store. */
  private readonly chars: CharStore;
  private readonly at: number;

  constructor(raw: string, bold: boolean, ctx: TextContext) {
    const cleaned = cleanText(raw, ctx);
    const latin = getFace("latin", bold);
    let text: string;
    let faceAt: Face[];
    let greekOrCyrillic: boolean;
    const simpleLatin = SIMPLE_LATIN.test(cleaned);
    if ((simpleLatin && hasSimpleLatin(latin)) || ((simpleLatin || SIMPLE.test(cleaned)) && covers(latin, cleaned))) {
      text = cleaned;
      faceAt = [];
      greekOrCyrillic = !simpleLatin;
    } else {
      greekOrCyrillic = true;
      ({ text, faceAt } = pickFonts(cleaned, bold, ctx));
    }
    this.text = text;
    this.glyphs = ctx.glyphs;
    this.source = { text, greekOrCyrillic };
    const n = text.length;

    // Bidi levels, only where right-to-left text or a right-to-left document can need them.
    let levels: Uint8Array | undefined;
    let baseLevel = 0;
    if (RTL_CHARS.test(text) || ctx.rtl) {
      ({ levels, level: baseLevel } = embeddingLevels(text, STRONG.test(text) ? undefined : ctx.rtl ? "rtl" : "ltr"));
    }
    this.rtl = baseLevel % 2 === 1;

    // Runs: one face and one level each.
    this.runs = [];
    for (let i = 0; i < n; ) {
      const face = faceAt[i] ?? latin;
      const level = levels ? levels[i] : 0;
      let j = i + 1;
      while (j < n && (faceAt[j] ?? latin) === face && (levels ? levels[j] : 0) === level) j++;
      if (--ctx.runsLeft < 0) throw new LayoutLimitExceeded("runs", ctx.maxRuns);
      const first = shapeRun(ctx.glyphs, text, i, j, face, level % 2 === 1, ctx.language);
      this.runs.push({ start: i, end: j, level, face, first, last: ctx.glyphs.length });
      i = j;
    }

    // One past the end: a line's end may be looked up there.
    const chars = ctx.chars;
    const at = chars.take(n + 1);
    this.chars = chars;
    this.at = at;
    const { advance, flags } = chars;
    const { advances, clusters } = ctx.glyphs;
    for (const run of this.runs) {
      for (let g = run.first; g < run.last; g++) {
        advance[at + clusters[g]] += advances[g];
        flags[at + clusters[g]] |= CLUSTER_START;
      }
    }
    markBreaks(text, flags, at, BREAK);
  }

  /** The paragraph as a list of one: a text without line breaks (DocumentText.paragraphs), made once. */
  get alone(): readonly Paragraph[] {
    this.list ??= [this];
    return this.list;
  }
  private list?: readonly Paragraph[];

  /** Width of the whole paragraph on one line (1/1000 em). */
  get width(): number {
    this.measured ??= this.measureWidth();
    return this.measured;
  }
  private measured?: number;

  private measureWidth(): number {
    const { advance } = this.chars;
    let w = 0;
    for (let i = this.at, end = this.at + this.text.length; i < end; i++) w += advance[i];
    return w;
  }

  /** Width of the widest piece between two break opportunities: the narrowest this paragraph can wrap without cutting. */
  get longestWord(): number {
    this.longest ??= this.measureLongestWord();
    return this.longest;
  }
  private longest?: number;

  private measureLongestWord(): number {
    const { advance, flags } = this.chars;
    const at = this.at;
    let longest = 0;
    let w = 0;
    for (let i = 0; i < this.text.length; i++) {
      if (flags[at + i] & BREAK) w = 0;
      if (this.text.charCodeAt(i) === 0x20) continue;
      w += advance[at + i];
      if (w > longest) longest = w;
    }
    return longest;
  }

  /**
   * Lines at most `max` wide (1/1000 em), greedily: each breaks at the last opportunity that fits;
   * spaces at a line's end hang and are dropped; a word wider than a line is cut between clusters.
   * Every line holds at least one cluster, so any width terminates. The lines are the paragraph's
   * own, read only: the last width's are kept, since a document's paragraphs are shared by text
   * (DocumentText.paragraph) and a table column wraps its repeated values to one width.
   */
  wrap(max: number): readonly Line[] {
    if (this.wrappedMax !== max || !this.wrapped) {
      this.wrapped = this.wrapLines(max);
      this.wrappedMax = max;
    }
    return this.wrapped;
  }
  private wrapped?: readonly Line[];
  private wrappedMax = 0;

  private wrapLines(max: number): Line[] {
    const n = this.text.length;
    if (n === 0) return [{ pieces: [], width: 0, rtl: this.rtl, text: this.text, start: 0 }];
    const { advance, flags } = this.chars;
    const at = this.at;
    const lines: Line[] = [];
    let start = 0;
    while (start < n) {
      let width = 0;
      let lastBreak = -1;
      let seenInk = false;
      let i = start;
      for (; i < n; i++) {
        const flag = flags[at + i];
        if (!(flag & CLUSTER_START)) continue;
        if (this.text.charCodeAt(i) === 0x20) {
          width += advance[at + i];
          continue;
        }
        // After a soft hyphen, a break shows a hyphen: it must fit too.
        if (flag & BREAK && seenInk && (this.text.charCodeAt(i - 1) !== SOFT_HYPHEN || width + this.hyphenAt(i - 1).advance <= max)) lastBreak = i;
        if (seenInk && width + advance[at + i] > max) break;
        width += advance[at + i];
        seenInk = true;
      }
      const end = i >= n ? n : lastBreak > start ? lastBreak : i;
      // Only a break shows a soft hyphen; a cut where nothing fits shows none, as anywhere in a word.
      lines.push(this.line(start, end, end === lastBreak && this.text.charCodeAt(end - 1) === SOFT_HYPHEN));
      start = end;
      while (start < n && this.text.charCodeAt(start) === 0x20) start++;
    }
    return lines;
  }

  /** The paragraph on one line, cut with `ellipsis` when wider than `max` (1/1000 em). */
  fit(max: number, ellipsis: Paragraph): Line {
    if (this.width <= max) return this.line(0, this.text.length);
    const room = max - ellipsis.width;
    const { advance, flags } = this.chars;
    const at = this.at;
    let w = 0;
    let end = 0;
    for (let i = 0; i < this.text.length; i++) {
      if (!(flags[at + i] & CLUSTER_START)) continue;
      if (w + advance[at + i] > room) break;
      w += advance[at + i];
      end = i + 1;
      while (end < this.text.length && !(flags[at + end] & CLUSTER_START)) end++;
    }
    const cut = this.line(0, end);
    const tail = ellipsis.line(0, ellipsis.text.length);
    const pieces = this.rtl ? [...tail.pieces, ...cut.pieces] : [...cut.pieces, ...tail.pieces];
    return { pieces, width: cut.width + tail.width, rtl: this.rtl, text: this.text, start: 0 };
  }

  /** The index of the run that holds text index i: the first that ends after it (binary search; runs.length past the text). */
  private runIndex(i: number): number {
    let lo = 0;
    let hi = this.runs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.runs[mid].end <= i) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The hyphen a soft hyphen at index i shows at a line's end, in its run's face (else the Latin one's). */
  private hyphenAt(i: number): { face: Face; gid: number; advance: number } {
    let face = this.runs[this.runIndex(i)].face;
    let g = face.glyph(0x2010) ?? face.glyph(0x2d);
    if (!g) {
      face = getFace("latin", face.bold);
      g = face.glyph(0x2010)!;
    }
    return { face, gid: g.gid, advance: g.adv };
  }

  /** The glyphs of `run` whose clusters lie in text[start, end), as a piece (none when there are none). */
  private runPiece(run: Run, start: number, end: number): Piece | undefined {
    let from = run.first;
    let to = run.last;
    if (run.start < start || run.end > end) [from, to] = sliceRun(this.glyphs, run, start, end);
    return to > from ? { face: run.face, rtl: run.level % 2 === 1, glyphs: this.glyphs, start: from, end: to, source: this.source } : undefined;
  }

  /**
   * The line of text[start, end): trailing spaces dropped, pieces reordered visually (UAX #9, L2).
   * `hyphenate`: the line ends at a soft hyphen, drawn as a hyphen that stands for it.
   */
  private line(start: number, end: number, hyphenate = false): Line {
    while (end > start && this.text.charCodeAt(end - 1) === 0x20) end--;
    const hyphen = hyphenate ? this.hyphenAt(end - 1) : undefined;
    if (hyphenate) end--;
    let width = hyphen?.advance ?? 0;
    const { advance } = this.chars;
    for (let i = this.at + start, last = this.at + end; i < last; i++) width += advance[i];
    // The pieces, and their bidi levels apart (no object per piece around it: a line is made for
    // every line of every cell, and those were a fifth of a long table's garbage).
    const first = this.runIndex(start);
    if (!hyphen && first < this.runs.length && this.runs[first].end >= end) {
      // Within one run (most lines): one piece, nothing to reorder.
      const piece = this.runPiece(this.runs[first], start, end);
      return { pieces: piece ? [piece] : [], width, rtl: this.rtl, text: this.text, start };
    }
    const pieces: Piece[] = [];
    const levels: number[] = [];
    // Runs are in text order: from the one that holds `start` to the last that begins before `end`.
    for (let r = first; r < this.runs.length && this.runs[r].start < end; r++) {
      const piece = this.runPiece(this.runs[r], start, end);
      if (!piece) continue;
      pieces.push(piece);
      levels.push(this.runs[r].level);
    }
    if (hyphen) {
      const level = this.runs[this.runIndex(end)].level;
      const at = this.glyphs.push(hyphen.gid, hyphen.advance, 0, 0, end, end + 1);
      pieces.push({ face: hyphen.face, rtl: level % 2 === 1, glyphs: this.glyphs, start: at, end: at + 1, source: this.source });
      levels.push(level);
    }
    let maxLevel = 0;
    let minOdd = Infinity;
    for (const level of levels) {
      if (level > maxLevel) maxLevel = level;
      if (level % 2 === 1 && level < minOdd) minOdd = level;
    }
    // Reversed in place: a line of zero-width characters can hold any number of pieces, and a
    // spread of them into splice's arguments would overflow the stack.
    for (let level = maxLevel; level >= minOdd; level--) {
      for (let i = 0; i < pieces.length; ) {
        if (levels[i] < level) {
          i++;
          continue;
        }
        let j = i;
        while (j < pieces.length && levels[j] >= level) j++;
        for (let a = i, b = j - 1; a < b; a++, b--) {
          const swap = pieces[a];
          pieces[a] = pieces[b];
          pieces[b] = swap;
          const swapLevel = levels[a];
          levels[a] = levels[b];
          levels[b] = swapLevel;
        }
        i = j;
      }
    }
    return { pieces, width, rtl: this.rtl, text: this.text, start };
  }
}

/**
 * The glyphs of a run whose clusters lie in [start, end): a contiguous stretch [from, to), found by
 * binary search (clusters ascend in a left-to-right run, descend in a right-to-left one), so that
 * cutting a long paragraph into lines stays linear.
 */
function sliceRun(glyphs: GlyphStore, run: Run, start: number, end: number): [from: number, to: number] {
  const clusters = glyphs.clusters;
  const rtl = run.level % 2 === 1;
  // The first index whose cluster is at or past `at` in the run's visual order.
  const firstFrom = (at: number): number => {
    let lo = run.first;
    let hi = run.last;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (rtl ? clusters[mid] >= at : clusters[mid] < at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return rtl ? [firstFrom(end), firstFrom(start)] : [firstFrom(start), firstFrom(end)];
}

/** Faces that have every character SIMPLE_LATIN admits: found once per face, not a paragraph at a time. */
const simpleLatinFaces = new Map<Face, boolean>();

function hasSimpleLatin(face: Face): boolean {
  let has = simpleLatinFaces.get(face);
  if (has === undefined) {
    has = true;
    for (const [from, to] of SIMPLE_LATIN_RANGES) for (let cp = from; has && cp <= to; cp++) has = face.has(cp) || isIgnorable(cp);
    simpleLatinFaces.set(face, has);
  }
  return has;
}

/** Does the face have every character of the text (ignorables aside)? */
function covers(face: Face, text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i)!;
    if (cp > 0xffff) i++;
    if (!face.has(cp) && !isIgnorable(cp)) return false;
  }
  return true;
}

/** Characters that join the one before into a grapheme cluster (marks, joiners, modifiers, flags, jamo). */
const EXTENDS = /\p{M}|\u200d|[\u{1f3fb}-\u{1f3ff}\u{1f1e6}-\u{1f1ff}\u1160-\u11ff\ud7b0-\ud7ff\u{e0020}-\u{e007f}]/u;

/**
 * What makes a grapheme cluster anything but a character and the nonspacing or enclosing marks after
 * it (UAX #29): spacing marks, controls and format characters, emoji and their modifiers, regional
 * indicators, and any script but those listed (Hangul's syllables; the prepended characters and the
 * viramas that join consonants, rule GB9c, of more scripts with each Unicode version). Text without
 * any of them is clustered by marksEnd.
 */
export const OTHER_CLUSTER_RULES =
  /[\p{Mc}\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}\u0e33\uff9e\uff9f]|[^\p{sc=Zyyy}\p{sc=Zinh}\p{sc=Latn}\p{sc=Grek}\p{sc=Cyrl}\p{sc=Armn}\p{sc=Hebr}\p{sc=Arab}\p{sc=Thai}\p{sc=Hira}\p{sc=Kana}\p{sc=Hani}]/u;
const MARK_AT = /[\p{Mn}\p{Me}]+/uy;

/** Where the marks that follow text index `i` end (i itself when none does). */
export function marksEnd(text: string, i: number): number {
  MARK_AT.lastIndex = i;
  return MARK_AT.test(text) ? MARK_AT.lastIndex : i;
}

function pickFonts(input: string, bold: boolean, ctx: TextContext): { text: string; faceAt: Face[] } {
  const faceAt: Face[] = [];
  let previous: Face | undefined;
  // The text with U+FFFD for what no font has, made only once something is replaced (else the input).
  let replaced: string | undefined;
  const pick = (segment: string | undefined, cp: number, at: number, length: number): void => {
    let face = faceFor(segment, cp, previous, bold, ctx);
    if (face) {
      if (replaced !== undefined) replaced += segment ?? String.fromCodePoint(cp);
    } else {
      face = getFace("latin", bold);
      replaced = (replaced ?? input.slice(0, at)) + REPLACEMENT;
      ctx.missing++;
    }
    // The face of each UTF-16 unit of the text so far.
    const textLength = replaced === undefined ? at + length : replaced.length;
    while (faceAt.length < textLength) faceAt.push(face);
    previous = face;
  };
  if (!EXTENDS.test(input)) {
    // Code point by code point: nothing extends a character (faster than ICU's segmenter).
    for (let i = 0; i < input.length; ) {
      const cp = input.codePointAt(i)!;
      const length = cp > 0xffff ? 2 : 1;
      pick(undefined, cp, i, length);
      i += length;
    }
  } else if (!OTHER_CLUSTER_RULES.test(input)) {
    // Clusters of a character and its marks: the same as ICU's segmenter gives for such text (tested),
    // at a twentieth of its time (it was a tenth of a long Arabic render).
    for (let i = 0; i < input.length; ) {
      const cp = input.codePointAt(i)!;
      const length = cp > 0xffff ? 2 : 1;
      const end = marksEnd(input, i + length);
      pick(end === i + length ? undefined : input.slice(i, end), cp, i, end - i);
      i = end;
    }
  } else {
    graphemes ??= new Intl.Segmenter("en", { granularity: "grapheme" });
    // One at a time: an array of a long paragraph's segments was a sixteenth of a long Khmer render.
    for (const { segment, index } of graphemes.segment(input)) pick(segment, segment.codePointAt(0)!, index, segment.length);
  }
  return { text: replaced ?? input, faceAt };
}

/**
 * A grapheme's face (`segment`, or the code point `cp` alone when undefined): the preceding
 * grapheme's face for punctuation, digits and marks when it has them, else the first face of the
 * script's chain that has every character; undefined when none has.
 */
function faceFor(segment: string | undefined, cp: number, previous: Face | undefined, bold: boolean, ctx: TextContext): Face | undefined {
  const cls = scriptOf(cp);
  // Spaces and punctuation after an emoji go back to the text font (the emoji font's are wider).
  const follows = cls === "common" || cls === "inherited" || isIgnorable(cp);
  if (previous && follows && (previous.family !== "emoji" || cls === "emoji") && hasGrapheme(previous, segment, cp)) return previous;
  for (const family of fontChain(cls, cp, ctx.han)) {
    const candidate = getFace(family, bold);
    if (hasGrapheme(candidate, segment, cp)) return candidate;
  }
  return undefined;
}

/** Does the face have the grapheme (`segment`, or the code point `cp` alone when undefined)? */
function hasGrapheme(face: Face, segment: string | undefined, cp: number): boolean {
  return segment === undefined ? face.has(cp) || isIgnorable(cp) : covers(face, segment);
}
