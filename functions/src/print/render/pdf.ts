// PDF assembly: pages whose content streams the drawing stage wrote, the subset fonts they use
// (fontUse.ts), pictures, the structure tree (structureTree.ts) and the metadata, as the file's objects
// (objects.ts), numbered in the order pdf-lib numbered them when it built these files.
//
// Everything is deterministic: object order follows the layout, subset tags and the file ID are
// hashes of the content, and dates come from the caller.

import { createHash } from "node:crypto";
import { PackedObjects, streamOf, writePdfFile } from "./file";
import type { FontUse } from "./fontUse";
import { Hex, informationText, Literal, pdfDate, PdfObjects, Ref, Stream, type Value } from "./objects";
import { addSignatureField, type SignatureSlots } from "./signature";
import { writeStructure } from "./structureTree";
import type { Structure } from "./tags";
import type { PreparedImage } from "./types";

/** Kept as it was while pdf-lib built the file: it is in every PDF's metadata, and its bytes are pinned. */
export const PRODUCER = "Print renderer (pdf-lib 1.17, HarfBuzz, Noto fonts)";

/**
 * Deflate level of content streams. Their operators repeat (marked-content sequences, colours, text
 * positions) so much that the fastest level finds most of what the others do: paired against level
 * 3, long documents rendered 4-6% faster for 2-3% more bytes (session 19, with glyph codes as bytes
 * in literal strings, which had made the files 1-5% smaller); levels 5 and 6 search long chains in
 * them (the one-page case's content took twice level 3's time at level 6).
 */
