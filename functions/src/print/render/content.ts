// Content-stream operators: numbers as a content stream writes them, and the text-showing operators
// of a line of shaped glyphs (fonts by resource name, positions, marked content for its language and
// for clusters that need ActualText). The drawing stage (draw.ts) places them on pages.

import type { DocumentFonts, FontUse } from "./fontUse";
import { pieceLanguage } from "./language";
import type { Face } from "./text/fonts";
import type { Line, Piece } from "./text/paragraph";

const HEX = "0123456789abcdef";
export const hex4 = (n: number): string => HEX[(n >> 12) & 15] + HEX[(n >> 8) & 15] + HEX[(n >> 4) & 15] + HEX[n & 15];

/** UTF-16BE hex of a string (a PDF text string's bytes without the FEFF mark). */
export function utf16Hex(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) out += hex4(text.charCodeAt(i));
  return out;
}

/** A number for a content stream: at most two decimals, never exponent notation. */
export function num(v: number): string {
  const r = Math.round(v * 100) / 100;
  return Object.is(r, -0) ? "0" : String(r);
}

/** The parts of the graphics state that ContentBytes keeps: fill and stroke colours (PDF operands), line width, font (resource name and size). */
export interface GraphicsState {
  fillColor?: string;
  strokeColor?: string;
  lineWidth?: number;
  fontResource?: string;
  fontSize?: number;
}

/** Whole numbers written digit by digit (below this; String() writes the rest, as it writes every number this writes). */
const DIGITS_UP_TO = 1e15;

/**
 * A content stream as it is written: bytes into one growing buffer, numbers as digits without a
 * string (a page's operators as strings were one per operator, joined and encoded at the end: a
 * twentieth of a long render, and much of its garbage). Operators are written in entries, separated
 * by line breaks (what the drawing stage calls an operator of the page: a line of text, a rule).
 */
export class ContentBytes {
  bytes: Uint8Array;
  length = 0;
  /** Entries begun so far. */
  entries = 0;
  /**
   * The graphics state the operators so far leave, where the drawing stage knows it (a part absent:
   * unknown): a colour, line width or font already in force is not written again (a table's rules
   * and lines are most of a long document's operators). Bytes copied in leave it unknown; a writer
   * of q ... Q puts back what it was before the q.
   */
  state: GraphicsState = {};

  constructor(size = 4096) {
    this.bytes = new Uint8Array(size);
  }

