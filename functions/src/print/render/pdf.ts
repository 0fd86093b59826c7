// PDF assembly on pdf-lib's object model: pages whose content streams the layout wrote, and the
// subset fonts they use, embedded here rather than through pdf-lib's embedFont and fontkit (see
// ttf.ts for why).
//
// Everything is deterministic: object order follows the layout, subset tags and the file ID are
// hashes of the content, dates come from the caller, and pdf-lib writes nothing time- or random-based
// when created with updateMetadata: false (its random-suffix generator is seeded and unused here).

import { createHash } from "node:crypto";
import { deflateSync } from "node:zlib";
import { PDFDocument, PDFHexString, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFString, type PDFContext } from "pdf-lib";
import { COMPRESS_FROM_BYTES, PackedObjects, writeInt, writePdfFile, writeRef, writeText } from "./file";
import type { Structure } from "./tags";
import { SCRIPT_FAMILIES, SCRIPT_FONTS, type Face, type Family } from "./text/fonts";
import { HAN_LANGUAGE } from "./text/scripts";
import type { Line, Piece, PieceSource } from "./text/paragraph";
import type { Glyph } from "./text/shape";
import type { PreparedImage } from "./types";

export const PRODUCER = "Print renderer (pdf-lib 1.17, HarfBuzz, Noto fonts)";

/**
 * A stream's data and its filter. Streams under 1 KiB stay uncompressed: each deflate call costs
 * about 25 µs whatever the size (measured), a document of many scripts has dozens of small ToUnicode
 * maps and subsets, and compressing one saves a few hundred bytes.
 */
function streamOf(context: PDFContext, bytes: Uint8Array, dict: Record<string, number | string | PDFRef> = {}, level = 6): PDFRawStream {
  if (bytes.length < COMPRESS_FROM_BYTES) return PDFRawStream.of(context.obj(dict), bytes);
  return PDFRawStream.of(context.obj({ ...dict, Filter: "FlateDecode" }), deflateSync(bytes, { level }));
}

/**
 * Deflate level of content streams. Their operators repeat (marked-content sequences, colours, text
 * positions) and make zlib's lazy matching of levels 5 and 6 search long chains: the one-page case's
 * 12 KB took 70 µs at level 6 and 32 µs at level 3 in a loop, 75 µs apart inside a render, for 2.3 KB
 * deflated instead of 2.0 (measured); level 3 is the knee. Font programs stay at level 6 (streamOf).
 */
const CONTENT_LEVEL = 3;

const HEX = "0123456789abcdef";
const hex4 = (n: number): string => HEX[(n >> 12) & 15] + HEX[(n >> 8) & 15] + HEX[(n >> 4) & 15] + HEX[n & 15];

/** UTF-16BE hex of a string (a PDF text string's bytes without the FEFF mark). */
function utf16Hex(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) out += hex4(text.charCodeAt(i));
  return out;
}

/** A number for a content stream: at most two decimals, never exponent notation. */
export function num(v: number): string {
  const r = Math.round(v * 100) / 100;
  return Object.is(r, -0) ? "0" : String(r);
}

/** One face as used by one document: the glyphs it needs, renumbered for the subset, and their text. */
export class FontUse {
  readonly face: Face;
  /** Resource name in the page's /Font dictionary, e.g. "F1". */
  readonly resource: string;
  /** gid -> its first CID and the text it stands for; `others` holds copies of the glyph for other texts */
  private readonly byGid = new Map<number, { text: string; code: string; others?: Map<string, string> }>();
  /** CID -> glyph id in the full font (CID 0 is .notdef) */
  private readonly gids: number[] = [0];
  /** CID -> the text the glyph stands for (ToUnicode); "" for the other glyphs of a cluster */
  private readonly unicode: string[] = [""];

  constructor(
    face: Face,
    resource: string,
    /** What marks its runs in the document when the face alone decides it (faceLanguage); undefined: the text decides, or untagged. */
    readonly language?: PieceLanguage,
  ) {
    this.face = face;
    this.resource = resource;
  }