const CONTENT_LEVEL = 1;

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
  embed(objects: PdfObjects): Record<string, Ref> {
    const refs: Record<string, Ref> = {};
    for (const [image, name] of this.uses) {
      const colorSpace = image.channels === 3 ? "DeviceRGB" : "DeviceGray";
      const dict = { Type: "XObject", Subtype: "Image", Width: image.width, Height: image.height, ColorSpace: colorSpace, BitsPerComponent: 8 };
      if (image.format === "jpeg") {
        refs[name] = objects.add(new Stream({ ...dict, Filter: "DCTDecode" }, image.bytes));
        continue;
      }
      const mask = image.alpha
        ? objects.add(streamOf(image.alpha, { Type: "XObject", Subtype: "Image", Width: image.width, Height: image.height, ColorSpace: "DeviceGray", BitsPerComponent: 8 }))
        : undefined;
      refs[name] = objects.add(streamOf(image.pixels, { ...dict, SMask: mask }));
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

const XML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
const xml = (s: string): string => (/[&<>"]/.test(s) ? s.replace(/[&<>"]/g, (c) => XML_ESCAPES[c]) : s);

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
 * Builds the file: one page per content stream (all `width` x `height`), sharing one resource
 * dictionary with the given fonts. With `signature`, an invisible signature field on the first page,
 * its placeholders left for fillSignature (signature.ts).
 */
/** What a file may hold besides its pages, fonts and metadata. */
export interface FileParts {
  images?: DocumentImages;
  /** The logical structure (tagged PDF); none: untagged. */
  structure?: Structure;
  /** An sRGB output intent and XMP identification for PDF/A-2u. */
  outputIntent?: { profile: Uint8Array; name: string };
  /** The signature's field and dictionary, filled in once the file is written. */
  signature?: SignatureSlots;
  /** Graphics states the pages name (`/GSw gs`), by resource name: a translucent watermark's. */
  graphicsStates?: Record<string, { ca: number }>;
}

export function assemblePdf(width: number, height: number, pageContents: readonly Uint8Array[], fonts: readonly FontUse[], metadata: PdfMetadata, parts: FileParts = {}): Uint8Array {
  const { images, structure, outputIntent, signature, graphicsStates } = parts;
  const objects = new PdfObjects();
  const meta = { ...metadata, title: informationText(metadata.title), subject: informationText(metadata.subject), keywords: metadata.keywords.map(informationText) };
  const pagesRef = new Ref(objects.reserve());
  const catalogRef = new Ref(objects.reserve());
  // The signature field, merged with its widget: listed by the first page, under a Form element.
  const fieldRef = signature ? new Ref(objects.reserve()) : undefined;
  const fieldAnnotation = signature && structure ? structure.annotate(structure.add("Form"), 0) : undefined;

  const used = fonts.filter((f) => f.used);
  const fontRefs = used.map(() => new Ref(objects.reserve()));
  const fontDict: Record<string, Ref> = {};
  used.forEach((f, i) => (fontDict[f.resource] = fontRefs[i]));
  const xObjects = images?.count ? images.embed(objects) : undefined;
  const extGState = graphicsStates && Object.fromEntries(Object.entries(graphicsStates).map(([name, { ca }]) => [name, { Type: "ExtGState", ca }]));
  const resourcesRef = objects.add({ Font: fontDict, XObject: xObjects, ExtGState: extGState, ProcSet: xObjects ? ["PDF", "Text", "ImageB", "ImageC"] : ["PDF", "Text"] });

  const idHash = createHash("md5");
  const pageRefs: Ref[] = [];
  pageContents.forEach((content, i) => {
    const pageRef = new Ref(objects.reserve());
    pageRefs.push(pageRef);
    const stream = streamOf(content, {}, CONTENT_LEVEL);
    // The page as stored: deflated, about a fifth of the bytes to hash, and as telling.
    idHash.update(stream.data);
    const contentRef = objects.add(stream);
    objects.set(pageRef, {
      Type: "Page",
      Parent: pagesRef,
      Resources: resourcesRef,
      MediaBox: [0, 0, width, height],
      Contents: contentRef,
      // Its key in the ParentTree, and the tab order of the structure (PDF/UA).
      StructParents: structure ? i : undefined,
      Tabs: structure || (fieldRef && i === 0) ? "S" : undefined,
      Annots: fieldRef && i === 0 ? [fieldRef] : undefined,
    });
  });
  objects.set(pagesRef, { Type: "Pages", Kids: pageRefs, Count: pageRefs.length });
  for (let i = 0; i < used.length; i++) used[i].embed(objects, fontRefs[i]);

  const date = pdfDate(meta.date);
  const infoRef = objects.add({
    Title: Hex.ofText(meta.title),
    Subject: Hex.ofText(meta.subject),
    Keywords: Hex.ofText(meta.keywords.join(" ")),
    Producer: Hex.ofText(PRODUCER),
    Creator: Hex.ofText(PRODUCER),
    CreationDate: date,
    ModDate: date,
  });
  const catalog: Record<string, Value> = { Type: "Catalog", Pages: pagesRef, ViewerPreferences: objects.add({ DisplayDocTitle: true }), Lang: new Literal(meta.language) };
  const packed = new PackedObjects();
  if (signature) {
    // The widget's key in the ParentTree follows the pages' (structureTree.ts).
    catalog.AcroForm = addSignatureField(objects, signature, fieldRef!, pageRefs[0], fieldAnnotation === undefined ? undefined : pageRefs.length + fieldAnnotation);
  }
  if (structure) {
    catalog.StructTreeRoot = writeStructure(objects, structure, pageRefs, packed, fieldRef ? [fieldRef] : []);
    catalog.MarkInfo = { Marked: true };
  }
  // Uncompressed, as PDF/A wants it (and a reader of the file can find it). Untagged output (the
  // benchmark's measure of tagging) has it too, without the PDF/UA claim: metadata is not tagging, and
  // Typst's untagged PDF, the reference of that measure, carries its XMP packet as well.
  catalog.Metadata = objects.add(new Stream({ Type: "Metadata", Subtype: "XML" }, xmpMetadata(meta, structure !== undefined, outputIntent !== undefined)));
  if (outputIntent) {
    const profile = objects.add(streamOf(outputIntent.profile, { N: 3 }));
    const name = new Literal(outputIntent.name);
    catalog.OutputIntents = [{ Type: "OutputIntent", S: "GTS_PDFA1", OutputConditionIdentifier: name, Info: name, DestOutputProfile: profile }];
  }
  objects.set(catalogRef, catalog);

  // The file identifier (two equal hashes for a new file): from the content and the metadata.
  idHash.update(JSON.stringify([meta.title, meta.subject, meta.keywords, meta.date.toISOString(), meta.language]));
  return writePdfFile(objects, { root: catalogRef, info: infoRef, id: idHash.digest("hex") }, packed);
}