  /** Room for `n` more bytes (every writer below makes its own). */
  room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + n));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  /** Begins an entry: a line break after the one before. */
  entry(): this {
    if (this.entries++ > 0) this.byte(0x0a);
    return this;
  }

  byte(b: number): this {
    if (this.length === this.bytes.length) this.room(1);
    this.bytes[this.length++] = b;
    return this;
  }

  /** Text of Latin-1 characters (operators, names, text strings in hex). */
  text(s: string): this {
    this.room(s.length);
    const bytes = this.bytes;
    let at = this.length;
    for (let i = 0; i < s.length; i++) bytes[at++] = s.charCodeAt(i);
    this.length = at;
    return this;
  }

  /** Bytes as they are (the graphics state they leave unknown). */
  copy(b: Uint8Array): this {
    this.state = {};
    this.room(b.length);
    this.bytes.set(b, this.length);
    this.length += b.length;
    return this;
  }

  /** A whole number from 0 (an MCID). */
  int(v: number): this {
    return this.fixed(v, 1, 0);
  }

  /** A number with at most two decimals, as `num` writes it. */
  num(v: number): this {
    return this.fixed(Math.round(v * 100), 100, 2);
  }

  /** A number with at most one decimal, as String(Math.round(v * 10) / 10) writes it (TJ positions). */
  tenths(v: number): this {
    return this.fixed(Math.round(v * 10), 10, 1);
  }

  /**
   * A 2-byte character code in a literal string: its bytes as they are (half a hex string's), but
   * for those a literal string escapes: parentheses, the backslash, and line ends (a reader would
   * read CR as LF).
   */
  code(n: number): this {
    this.room(4);
    this.codeByte(n >> 8);
    this.codeByte(n & 0xff);
    return this;
  }

  private codeByte(c: number): void {
    const b = this.bytes;
    if (c === 0x28 || c === 0x29 || c === 0x5c) {
      b[this.length++] = 0x5c;
      b[this.length++] = c;
    } else if (c === 0x0a || c === 0x0d) {
      b[this.length++] = 0x5c;
      b[this.length++] = c === 0x0a ? 0x6e : 0x72;
    } else b[this.length++] = c;
  }

  /**
   * `k / scale` (k whole, scale 1, 10 or 100) as String() writes it, trailing zeros and -0 dropped:
   * below 10^13 a double holds k / scale closely enough that its shortest form is that decimal.
   */
  private fixed(k: number, scale: number, decimals: number): this {
    if (!(k > -DIGITS_UP_TO && k < DIGITS_UP_TO)) {
      const r = k / scale;
      return this.text(Object.is(r, -0) ? "0" : String(r));
    }
    this.room(20);
    const b = this.bytes;
    let at = this.length;
    if (k < 0) {
      b[at++] = 0x2d;
      k = -k;
    }
    if (k < 0x7fffffff) {
      // Most numbers on a page (coordinates, sizes, TJ positions): 32-bit integer arithmetic, half the time.
      const whole = (k / scale) | 0;
      if (whole < 10) b[at++] = 0x30 + whole;
      else if (whole < 100) {
        const tens = (whole / 10) | 0;
        b[at++] = 0x30 + tens;
        b[at++] = 0x30 + whole - tens * 10;
      } else {
        let digits = 3;
        for (let w = (whole / 1000) | 0; w > 0; w = (w / 10) | 0) digits++;
        for (let i = at + digits - 1, w = whole; i >= at; i--) {
          const q = (w / 10) | 0;
          b[i] = 0x30 + w - q * 10;
          w = q;
        }
        at += digits;
      }
      const fraction = k - whole * scale;
      if (fraction !== 0) {
        b[at++] = 0x2e;
        if (scale === 10) b[at++] = 0x30 + fraction;
        else {
          const tenths = (fraction / 10) | 0;
          b[at++] = 0x30 + tenths;
          if (fraction !== tenths * 10) b[at++] = 0x30 + fraction - tenths * 10;
        }
      }
      this.length = at;
      return this;
    }
    const whole = Math.floor(k / scale);
    let fraction = k - whole * scale;
    // The whole part's digits, written backwards from where they end.
    let digits = 1;
    for (let w = whole; w >= 10; w = Math.floor(w / 10)) digits++;
    for (let i = at + digits - 1, w = whole; i >= at; i--) {
      const q = Math.floor(w / 10);
      b[i] = 0x30 + w - q * 10;
      w = q;
    }
    at += digits;
    if (fraction > 0) {
      b[at++] = 0x2e;
      for (let d = decimals, unit = scale / 10; d > 0 && fraction > 0; d--, unit /= 10) {
        const digit = Math.floor(fraction / unit);
        b[at++] = 0x30 + digit;
        fraction -= digit * unit;
      }
    }
    this.length = at;
    return this;
  }

  /** The bytes written (a view). */
  get view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

/** Opens a marked-content sequence (BDC) with the element's next MCID and `properties`; tagged /Span when `span`. */
export type MarkOpener = (out: ContentBytes, properties: string, span: boolean) => void;

/**
 * Writes the text-showing operators of a line at the current text position (inside BT/ET): per
 * piece a font, then TJ arrays whose numbers move each glyph to where the shaper placed it (its
 * width in /W is the font's advance; kerning, marks and joins differ from it) and Ts for marks set
 * above or below.
 *
 * Copying and searching give the logical text: a cluster's text goes with its one advancing glyph
 * through ToUnicode (marks stand for nothing), with a code of its own per text when one glyph
 * stands for several (see FontUse.code); a cluster of several glyphs side by side (Indic
 * conjuncts and reordered vowel signs) carries ActualText. Measured with poppler's pdftotext:
 * ActualText around right-to-left clusters makes it split words, ToUnicode does not.
 *
 * `mark`, for a line that is content of a structure element, opens a marked-content sequence with
 * the given extra properties (the caller adds its MCID). The line is then written as sequences one
 * after another, never nested (poppler's structure reader drops the text of a sequence nested in
 * another): a new one where the language changes (/Lang, pieceLanguage) and one per multi-glyph
 * cluster (/ActualText). Without it (artifacts, untagged output) a cluster's ActualText is a span.
 */