  /**
   * The 2-byte CID (hex, Identity-H) of a glyph that stands for `text`. ToUnicode holds one text per
   * code, so a glyph that stands for several texts (an Arabic letter form shared by letters that
   * differ only in their dots, say) gets a code, and a copy in the subset, for each.
   */
  code(gid: number, text: string): string {
    const entry = this.byGid.get(gid);
    if (!entry) {
      const code = this.newCode(gid, text);
      this.byGid.set(gid, { text, code });
      return code;
    }
    if (entry.text === text) return entry.code;
    entry.others ??= new Map();
    let code = entry.others.get(text);
    if (code === undefined) {
      code = this.newCode(gid, text);
      entry.others.set(text, code);
    }
    return code;
  }

  private newCode(gid: number, text: string): string {
    const cid = this.gids.length;
    this.gids.push(gid);
    this.unicode.push(text);
    return hex4(cid);
  }

  get used(): boolean {
    return this.gids.length > 1;
  }

  /** Writes the Type0 font, its CIDFontType2, descriptor, subset font file and ToUnicode map. */
  embed(context: PDFContext, ref: PDFRef): void {
    const { face } = this;
    const source = face.source;
    const metrics = source.metrics;
    const scale = face.scale;
    const fontFile = source.subset(this.gids);

    // A subset tag of six capitals, derived from the glyphs it holds (same glyphs -> same tag).
    const tagHash = createHash("md5").update(face.postscriptName).update(this.gids.join(",")).digest();
    let tag = "";
    for (let i = 0; i < 6; i++) tag += String.fromCharCode(65 + (tagHash[i] % 26));
    const baseFont = `${tag}+${face.postscriptName}`;

    const widths = this.gids.map((gid) => face.advance(gid));

    const fontFileRef = context.register(
      streamOf(context, fontFile, { Length1: fontFile.length }),
    );
    const bbox = metrics.bbox;
    const isBold = /bold/i.test(face.postscriptName);
    const descriptorRef = context.register(
      context.obj({
        Type: "FontDescriptor",
        FontName: baseFont,
        Flags: 4 | (isBold ? 1 << 18 : 0), // symbolic (glyphs addressed by CID), force bold
        FontBBox: [bbox.minX * scale, bbox.minY * scale, bbox.maxX * scale, bbox.maxY * scale].map(Math.round),
        ItalicAngle: metrics.italicAngle,
        Ascent: Math.round(metrics.ascent * scale),
        Descent: Math.round(metrics.descent * scale),
        CapHeight: Math.round(metrics.capHeight * scale),
        StemV: isBold ? 140 : 80,
        FontFile2: fontFileRef,
      }),
    );
    const cidFontRef = context.register(
      context.obj({
        Type: "Font",
        Subtype: "CIDFontType2",
        BaseFont: baseFont,
        CIDSystemInfo: { Registry: PDFString.of("Adobe"), Ordering: PDFString.of("Identity"), Supplement: 0 },
        FontDescriptor: descriptorRef,
        DW: 1000,
        W: [0, widths],
        CIDToGIDMap: "Identity",
      }),
    );
    const toUnicodeRef = context.register(
      streamOf(context, Buffer.from(this.toUnicodeCMap(), "latin1")),
    );
    context.assign(
      ref,
      context.obj({
        Type: "Font",
        Subtype: "Type0",
        BaseFont: baseFont,
        Encoding: "Identity-H",
        DescendantFonts: [cidFontRef],
        ToUnicode: toUnicodeRef,
      }),
    );
  }

