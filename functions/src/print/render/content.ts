// Content-stream operators: numbers as a content stream writes them, and the text-showing operators
// of a line of shaped glyphs (fonts by resource name, positions, marked content for its language and
// for clusters that need ActualText). The drawing stage (draw.ts) places them on pages.

import type { DocumentFonts } from "./fontUse";
import { pieceLanguage } from "./language";
import type { Line } from "./text/paragraph";
import type { Glyph } from "./text/shape";

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

/** Opens a marked-content sequence (BDC) with the element's next MCID and `properties`; tagged /Span when `span`. */
export type MarkOpener = (properties: string, span: boolean) => string;

/**
 * Text-showing operators for a line at the current text position (inside BT/ET): per piece a font,
 * then TJ arrays whose numbers move each glyph to where the shaper placed it (its width in /W is
 * the font's advance; kerning, marks and joins differ from it) and Ts for marks set above or below.
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
export function lineOperators(fonts: DocumentFonts, line: Line, size: number, mark?: MarkOpener): string {
  let out = "";
  // The properties the next operators need, and those of the sequence open (undefined: none open).
  let wanted = "";
  let open: string | undefined;
  const enter = (): void => {
    if (!mark || open === wanted) return;
    if (open !== undefined) out += "EMC ";
    // poppler reads ActualText on a Span only: such a sequence is a Span, its MCID the element's all the same.
    out += `${mark(wanted, wanted.includes("/ActualText"))} `;
    open = wanted;
  };
  for (const piece of line.pieces) {
    const use = fonts.use(piece.face);
    const glyphs = piece.glyphs;
    const language = mark && fonts.language ? (use.language ?? pieceLanguage(piece, fonts.language)) : undefined;
    let languageProperty = language?.property ?? "";
    wanted = languageProperty;
    out += `/${use.resource} ${num(size)} Tf `;
    let array = "";
    let hex = "";
    // Positions in thousandths of an em from the piece's start: the pen (advances so far) and the
    // text position after the last glyph shown (its drawn position plus its /W width).
    let pen = 0;
    let at = 0;
    const moveTo = (x: number): void => {
      const d = at - x; // a TJ number: positive moves left
      at = x;
      if (Math.abs(d) < 0.05) return;
      if (hex) array += `<${hex}>`;
      hex = "";
      array += ` ${Math.round(d * 10) / 10} `;
    };
    const flush = (): void => {
      if (hex) array += `<${hex}>`;
      hex = "";
      if (array) {
        enter();
        out += `[${array}] TJ `;
      }
      array = "";
    };
    const show = (g: Glyph, x: number, text: string): void => {
      moveTo(x + g.dx);
      if (g.dy !== 0) {
        flush();
        enter();
        out += `${num((g.dy * size) / 1000)} Ts [<${use.code(g.gid, text)}>] TJ 0 Ts `;
      } else {
        hex += use.code(g.gid, text);
      }
      at += g.face.advance(g.gid);
    };
    for (let i = 0; i < glyphs.length; ) {
      let j = i + 1;
      while (j < glyphs.length && glyphs[j].cluster === glyphs[i].cluster) j++;
      if (language?.words) {
        // A Greek or Cyrillic word in a Latin piece: a sequence of its own language.
        const c = glyphs[i].cluster;
        const property = language.words.find((w) => c >= w.start && c < w.end)?.property ?? language.property;
        if (property !== languageProperty) {
          flush();
          languageProperty = property;
          wanted = property;
        }
      }
      // Extractors read a right-to-left glyph's text backwards with the rest of its line: a cluster of
      // several characters (a letter and its vowel mark) is stored reversed so that it reads forwards.
      const logical = piece.source.text.slice(glyphs[i].cluster, glyphs[i].clusterEnd);
      const text = piece.rtl && logical.length > 1 ? [...logical].reverse().join("") : logical;
      let advancing = 0;
      let carrier = -1;
      for (let k = i; k < j; k++) {
        if (glyphs[k].adv > 0) {
          advancing++;
          if (carrier < 0) carrier = k;
        }
      }
      if (advancing <= 1) {
        // A glyph, or a base with marks (Arabic dots, Thai tone marks): the text goes with the base.
        if (carrier < 0) carrier = i;
        for (let k = i; k < j; k++) {
          show(glyphs[k], pen, k === carrier ? text : "");
          pen += glyphs[k].adv;
        }
      } else {
        // Several glyphs side by side, maybe reordered (Indic vowel signs and conjuncts): ActualText
        // gives the text in logical order.
        moveTo(pen + glyphs[i].dx);
        flush();
        const actualText = `/ActualText <FEFF${utf16Hex(text)}>`;
        // A sequence of its own, even after an identical cluster (its ActualText would stand for both).
        const close = (): void => {
          if (open !== undefined) out += "EMC ";
          open = undefined;
        };
        if (mark) {
          close();
          wanted = `${languageProperty}${actualText}`;
        } else out += `/Span <<${actualText}>> BDC `;
        // The cluster's text also goes with its first glyph (its other glyphs stand for nothing), for
        // readers of the structure, which ignore ActualText (poppler's), and PDF.js.
        for (let k = i; k < j; k++) {
          show(glyphs[k], pen, k === i ? text : "");
          pen += glyphs[k].adv;
        }
        flush();
        if (mark) {
          close();
          wanted = languageProperty;
        } else out += "EMC ";
      }
      i = j;
    }
    moveTo(pen);
    flush();
  }
  if (open !== undefined) out += "EMC ";
  return out;
}