export function lineOperators(out: ContentBytes, fonts: DocumentFonts, line: Line, size: number, mark?: MarkOpener): void {
  const w = lineWriter.start(out, size, mark);
  for (const piece of line.pieces) {
    const use = fonts.use(piece.face);
    const language = mark && fonts.language ? (use.language ?? pieceLanguage(piece, fonts.language)) : undefined;
    w.startPiece(use, piece.face);
    let languageProperty = language?.property ?? "";
    w.wanted = languageProperty;
    const { advances, dx, clusters, clusterEnds } = piece.glyphs;
    const source = piece.source.text;
    // Text from the cmap (Latin, CJK) is all plain glyphs: shown in one string, without the cluster loop.
    const plainEnd = piece.rtl || language?.words ? piece.start : w.showPlain(piece);
    for (let i = plainEnd; i < piece.end; ) {
      let j = i + 1;
      while (j < piece.end && clusters[j] === clusters[i]) j++;
      if (language?.words) {
        // A Greek or Cyrillic word in a Latin piece: a sequence of its own language.
        const c = clusters[i];
        let property = language.property;
        for (const word of language.words) {
          if (c >= word.start && c < word.end) {
            property = word.property;
            break;
          }
        }
        if (property !== languageProperty) {
          w.flush();
          languageProperty = property;
          w.wanted = property;
        }
      }
      // Extractors read a right-to-left glyph's text backwards with the rest of its line: a cluster of
      // several characters (a letter and its vowel mark) is stored reversed so that it reads forwards.
      const from = clusters[i];
      const to = clusterEnds[i];
      const reversed = piece.rtl && to - from > 1 ? [...source.slice(from, to)].reverse().join("") : undefined;
      let advancing = 0;
      let carrier = -1;
      for (let k = i; k < j; k++) {
        if (advances[k] > 0) {
          advancing++;
          if (carrier < 0) carrier = k;
        }
      }
      if (advancing <= 1) {
        // A glyph, or a base with marks (Arabic dots, Thai tone marks): the text goes with the base.
        if (carrier < 0) carrier = i;
        for (let k = i; k < j; k++) {
          if (k === carrier) w.show(piece, k, reversed, from, to);
          else w.show(piece, k, "");
          w.pen += advances[k];
        }
      } else {
        // Several glyphs side by side, maybe reordered (Indic vowel signs and conjuncts): ActualText
        // gives the text in logical order.
        w.moveTo(w.pen + dx[i]);
        w.flush();
        const actualText = `/ActualText <FEFF${utf16Hex(reversed ?? source.slice(from, to))}>`;
        // A sequence of its own, even after an identical cluster (its ActualText would stand for both).
        if (mark) {
          w.close();
          w.wanted = `${languageProperty}${actualText}`;
        } else out.text("/Span <<").text(actualText).text(">> BDC ");
        // The cluster's text also goes with its first glyph (its other glyphs stand for nothing), for
        // readers of the structure, which ignore ActualText (poppler's), and PDF.js.
        for (let k = i; k < j; k++) {
          if (k === i) w.show(piece, k, reversed, from, to);
          else w.show(piece, k, "");
          w.pen += advances[k];
        }
        w.flush();
        if (mark) {
          w.close();
          w.wanted = languageProperty;
        } else out.text("EMC ");
      }
      i = j;
    }
    w.moveTo(w.pen);
    w.flush();
  }
  w.close();
  w.release();
}

/** lineOperators' state while it writes a line: the sequence open, the TJ array and string open, the positions. */
class LineWriter {
  /** The properties the next operators need, and those of the sequence open (undefined: none open). */
  wanted = "";
  private open: string | undefined;
  /** A TJ array is open ("[" written, its sequence entered first), and a string of codes in it ("("). */
  private array = false;
  private string = false;
  /**
   * Positions in thousandths of an em from the piece's start: the pen (advances so far) and the
   * text position after the last glyph shown (its drawn position plus its /W width).
   */
  pen = 0;
  private at = 0;
  private use!: FontUse;
  private face!: Face;
  private out!: ContentBytes;
  private size = 0;
  private mark: MarkOpener | undefined;

