// The fonts of one document: each face it uses, the glyphs it needs renumbered for a subset (CIDs)
// and the text each stands for, embedded as a Type0 font with its subset and ToUnicode map.

import { createHash } from "node:crypto";
import { hex4, utf16Hex } from "./content";
import { rawStream, streamData, type StreamData } from "./file";
import { Literal, serialize, Serialized, type PdfObjects, type Ref } from "./objects";
import { documentLanguage, faceLanguage, type DocumentLanguage, type PieceLanguage } from "./language";
import type { Face } from "./text/fonts";

/** A subset as it goes into the file: its tag, its font program (and that program's length) and ToUnicode map, deflated, and its glyphs' widths (/W) as written. */
interface Subset {
  tag: string;
  fontFile: StreamData;
  length1: number;
  toUnicode: StreamData;
  widths: Serialized;
}

/**
 * Subsets made lately, per face, by glyphs and texts: documents of one kind print their labels and
 * headings in the same bold glyphs, and a batch of them would cut and deflate the same subset again
 * for each (about a third of a one-page render). Bounded by the bytes they hold.
 */
const SUBSETS = new Map<string, Subset>();
const SUBSET_CACHE_BYTES = 16 * 1024 * 1024;
let subsetBytes = 0;

const sizeOf = (key: string, s: Subset): number => key.length + s.fontFile.data.length + s.toUnicode.data.length + s.widths.text.length;

/** A subset made, kept while the cache holds it: the least recently used go first. */
function keepSubset(key: string, subset: Subset): void {
  SUBSETS.set(key, subset);
  subsetBytes += sizeOf(key, subset);
  for (const [k, s] of SUBSETS) {
    if (subsetBytes <= SUBSET_CACHE_BYTES) return;
    SUBSETS.delete(k);
    subsetBytes -= sizeOf(k, s);
  }
}

/** One face as used by one document: the glyphs it needs, renumbered for the subset, and their text. */
export class FontUse {
  readonly face: Face;
  /** Resource name in the page's /Font dictionary, e.g. "F1". */
  readonly resource: string;
  /** gid -> its first CID (whose text is unicode[cid]; 0: none yet); `others`: gid -> its copies for other texts, by text */
  private readonly firstCid: Uint16Array;
  private others?: Map<number, Map<string, number>>;
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
    this.firstCid = new Uint16Array(face.source.numGlyphs);
  }

  /**
   * The CID (2 bytes, Identity-H) of a glyph that stands for `text`. ToUnicode holds one text per
   * code, so a glyph that stands for several texts (an Arabic letter form shared by letters that
   * differ only in their dots, say) gets a code, and a copy in the subset, for each.
   */
  code(gid: number, text: string): number {
    const cid = this.firstCid[gid];
    if (!cid) return this.newCode(gid, text);
    return this.unicode[cid] === text ? cid : this.otherCode(gid, text);
  }

  /** `code` of the text source[from, to), read without cutting it out (most glyphs are met again, with their text). */
  codeOf(gid: number, source: string, from: number, to: number): number {
    const cid = this.firstCid[gid];
    if (cid) {
      const text = this.unicode[cid];
      if (text.length === to - from) {
        let same = true;
        for (let i = 0; same && i < text.length; i++) same = text.charCodeAt(i) === source.charCodeAt(from + i);
        if (same) return cid;
      }
    }
    return this.code(gid, source.slice(from, to));
  }

  private otherCode(gid: number, text: string): number {
    this.others ??= new Map();
    let copies = this.others.get(gid);
    if (!copies) this.others.set(gid, (copies = new Map()));
    let cid = copies.get(text);
    if (cid === undefined) {
      cid = this.gids.length;
      this.gids.push(gid);
      this.unicode.push(text);
      copies.set(text, cid);
    }
    return cid;
  }

  private newCode(gid: number, text: string): number {
    const cid = this.gids.length;
    this.gids.push(gid);
    this.unicode.push(text);
    if (gid < this.firstCid.length) this.firstCid[gid] = cid;
    return cid;
  }

  get used(): boolean {
    return this.gids.length > 1;
  }

  /** The subset's tag and streams: made once per face and set of glyphs and texts while they recur (subsetStreams). */
  private subset(): Subset {
    const { face, gids, unicode } = this;
    const glyphs = gids.join(",");
    // Faces are one per family and weight; texts hold no U+0000 (the text stage replaced it).
    const key = `${face.family}:${face.bold ? 1 : 0}\u0000${glyphs}\u0000${unicode.join("\u0000")}`;
    let subset = SUBSETS.get(key);
    if (subset) {
      // Most recently used last.
      SUBSETS.delete(key);
      SUBSETS.set(key, subset);
      return subset;
    }
    const fontFile = face.source.subset(gids);
    // A subset tag of six capitals, derived from the glyphs it holds (same glyphs -> same tag).
    const tagHash = createHash("md5").update(face.postscriptName).update(glyphs).digest();
    let tag = "";
    for (let i = 0; i < 6; i++) tag += String.fromCharCode(65 + (tagHash[i] % 26));
    const widths = new Serialized(serialize([0, gids.map((gid) => face.advance(gid))]));
    subset = { tag, fontFile: streamData(fontFile), length1: fontFile.length, toUnicode: streamData(Buffer.from(this.toUnicodeCMap(), "latin1")), widths };
    keepSubset(key, subset);
    return subset;
  }

  /** Writes the Type0 font, its CIDFontType2, descriptor, subset font file and ToUnicode map. */
  embed(objects: PdfObjects, ref: Ref): void {
    const { face } = this;
    const metrics = face.source.metrics;
    const scale = face.scale;
    const subset = this.subset();
    const baseFont = `${subset.tag}+${face.postscriptName}`;

    const fontFileRef = objects.add(rawStream(subset.fontFile, { Length1: subset.length1 }));
    const bbox = metrics.bbox;
    const isBold = /bold/i.test(face.postscriptName);
    const descriptorRef = objects.add({
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
    });
    const cidFontRef = objects.add({
        Type: "Font",
        Subtype: "CIDFontType2",
        BaseFont: baseFont,
        CIDSystemInfo: { Registry: new Literal("Adobe"), Ordering: new Literal("Identity"), Supplement: 0 },
        FontDescriptor: descriptorRef,
        DW: 1000,
        W: subset.widths,
        CIDToGIDMap: "Identity",
    });
    const toUnicodeRef = objects.add(rawStream(subset.toUnicode));
    objects.set(ref, {
        Type: "Font",
        Subtype: "Type0",
        BaseFont: baseFont,
        Encoding: "Identity-H",
        DescendantFonts: [cidFontRef],
        ToUnicode: toUnicodeRef,
    });
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

/** The faces one document uses, each with its resource name (F1, F2, ... in order of first use). */
export class DocumentFonts {
  private readonly uses = new Map<Face, FontUse>();
  /** The document's language (pieceLanguage); none: runs in other languages are not marked (untagged). */
  readonly language: DocumentLanguage | undefined = undefined;

  constructor(language?: string) {
    if (language) this.language = documentLanguage(language);
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