  private toUnicodeCMap(): string {
    const entries: string[] = [];
    for (let cid = 1; cid < this.unicode.length; cid++) entries.push(`<${hex4(cid)}> <${utf16Hex(this.unicode[cid])}>`);
    const blocks: string[] = [];
    for (let i = 0; i < entries.length; i += 100) {
      const chunk = entries.slice(i, i + 100);
      blocks.push(`${chunk.length} beginbfchar\n${chunk.join("\n")}\nendbfchar`);
    }
    return [
      "/CIDInit /ProcSet findresource begin",
      "12 dict begin",
      "begincmap",
      "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
      "/CMapName /Adobe-Identity-UCS def",
      "/CMapType 2 def",
      "1 begincodespacerange",
      "<0000> <FFFF>",
      "endcodespacerange",
      ...blocks,
      "endcmap",
      "CMapName currentdict /CMap defineresource pop",
      "end",
      "end",
    ].join("\n");
  }
}

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
interface DocumentLanguage {
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
interface PieceLanguage {
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
function faceLanguage(family: Family, document: DocumentLanguage): PieceLanguage | undefined {
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
function pieceLanguage(piece: Piece, document: DocumentLanguage): PieceLanguage {
  // Most pieces: Latin letters in a paragraph without a Greek or Cyrillic one (the text stage knows it of most).
  if (piece.face.family === "latin" && !piece.source.greekOrCyrillic) return document.latin;
  // The piece's text: its clusters' range.
  const glyphs = piece.glyphs;
  const first = glyphs[0];
  const last = glyphs[glyphs.length - 1];
  const from = Math.min(first.cluster, last.cluster);
  const to = first.cluster <= last.cluster ? last.clusterEnd : first.clusterEnd;
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

/** The faces one document uses, each with its resource name (F1, F2, ... in order of first use). */
export class DocumentFonts {
  private readonly uses = new Map<Face, FontUse>();
  /** The document's language (pieceLanguage); none: runs in other languages are not marked (untagged). */
  readonly language: DocumentLanguage | undefined = undefined;

  constructor(language?: string) {
    if (!language) return;
    const primary = language.split("-")[0].toLowerCase();
    const script = scriptOfLanguage(language);
    const latin = langProperty(script === "Latn" ? language : "en", { language, primary });
    this.language = { language, primary, script, primaryScript: scriptOfLanguage(primary), latin: latin ? { property: latin } : DOCUMENT_LANGUAGE };
  }

  use(face: Face): FontUse {
    let use = this.uses.get(face);
    if (!use) {
      use = new FontUse(face, `F${this.uses.size + 1}`, this.language && faceLanguage(face.family, this.language));
      this.uses.set(face, use);
    }
    return use;
  }

  get all(): FontUse[] {
    return [...this.uses.values()];
  }
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

/** The pictures one document shows, each embedded once however often it is drawn (Im1, Im2, ...). */
export class DocumentImages {
  private readonly uses = new Map<PreparedImage, string>();

  /** The picture's resource name, registering it on first use. */
  use(image: PreparedImage): string {
    let name = this.uses.get(image);
    if (!name) {
      name = `Im${this.uses.size + 1}`;
      this.uses.set(image, name);
    }
    return name;
  }

  /** Writes every picture as an image XObject (a JPEG as it is; pixels compressed, alpha as a soft mask). */
  embed(context: PDFContext): Record<string, PDFRef> {
    const refs: Record<string, PDFRef> = {};
    for (const [image, name] of this.uses) {
      const colorSpace = image.channels === 3 ? "DeviceRGB" : "DeviceGray";
      const dict = { Type: "XObject", Subtype: "Image", Width: image.width, Height: image.height, ColorSpace: colorSpace, BitsPerComponent: 8 };
      if (image.format === "jpeg") {
        refs[name] = context.register(PDFRawStream.of(context.obj({ ...dict, Filter: "DCTDecode" }), image.bytes));
        continue;
      }
      const mask = image.alpha
        ? context.register(streamOf(context, image.alpha, { Type: "XObject", Subtype: "Image", Width: image.width, Height: image.height, ColorSpace: "DeviceGray", BitsPerComponent: 8 }))
        : undefined;
      refs[name] = context.register(streamOf(context, image.pixels, { ...dict, ...(mask && { SMask: mask }) }));
    }
    return refs;
  }

  get count(): number {
    return this.uses.size;
  }
}

export interface PdfMetadata {
  title: string;
  subject: string;
  keywords: string[];
  date: Date;
  /** BCP 47 language of the document (/Lang). */
  language: string;
}

/** Names the tagged catalog and pages use, made once (pdf-lib decodes a name on every PDFName.of). */
const NAMES = {
  StructParents: PDFName.of("StructParents"),
  Tabs: PDFName.of("Tabs"),
  S: PDFName.of("S"),
  StructTreeRoot: PDFName.of("StructTreeRoot"),
  MarkInfo: PDFName.of("MarkInfo"),
  Metadata: PDFName.of("Metadata"),
};

/** A PDF text string of any text: UTF-16BE in hex. */
const textString = (text: string): string => `<FEFF${utf16Hex(text)}>`;

/**
 * The structure tree (ISO 32000-1, 14.7): the root, an element per structure element (its kids:
 * child elements and marked content, by MCID on the element's page, or as a marked-content reference
 * on another page) and the ParentTree (per page, the element of each MCID). The elements (one per
 * table cell: 20,000 in the benchmark's 2,000-row table) are written as bytes under object numbers
 * reserved here, for the file writer: far faster than as pdf-lib objects.
 */
function writeStructure(context: PDFContext, structure: Structure, pageRefs: readonly PDFRef[], out: PackedObjects): PDFRef {
  const root = context.nextRef();
  const base = context.largestObjectNumber + 1;
  const { types, parents, extras, kidCounts, firstKids, firstPages, kids, kidPages, nextKids, marks } = structure;
  const count = structure.count;
  context.largestObjectNumber += count + 1; // the elements, then the ParentTree
  const pages = pageRefs.map((r) => `${r.objectNumber} 0 R`);
  const rootNumber = root.objectNumber;
  // The constant runs of bytes are stored one by one (their text in the comment above them): a call
  // per run (PackedObjects.text) took half again the time of the whole loop (measured: 15 µs against
  // 10 µs for the one-page case's 105 elements, in a loop; a table can have 20,000).
  for (let i = 0; i < count; i++) {
    const type = types[i];
    const kidCount = kidCounts[i];
    const extra = extras[i];
    const altText = extra?.alt === undefined ? undefined : textString(extra.alt);
    const replacement = extra?.actualText === undefined ? undefined : textString(extra.actualText);
    // Room: the keys, numbers of 10 digits at most, a marked-content reference per kid at most, the texts.
    out.begin(base + i, 160 + kidCount * 64 + (altText?.length ?? 0) + (replacement?.length ?? 0));
    const b = out.bytesOut;
    let at = out.position;
    // <</S/type/P parent 0 R  (Type is optional: 16 bytes less per element, 20,000 in a large table)
    b[at] = 0x3c; b[at + 1] = 0x3c; b[at + 2] = 0x2f; b[at + 3] = 0x53; b[at + 4] = 0x2f;
    at = writeText(b, at + 5, type);
    b[at] = 0x2f; b[at + 1] = 0x50; b[at + 2] = 0x20;
    at = writeRef(b, at + 3, parents[i] < 0 ? rootNumber : base + parents[i]);
    // /Pg page: the page of its first marked content, which MCIDs of that page need no more.
    const page = firstPages[i];
    if (page >= 0) {
      b[at] = 0x2f; b[at + 1] = 0x50; b[at + 2] = 0x67; b[at + 3] = 0x20;
      at = writeText(b, at + 4, pages[page]);
    }
    // /K kid, or /K [kid kid ...]
    b[at] = 0x2f; b[at + 1] = 0x4b; b[at + 2] = 0x20;
    at += 3;
    if (kidCount !== 1) b[at++] = 0x5b;
    for (let kid = firstKids[i]; kid >= 0; kid = nextKids[kid]) {
      const value = kids[kid];
      if (kid !== firstKids[i]) b[at++] = 0x20;
      if (value >= 0) at = writeRef(b, at, base + value);
      else if (kidPages[kid] === page) at = writeInt(b, at, -1 - value);
      else {
        // <</Type/MCR/Pg page/MCID n>>: marked content on another page than the element's first.
        at = writeText(b, writeText(b, at, "<</Type/MCR/Pg "), pages[kidPages[kid]]);
        at = writeText(b, writeInt(b, writeText(b, at, "/MCID "), -1 - value), ">>");
      }
    }
    if (kidCount !== 1) b[at++] = 0x5d;
    if (altText !== undefined) at = writeText(b, writeText(b, at, "/Alt "), altText);
    if (replacement !== undefined) at = writeText(b, writeText(b, at, "/ActualText "), replacement);
    if (extra?.scope) at = writeText(b, at, `/A<</O/Table/Scope/${extra.scope}>>`);
    else if (type === "L") at = writeText(b, at, "/A<</O/List/ListNumbering/None>>");
    b[at] = 0x3e; b[at + 1] = 0x3e;
    out.end(at + 2);
  }
  // The ParentTree: <</Nums [page [element element ...] page [...] ...]>>, an element per MCID (room:
  // 16 bytes a page and a reference, whose numbers take 10 digits at most: writeInt's 32-bit range).
  let mcids = 0;
  for (const elementsOfPage of marks) mcids += elementsOfPage.length;
  out.begin(base + count, 16 + marks.length * 16 + mcids * 16);
  const b = out.bytesOut;
  let at = writeText(b, out.position, "<</Nums [");
  for (let page = 0; page < marks.length; page++) {
    const elementsOfPage = marks[page];
    if (page > 0) b[at++] = 0x20;
    at = writeText(b, writeInt(b, at, page), " [");
    for (let mcid = 0; mcid < elementsOfPage.length; mcid++) {
      if (mcid > 0) b[at++] = 0x20;
      at = writeRef(b, at, base + elementsOfPage[mcid]);
    }
    b[at++] = 0x5d;
  }
  out.end(writeText(b, at, "]>>"));
  out.begin(root.objectNumber, 160);
  out.text("<</Type/StructTreeRoot/K ").ref(base).text("/ParentTree ").ref(base + count).text("/ParentTreeNextKey ").int(pageRefs.length).text(">>").end();
  return root;
}

const XML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
const xml = (s: string): string => (/[&<>"]/.test(s) ? s.replace(/[&<>"]/g, (c) => XML_ESCAPES[c]) : s);

/**
 * Text of the document information and of the XMP packet alike (PDF/A and PDF/UA want them equal, and
 * XML has no control characters): line breaks and tabs as a space, other control characters as U+FFFD,
 * as the page prints them.
 */
export const informationText = (s: string): string =>
  // eslint-disable-next-line no-control-regex -- control characters are what this replaces
  s.toWellFormed().replace(/[\t\n\r\u0085\u2028\u2029]+/g, " ").replace(/[\x00-\x1f\x7f-\x9f]/g, "\ufffd");

/** The XMP packet's first line: its begin attribute is a byte order mark, kept out of the text, which it would make two bytes a character throughout (encoding that took 3.7 times the instructions, measured). */
const XPACKET_BEGIN = Buffer.from(`<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>\n`, "utf8");
const XMP_HEAD =
  `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` +
  `<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:pdf="http://ns.adobe.com/pdf/1.3/" xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/"`;
const PDFA_NAMESPACES = ` xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#"`;
/** PDF/A admits only the schemas it predefines, and those an extension schema describes: pdfuaid. */
const PDFA_CLAIM =
  `<pdfaid:part>2</pdfaid:part><pdfaid:conformance>U</pdfaid:conformance>` +
  `<pdfaExtension:schemas><rdf:Bag><rdf:li rdf:parseType="Resource"><pdfaSchema:schema>PDF/UA Universal Accessibility Schema</pdfaSchema:schema>` +
  `<pdfaSchema:namespaceURI>http://www.aiim.org/pdfua/ns/id/</pdfaSchema:namespaceURI><pdfaSchema:prefix>pdfuaid</pdfaSchema:prefix>` +
  `<pdfaSchema:property><rdf:Seq><rdf:li rdf:parseType="Resource"><pdfaProperty:name>part</pdfaProperty:name><pdfaProperty:valueType>Integer</pdfaProperty:valueType>` +
  `<pdfaProperty:category>internal</pdfaProperty:category><pdfaProperty:description>Indicates, which part of ISO 14289 standard is followed</pdfaProperty:description></rdf:li></rdf:Seq></pdfaSchema:property>` +
  `</rdf:li></rdf:Bag></pdfaExtension:schemas>`;
const XMP_PRODUCER = `<pdf:Producer>${xml(PRODUCER)}</pdf:Producer><xmp:CreatorTool>${xml(PRODUCER)}</xmp:CreatorTool>`;

/** The XMP metadata packet: the document information again (PDF/UA and PDF/A ask for both, equal), and the conformance it claims (PDF/UA-1 when tagged). */
export function xmpMetadata(meta: PdfMetadata, tagged: boolean, pdfA: boolean): Buffer {
  const date = meta.date.toISOString().replace(/\.\d{3}Z$/, "Z");
  const packet =
    XMP_HEAD +
    (pdfA ? PDFA_NAMESPACES : "") +
    `><dc:format>application/pdf</dc:format>` +
    `<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${xml(meta.title)}</rdf:li></rdf:Alt></dc:title>` +
    `<dc:description><rdf:Alt><rdf:li xml:lang="x-default">${xml(meta.subject)}</rdf:li></rdf:Alt></dc:description>` +
    `<dc:language><rdf:Bag><rdf:li>${xml(meta.language)}</rdf:li></rdf:Bag></dc:language>` +
    `<pdf:Keywords>${xml(meta.keywords.join(" "))}</pdf:Keywords>${XMP_PRODUCER}` +
    `<xmp:CreateDate>${date}</xmp:CreateDate><xmp:ModifyDate>${date}</xmp:ModifyDate>` +
    (tagged ? `<pdfuaid:part>1</pdfuaid:part>` : "") +
    (pdfA ? PDFA_CLAIM : "") +
    `</rdf:Description></rdf:RDF></x:xmpmeta>\n<?xpacket end="w"?>`;
  return Buffer.concat([XPACKET_BEGIN, Buffer.from(packet, "utf8")]);
}

/**
 * Builds the file: one page per content string (all `width` x `height`), sharing one resource
 * dictionary with the given fonts.
 */
export async function assemblePdf(
  width: number,
  height: number,
  pageContents: readonly string[],
  fonts: readonly FontUse[],
  metadata: PdfMetadata,
  images?: DocumentImages,
  structure?: Structure,
  outputIntent?: { profile: Uint8Array; name: string },
): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const context = doc.context;
  const meta = { ...metadata, title: informationText(metadata.title), subject: informationText(metadata.subject), keywords: metadata.keywords.map(informationText) };

  const used = fonts.filter((f) => f.used);
  const fontRefs = used.map(() => context.nextRef());
  const fontDict: Record<string, PDFRef> = {};
  used.forEach((f, i) => (fontDict[f.resource] = fontRefs[i]));
  const xObjects = images?.count ? images.embed(context) : undefined;
  const resourcesRef = context.register(
    context.obj({ Font: fontDict, ...(xObjects && { XObject: xObjects }), ProcSet: xObjects ? ["PDF", "Text", "ImageB", "ImageC"] : ["PDF", "Text"] }),
  );

  const idHash = createHash("md5");
  const pageRefs: PDFRef[] = [];
  pageContents.forEach((content, i) => {
    const page = doc.addPage([width, height]);
    pageRefs.push(page.ref);
    const stream = streamOf(context, Buffer.from(content, "latin1"), {}, CONTENT_LEVEL);
    // The page as stored: deflated, about a fifth of the bytes to hash, and as telling.
    idHash.update(stream.getContents());
    const contentRef = context.register(stream);
    page.node.set(PDFName.of("Resources"), resourcesRef);
    page.node.set(PDFName.of("Contents"), contentRef);
    if (structure) {
      // Its key in the ParentTree, and the tab order of the structure (PDF/UA).
      page.node.set(NAMES.StructParents, PDFNumber.of(i));
      page.node.set(NAMES.Tabs, NAMES.S);
    }
  });
  for (let i = 0; i < used.length; i++) used[i].embed(context, fontRefs[i]);

  doc.setTitle(meta.title, { showInWindowTitleBar: true });
  doc.setSubject(meta.subject);
  doc.setKeywords(meta.keywords);
  doc.setProducer(PRODUCER);
  doc.setCreator(PRODUCER);
  doc.setCreationDate(meta.date);
  doc.setModificationDate(meta.date);
  doc.setLanguage(meta.language);
  const packed = new PackedObjects();
  if (structure) {
    const catalog = doc.catalog;
    catalog.set(NAMES.StructTreeRoot, writeStructure(context, structure, pageRefs, packed));
    catalog.set(NAMES.MarkInfo, context.obj({ Marked: true }));
  }
  // Uncompressed, as PDF/A wants it (and a reader of the file can find it). Untagged output (the
  // benchmark's measure of tagging) has it too, without the PDF/UA claim: metadata is not tagging, and
  // Typst's untagged PDF, the reference of that measure, carries its XMP packet as well.
  doc.catalog.set(NAMES.Metadata, context.register(PDFRawStream.of(context.obj({ Type: "Metadata", Subtype: "XML" }), xmpMetadata(meta, structure !== undefined, outputIntent !== undefined))));
  if (outputIntent) {
    const profile = context.register(streamOf(context, outputIntent.profile, { N: 3 }));
    doc.catalog.set(
      PDFName.of("OutputIntents"),
      context.obj([{ Type: "OutputIntent", S: "GTS_PDFA1", OutputConditionIdentifier: PDFString.of(outputIntent.name), Info: PDFString.of(outputIntent.name), DestOutputProfile: profile }]),
    );
  }

  // The file identifier (two equal hashes for a new file): from the content and the metadata.
  idHash.update(JSON.stringify([meta.title, meta.subject, meta.keywords, meta.date.toISOString(), meta.language]));
  const id = PDFHexString.of(idHash.digest("hex"));
  context.trailerInfo.ID = context.obj([id, id]);

  await doc.flush();
  return writePdfFile(context, packed);
}