  /** Ready for a line (one writer serves every line: an object per line was a tenth of what a long table allocated). */
  start(out: ContentBytes, size: number, mark: MarkOpener | undefined): this {
    this.out = out;
    this.size = size;
    this.mark = mark;
    this.wanted = "";
    this.open = undefined;
    this.array = false;
    this.string = false;
    this.pen = 0;
    this.at = 0;
    return this;
  }

  /** Lets go of what the line wrote with (a document's content and fonts are kept no longer than its last line). */
  release(): void {
    this.out = undefined!;
    this.mark = undefined;
    this.use = undefined!;
    this.face = undefined!;
  }

  startPiece(use: FontUse, face: Face): void {
    this.use = use;
    this.face = face;
    this.pen = 0;
    this.at = 0;
    const { state } = this.out;
    if (state.fontResource === use.resource && state.fontSize === this.size) return;
    this.out.byte(0x2f).text(use.resource).byte(0x20).num(this.size).text(" Tf ");
    state.fontResource = use.resource;
    state.fontSize = this.size;
  }

  /** Opens the sequence the operators want, closing the one open. */
  enter(): void {
    if (!this.mark || this.open === this.wanted) return;
    if (this.open !== undefined) this.out.text("EMC ");
    // poppler reads ActualText on a Span only: such a sequence is a Span, its MCID the element's all the same.
    this.mark(this.out, this.wanted, this.wanted.includes("/ActualText"));
    this.out.byte(0x20);
    this.open = this.wanted;
  }

  /** Closes the sequence open, if any. */
  close(): void {
    if (this.open !== undefined) this.out.text("EMC ");
    this.open = undefined;
  }

  private openArray(): void {
    if (this.array) return;
    this.enter();
    this.out.byte(0x5b);
    this.array = true;
  }

  moveTo(x: number): void {
    const d = this.at - x; // a TJ number: positive moves left
    this.at = x;
    if (Math.abs(d) < 0.05) return;
    this.openArray();
    if (this.string) this.out.byte(0x29);
    this.string = false;
    this.out.byte(0x20).tenths(d).byte(0x20);
  }

  flush(): void {
    if (this.string) this.out.byte(0x29);
    this.string = false;
    if (this.array) this.out.text("] TJ ");
    this.array = false;
  }

  /**
   * Shows the piece's glyphs from its start while each is a cluster of its own drawn at its /W width
   * without offsets, as show() would; returns where it stopped (the piece's end, for text from the cmap).
   */
  showPlain(piece: Piece): number {
    const { gids, advances, dx, dy, clusters, clusterEnds } = piece.glyphs;
    const text = piece.source.text;
    const end = piece.end;
    let g = piece.start;
    for (; g < end; g++) {
      const gid = gids[g];
      const advance = advances[g];
      if (dx[g] !== 0 || dy[g] !== 0 || advance !== this.face.advance(gid) || (g + 1 < end && clusters[g + 1] === clusters[g])) break;
      if (!this.string) {
        this.openArray();
        this.out.byte(0x28);
        this.string = true;
      }
      this.out.code(this.use.codeOf(gid, text, clusters[g], clusterEnds[g]));
      this.pen += advance;
    }
    this.at = this.pen;
    return g;
  }

  /** Shows glyph g of the piece at the pen, standing for `text` (the cluster's; "" for none; undefined: source[from, to) as it is). */
  show(piece: Piece, g: number, text: string | undefined, from = 0, to = 0): void {
    const { gids, dx, dy } = piece.glyphs;
    this.moveTo(this.pen + dx[g]);
    const code = text === undefined ? this.use.codeOf(gids[g], piece.source.text, from, to) : this.use.code(gids[g], text);
    if (dy[g] !== 0) {
      this.flush();
      this.enter();
      this.out.num((dy[g] * this.size) / 1000).text(" Ts [(").code(code).text(")] TJ 0 Ts ");
    } else {
      if (!this.string) {
        this.openArray();
        this.out.byte(0x28);
        this.string = true;
      }
      this.out.code(code);
    }
    this.at += this.face.advance(gids[g]);
  }
}

/** The one LineWriter (lineOperators runs a line to its end before the next starts). */
const lineWriter = new LineWriter();
