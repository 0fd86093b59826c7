// PDF assembly on pdf-lib's object model: pages whose content streams the layout wrote, and the
// subset fonts they use, embedded here rather than through pdf-lib's embedFont and fontkit (see
// ttf.ts for why).
//
// Everything is deterministic: object order follows the layout, subset tags and the file ID are
// hashes of the content, dates come from the caller, and pdf-lib writes nothing time- or random-based
// when created with updateMetadata: false (its random-suffix generator is seeded and unused here).

import { createHash } from "node:crypto";
import { deflateSync } from "node:zlib";
import { PDFDocument, PDFHexString, PDFName, PDFRawStream, PDFString, type PDFContext, type PDFRef } from "pdf-lib";
import type { Face, GlyphRef } from "./fonts";

export const PRODUCER = "Print renderer (pdf-lib 1.17, Noto Sans)";

const deflate = (bytes: Uint8Array): Buffer => deflateSync(bytes, { level: 6 });

const HEX = "0123456789abcdef";
const hex4 = (n: number): string => HEX[(n >> 12) & 15] + HEX[(n >> 8) & 15] + HEX[(n >> 4) & 15] + HEX[n & 15];

/** One face as used by one document: the glyphs it needs, renumbered for the subset. */
export class FontUse {
  readonly face: Face;
  /** Resource name in the page's /Font dictionary, e.g. "F1". */
  readonly resource: string;
  /** gid -> 4-digit hex of its CID (= glyph index in the subset) */
  private readonly codes = new Map<number, string>();
  /** CID -> glyph (CID 0 is .notdef) */
  private readonly byCid: (GlyphRef | undefined)[] = [undefined];
  /** CID -> glyph id in the full font */
  private readonly gids: number[] = [0];

  constructor(face: Face, resource: string) {
    this.face = face;
    this.resource = resource;
  }

  /** The glyphs as a PDF hex string body (2-byte CIDs, Identity-H). */
  encode(glyphs: readonly GlyphRef[]): string {
    let out = "";
    for (let i = 0; i < glyphs.length; i++) {
      const g = glyphs[i];
      let code = this.codes.get(g.gid);
      if (code === undefined) {
        const cid = this.gids.length;
        this.gids.push(g.gid);
        this.byCid[cid] = g;
        code = hex4(cid);
        this.codes.set(g.gid, code);
      }
      out += code;
    }
    return out;
  }

  get used(): boolean {
    return this.codes.size > 0;
  }

  /** Writes the Type0 font, its CIDFontType2, descriptor, subset font file and ToUnicode map. */
  embed(context: PDFContext, ref: PDFRef): void {
    const { face } = this;
    const source = face.source;
    const metrics = source.metrics;
    const scale = face.scale;
    const fontFile = source.subset(this.gids);

    // A subset tag of six capitals, derived from the glyphs it holds (same glyphs -> same tag).
    const tagHash = createHash("md5").update(face.postscriptName).update(Array.from(this.codes.keys()).join(",")).digest();
    let tag = "";
    for (let i = 0; i < 6; i++) tag += String.fromCharCode(65 + (tagHash[i] % 26));
    const baseFont = `${tag}+${face.postscriptName}`;

    const widths: number[] = [Math.round(source.advanceWidth(0) * scale)];
    for (let cid = 1; cid < this.byCid.length; cid++) widths.push(Math.round(this.byCid[cid]?.adv ?? 0));

    const fontFileRef = context.register(
      PDFRawStream.of(context.obj({ Filter: "FlateDecode", Length1: fontFile.length }), deflate(fontFile)),
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
      PDFRawStream.of(context.obj({ Filter: "FlateDecode" }), deflate(Buffer.from(this.toUnicodeCMap(), "latin1"))),
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
    for (let cid = 1; cid < this.byCid.length; cid++) {
      const g = this.byCid[cid];
      if (!g) continue;
      const cp = g.cp;
      const utf16 =
        cp < 0x10000 ? hex4(cp) : hex4(0xd800 + ((cp - 0x10000) >> 10)) + hex4(0xdc00 + ((cp - 0x10000) & 0x3ff));
      entries.push(`<${hex4(cid)}> <${utf16}>`);
    }
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

export interface PdfMetadata {
  title: string;
  subject: string;
  keywords: string[];
  date: Date;
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
  meta: PdfMetadata,
): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const context = doc.context;

  const used = fonts.filter((f) => f.used);
  const fontRefs = used.map(() => context.nextRef());
  const fontDict: Record<string, PDFRef> = {};
  used.forEach((f, i) => (fontDict[f.resource] = fontRefs[i]));
  const resourcesRef = context.register(context.obj({ Font: fontDict, ProcSet: ["PDF", "Text"] }));

  const idHash = createHash("md5");
  for (const content of pageContents) {
    const page = doc.addPage([width, height]);
    const bytes = Buffer.from(content, "latin1");
    idHash.update(bytes);
    const contentRef = context.register(PDFRawStream.of(context.obj({ Filter: "FlateDecode" }), deflate(bytes)));
    page.node.set(PDFName.of("Resources"), resourcesRef);
    page.node.set(PDFName.of("Contents"), contentRef);
  }
  for (let i = 0; i < used.length; i++) used[i].embed(context, fontRefs[i]);

  doc.setTitle(meta.title, { showInWindowTitleBar: true });
  doc.setSubject(meta.subject);
  doc.setKeywords(meta.keywords);
  doc.setProducer(PRODUCER);
  doc.setCreator(PRODUCER);
  doc.setCreationDate(meta.date);
  doc.setModificationDate(meta.date);
  doc.setLanguage("en-GB");

  // The file identifier (two equal hashes for a new file): from the content and the metadata.
  idHash.update(JSON.stringify([meta.title, meta.subject, meta.keywords, meta.date.toISOString()]));
  const id = PDFHexString.of(idHash.digest("hex"));
  context.trailerInfo.ID = context.obj([id, id]);

  return doc.save({ useObjectStreams: false, addDefaultPage: false, objectsPerTick: Infinity, updateFieldAppearances: false });
}
