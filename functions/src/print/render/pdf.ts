// PDF assembly on pdf-lib's object model: pages whose content streams the drawing stage wrote, the
// subset fonts they use (fontUse.ts), embedded rather than through pdf-lib's embedFont and fontkit
// (see ttf.ts for why), pictures, the structure tree (structureTree.ts) and the metadata.
//
// Everything is deterministic: object order follows the layout, subset tags and the file ID are
// hashes of the content, dates come from the caller, and pdf-lib writes nothing time- or random-based
// when created with updateMetadata: false (its random-suffix generator is seeded and unused here).

import { createHash } from "node:crypto";
import { PDFDocument, PDFHexString, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFString, type PDFContext } from "pdf-lib";
import { PackedObjects, streamOf, writePdfFile } from "./file";
import type { FontUse } from "./fontUse";
import { writeStructure } from "./structureTree";
import type { Structure } from "./tags";
import type { PreparedImage } from "./types";

export const PRODUCER = "Print renderer (pdf-lib 1.17, HarfBuzz, Noto fonts)";

/**
 * Deflate level of content streams. Their operators repeat (marked-content sequences, colours, text
 * positions) and make zlib's lazy matching of levels 5 and 6 search long chains: the one-page case's
 * 12 KB took 70 µs at level 6 and 32 µs at level 3 in a loop, 75 µs apart inside a render, for 2.3 KB
 * deflated instead of 2.0 (measured); level 3 is the knee. Font programs stay at level 6 (streamOf).
 */
const CONTENT_LEVEL = 3;

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

const XML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
const xml = (s: string): string => (/[&<>"]/.test(s) ? s.replace(/[&<>"]/g, (c) => XML_ESCAPES[c]) : s);

/**
 * Text of the document information and of the XMP packet alike (PDF/A and PDF/UA want them equal, and
 * XML has no control characters): line breaks and tabs as a space, other control characters as U+FFFD,
 * as the page prints them.
 */
const informationText = (s: string): string =>
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
function xmpMetadata(meta: PdfMetadata, tagged: boolean, pdfA: boolean): Buffer {
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
 * Builds the file: one page per content stream (all `width` x `height`), sharing one resource
 * dictionary with the given fonts.
 */
export async function assemblePdf(
  width: number,
  height: number,
  pageContents: readonly Uint8Array[],
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
    const stream = streamOf(context, content, {}, CONTENT_LEVEL);
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
