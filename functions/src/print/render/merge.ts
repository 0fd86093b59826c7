// Many PDFs of this renderer as one, streamed (issue 34's "merged" print-job output): each document's
// pages from a new page, one top-level bookmark per document, one structure tree (PDF/UA-1), and
// PDF/A-2u when asked.
//
// Why not pdf-lib (PDFDocument.load, copyPages): it holds the whole output in memory (a job is up to
// 10,000 documents; a worker must stay under 512 MiB) and its copyPages drops the structure tree.
// Instead each document is read as file.ts wrote it (written.ts: its cross-reference stream and
// object streams), its objects renumbered into the merged file's numbering as they are copied
// (content, fonts and pictures byte for byte; the other objects through renumberInto, also byte for
// byte but for the numbers), and its bytes handed on before the next document is read. What is kept
// from one document to the next is per document a few numbers (its page tree, its Part element, its
// ParentTree leaf: the roots the merged catalog points to at the end) and its cross-reference entries
// as runs (file.ts CrossReferences: one per stream object and one per object stream, however many
// structure elements they hold), deflated a chunk at a time at the end: memory is bounded by the
// largest document plus some hundred bytes a document of the job (measured: bench/merge.ts). Fonts
// stay per document (subsets of different glyphs: merging them would mean rewriting content streams).
//
// The merged file, for documents D1..Dn:
//   catalog          /Pages, /StructTreeRoot, /Outlines (/PageMode /UseOutlines), /MarkInfo, /Lang,
//                    /ViewerPreferences /DisplayDocTitle, XMP /Metadata, and /OutputIntents for PDF/A
//   page tree        root > each document's own page tree node (its /Parent set) > its pages
//   structure        StructTreeRoot > Document > one Part per document (its Document element, renamed,
//                    with the document's title as /T and its /Lang where it differs) > its elements
//   ParentTree       a number tree: each document's ParentTree is a leaf (/Limits), its keys moved past
//                    the documents before it (and so every /StructParents of its pages)
//   outline          one item per document, to its first page, titled by the document's title

import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { deflateSync } from "node:zlib";
import { PDFHexString, PDFString } from "pdf-lib";
import { CrossReferences, FileBytes, PackedObjects, PDF_HEADER, writeObjectStreams, writeStreamObject, writeUnpackedObject } from "./file";
import { informationText, Ref as ObjectRef, serialize, Stream, streamDict } from "./objects";
import { PRODUCER, xmpMetadata } from "./pdf";
import { SRGB_PROFILE, srgbProfile } from "./profile";
import { EMPTY_APPEARANCE, fillSignature, prepareSignature, signatureAcroForm, signatureDictionary, signatureWidget } from "./signature";
import type { PdfSignatureOptions } from "./types";
import { wordsFor } from "./words";
import { mapReferences, Name, Ref, refOf, renumberInto, serializeValue, textOf, WrittenPdf, type Dict, type Value } from "./written";

/** One document to merge: the renderer's PDF, and its bookmark's title. */
export interface MergeDocument {
  objectInstanceId: string;
  title: string;
  bytes: Uint8Array;
}

export interface MergeOptions {
  /** The merged document's title (shown by viewers: /DisplayDocTitle). */
  title: string;
  subject: string;
  keywords: readonly string[];
  /** Its creation date (a job's creation: the same job merges into the same bytes). */
  date: Date;
  /** Its /Lang; default the first document's. A document of another language says so on its Part. */
  language?: string;
  /** "PDF/A-2u": the merged file claims it too (the renderer's documents differ only by the claim and the output intent, which are the merged file's own). */
  conformance?: string;
  /**
   * Signs the merged file as a whole (PAdES B-B, as the renderer signs one document): an invisible
   * field on the first page, under a Form element of the Document; the signature dictionary is among
   * the last objects, so that every byte streamed out before it is hashed as it goes and the hole is
   * filled before the file's tail is handed on. The documents themselves come unsigned.
   */
  signature?: PdfSignatureOptions;
}

/** Numbers fixed before the first document, because every document's objects point to them. */
const PAGES = 1;
const DOCUMENT = 2;
const OUTLINES = 3;
const FIRST_FREE = 4;

/** Catalog entries of a document that the merge replaces by its own; any other (a form, named destinations) would be lost: refused. */
const CATALOG_KEYS = new Set(["Type", "Pages", "ViewerPreferences", "Lang", "StructTreeRoot", "MarkInfo", "Metadata", "OutputIntents"]);
const STRUCT_TREE_ROOT_KEYS = new Set(["Type", "K", "ParentTree", "ParentTreeNextKey"]);

/**
 * The documents as one PDF, yielded a document at a time: each document is read when the one before
 * has been written and taken (mergedPdfStream pipes it with backpressure).
 * The bytes depend only on the documents and the options. A document that is not this renderer's
 * tagged output fails the merge (a SyntaxError naming it).
 */
export async function* mergePdfs(documents: AsyncIterable<MergeDocument> | Iterable<MergeDocument>, options: MergeOptions): AsyncGenerator<Buffer> {
  const merger = new Merger(options);
  yield merger.take();
  for await (const document of documents) {
    try {
      merger.add(document);
    } catch (error) {
      if (error instanceof SyntaxError || error instanceof RangeError) throw new SyntaxError(`mergePdfs: document ${document.objectInstanceId}: ${error.message}`, { cause: error });
      throw error;
    }
    yield merger.take();
  }
  yield await merger.end();
}

/**
 * mergePdfs as a byte stream to pipe into an upload, buffering one document's bytes at most (object
 * mode would buffer up to 16 while the upload waits): what is read ahead of a slow upload is bounded by
 * the upload's own buffers.
 */
export const mergedPdfStream = (documents: AsyncIterable<MergeDocument> | Iterable<MergeDocument>, options: MergeOptions): Readable =>
  Readable.from(mergePdfs(documents, options), { objectMode: false, highWaterMark: 1 });

/** An outline item written one document late: its /Next is the next document's item. */
interface OutlineItem {
  number: number;
  title: string;
  page: number;
}

class Merger {
  private readonly file = new FileBytes();
  private readonly xref = new CrossReferences();
  private next = FIRST_FREE;
  /** Per document: its page tree node, its Part element, its ParentTree leaf (none without marked content). */
  private readonly pageTrees: number[] = [];
  private readonly parts: number[] = [];
  private readonly parentTrees: number[] = [];
  private pages = 0;
  /** ParentTree keys used so far: the next document's start at this. */
  private keys = 0;
  private language: string | undefined;
  private readonly id = createHash("md5");
  private firstItem = 0;
  private previousItem = 0;
  private pendingItem: OutlineItem | undefined;
  /** Signing: the field's number (the first page lists it before the field is written), 0 otherwise; the page; what was streamed out, hashed. */
  private readonly field: number;
  private signedPage = 0;
  private readonly streamed = { bytes: 0, hash: createHash("sha256") };

  constructor(private readonly options: MergeOptions) {
    this.language = options.language;
    this.field = options.signature ? this.next++ : 0;
    this.file.write(PDF_HEADER);
  }

  /** What was written since the last take (hashed on the way when the file is signed). */
  take(): Buffer {
    const bytes = this.file.take();
    if (this.field) this.streamed.hash.update(bytes);
    this.streamed.bytes += bytes.length;
    return bytes;
  }

  add(document: MergeDocument): void {
    const pdf = new WrittenPdf(Buffer.from(document.bytes.buffer, document.bytes.byteOffset, document.bytes.byteLength));
    const catalogNumber = refOf(pdf.trailer.get("Root"), "/Root");
    const catalog = pdf.dict(catalogNumber, "the catalog");
    for (const key of catalog.keys()) if (!CATALOG_KEYS.has(key)) throw new SyntaxError(`the catalog's /${key} cannot be merged`);
    if (!catalog.has("StructTreeRoot")) throw new SyntaxError("not tagged: a merged PDF is tagged as a whole");
    const rootNumber = refOf(catalog.get("StructTreeRoot"), "/StructTreeRoot");
    const root = pdf.dict(rootNumber, "the StructTreeRoot");
    for (const key of root.keys()) if (!STRUCT_TREE_ROOT_KEYS.has(key)) throw new SyntaxError(`the StructTreeRoot's /${key} cannot be merged`);
    const elementNumber = refOf(root.get("K"), "the StructTreeRoot's /K");
    const element = pdf.dict(elementNumber, "the Document element");
    if (!(element.get("S") instanceof Name) || (element.get("S") as Name).name !== "Document") throw new SyntaxError("the structure tree's top element is not a Document");
    const parentTreeNumber = refOf(root.get("ParentTree"), "/ParentTree");
    const parentTree = pdf.dict(parentTreeNumber, "the ParentTree");
    const nums = (parentTree.get("Nums") as Value[] | undefined) ?? [];
    if (parentTree.has("Kids") || nums.length % 2 !== 0) throw new SyntaxError("the ParentTree is not one node of /Nums");
    const keys = Number(root.get("ParentTreeNextKey") ?? (nums.length > 0 ? Number(nums[nums.length - 2]) + 1 : 0));
    const pagesNumber = refOf(catalog.get("Pages"), "/Pages");
    const language = textOf(catalog.get("Lang"));
    this.language ??= language;

    // Dropped: what the merged file has once (catalog, structure root, information, metadata, output
    // intent), and the file's own framing (object streams and the cross-reference stream, written anew).
    const dropped = new Set([catalogNumber, rootNumber, pdf.xrefNumber, ...pdf.objectStreams]);
    if (nums.length === 0) dropped.add(parentTreeNumber);
    const info = pdf.trailer.get("Info");
    if (info instanceof Ref) dropped.add(info.number);
    for (const key of ["Metadata", "ViewerPreferences"]) {
      const value = catalog.get(key);
      if (value instanceof Ref) dropped.add(value.number);
    }
    for (const intent of (catalog.get("OutputIntents") as Value[] | undefined) ?? []) {
      const profile = intent instanceof Map ? intent.get("DestOutputProfile") : undefined;
      if (profile instanceof Ref) dropped.add(profile.number);
    }
    // New numbers: the streams', then the others' in a row (the object streams they go into: a run of the cross-reference entries each).
    const numbers = new Int32Array(pdf.size).fill(-1);
    for (const packed of [false, true]) for (let n = 1; n < pdf.size; n++) if (pdf.inUse(n) && !dropped.has(n) && pdf.inObjectStream(n) === packed) numbers[n] = this.next++;
    const map = (n: number): number => {
      const mapped = n < numbers.length ? numbers[n] : -1;
      if (mapped < 0) throw new SyntaxError(`a kept object refers to object ${n}, which is not kept`);
      return mapped;
    };

    // Its page tree's node becomes a child of the merged root; its first page is the bookmark's target.
    const pageTree = pdf.dict(pagesNumber, "the page tree");
    if (pageTree.has("Parent")) throw new SyntaxError("/Pages is not the page tree's root");
    let firstPage = pagesNumber;
    for (let node = pageTree; node.get("Type") instanceof Name && (node.get("Type") as Name).name === "Pages"; node = pdf.dict(firstPage, "a page tree node")) {
      firstPage = refOf((node.get("Kids") as Value[] | undefined)?.[0], "the page tree's first kid");
    }
    const part = map(elementNumber);

    const rewritten = new Map<number, Value>([
      [pagesNumber, withEntries(mapReferences(pageTree, map) as Dict, { Parent: new Ref(PAGES) })],
      [
        elementNumber,
        withEntries(mapReferences(element, (n) => (n === rootNumber ? DOCUMENT : map(n))) as Dict, {
          S: new Name("Part"),
          T: PDFHexString.fromText(informationText(document.title || document.objectInstanceId)).toString(),
          ...(language !== undefined && language !== this.language && { Lang: catalog.get("Lang") }),
        }),
      ],
    ]);
    if (this.field && this.parts.length === 0) {
      // The signature's widget on the merged file's first page, which says its tab order follows the structure (PDF/UA-1 7.18.3).
      const page = pdf.dict(firstPage, "the first page");
      const annotations = page.get("Annots") ?? [];
      if (!Array.isArray(annotations)) throw new SyntaxError("the first page's /Annots is not an array");
      rewritten.set(firstPage, withEntries(mapReferences(page, map) as Dict, { Annots: [...(mapReferences(annotations, map) as Value[]), new Ref(this.field)], Tabs: new Name("S") }));
      this.signedPage = map(firstPage);
    }
    if (nums.length > 0) {
      // Keys moved past the documents before; /Limits as a number tree's leaf must have.
      const moved = nums.map((value, i) => (i % 2 === 0 ? String(Number(value) + this.keys) : mapReferences(value, map)));
      rewritten.set(parentTreeNumber, new Map([["Limits", [moved[0], moved[moved.length - 2]]], ["Nums", moved]]));
      this.parentTrees.push(map(parentTreeNumber));
    }

    // Streams written as they come; the other objects packed, then into object streams of their own.
    const packed = new PackedObjects();
    for (let n = 1; n < pdf.size; n++) {
      if (numbers[n] < 0) continue;
      const special = rewritten.get(n);
      if (special) {
        const text = serializeValue(special);
        packed.begin(numbers[n], text.length).text(text).end();
        continue;
      }
      const { source, start, end, data } = pdf.locate(n);
      if (!data !== pdf.inObjectStream(n)) throw new SyntaxError(`object ${n} is at an offset but no stream`);
      if (data) {
        const dict = Buffer.allocUnsafe((end - start) * 3 + 16);
        writeStreamObject(this.file, this.xref, numbers[n], dict.subarray(0, renumberInto(source, start, end, map, this.keys, dict, 0)), data);
        continue;
      }
      packed.begin(numbers[n], (end - start) * 3 + 16);
      packed.end(renumberInto(source, start, end, map, this.keys, packed.bytesOut, packed.position));
    }
    const item: OutlineItem = { number: this.next++, title: document.title || document.objectInstanceId, page: map(firstPage) };
    this.writePendingItem(packed, item.number);
    this.pendingItem = item;
    this.next = writeObjectStreams(this.file, this.xref, packed, 0, packed.count, true, this.next);

    this.pageTrees.push(map(pagesNumber));
    this.parts.push(part);
    this.pages += Number(pageTree.get("Count") ?? 0);
    this.keys += keys;
    this.id.update(serializeValue(pdf.trailer.get("ID") ?? document.objectInstanceId));
  }

  /** The previous document's outline item, now that the next one's number is known (0: none). */
  private writePendingItem(packed: PackedObjects, nextItem: number): void {
    const item = this.pendingItem;
    if (!item) {
      this.firstItem = nextItem;
      return;
    }
    const text = `<</Title ${PDFHexString.fromText(informationText(item.title)).toString()}/Parent ${OUTLINES} 0 R${this.previousItem ? `/Prev ${this.previousItem} 0 R` : ""}${nextItem ? `/Next ${nextItem} 0 R` : ""}/Dest [${item.page} 0 R /Fit]>>`;
    packText(packed, item.number, text);
    this.previousItem = item.number;
  }

  /**
   * The merged file's own objects (the roots of every tree, the catalog, its metadata; a signature's
   * field and dictionary), then the cross-reference stream; returns the bytes not yet taken, signed.
   */
  async end(): Promise<Buffer> {
    if (this.parts.length === 0) throw new RangeError("mergePdfs: no documents");
    const { options, field } = this;
    const pdfA = options.conformance === "PDF/A-2u";
    // A language tag (BCP 47: letters, digits, hyphens) is a literal string as it is.
    const language = /^[A-Za-z0-9-]{1,35}$/.test(this.language ?? "") ? this.language! : "und";
    const packed = new PackedObjects();
    const object = (number: number, text: string): void => packText(packed, number, text);
    const refs = (numbers: readonly number[]): string => numbers.map((n) => `${n} 0 R`).join(" ");
    this.writePendingItem(packed, 0);
    const structTreeRoot = this.next++;
    const parentTree = this.next++;
    const info = this.next++;
    const catalog = this.next++;
    const metadata = this.next++;
    const profile = pdfA ? this.next++ : 0;
    const signing = options.signature && (await this.signatureObjects(options.signature, packed, language));
    const kids = signing ? [...this.parts, signing.form] : this.parts;
    object(PAGES, `<</Type/Pages/Kids [${refs(this.pageTrees)}]/Count ${this.pages}>>`);
    object(DOCUMENT, `<</S/Document/P ${structTreeRoot} 0 R/K [${refs(kids)}]>>`);
    object(structTreeRoot, `<</Type/StructTreeRoot/K ${DOCUMENT} 0 R/ParentTree ${parentTree} 0 R/ParentTreeNextKey ${this.keys + (signing ? 1 : 0)}>>`);
    object(parentTree, `<</Kids [${refs(signing ? [...this.parentTrees, signing.leaf] : this.parentTrees)}]>>`);
    object(OUTLINES, `<</Type/Outlines/First ${this.firstItem} 0 R/Last ${this.previousItem} 0 R/Count ${this.parts.length}>>`);
    // The document information and the XMP packet say the same (PDF/A and PDF/UA ask for both, equal).
    const meta = { title: informationText(options.title), subject: informationText(options.subject), keywords: options.keywords.map(informationText), date: options.date, language };
    const date = PDFString.fromDate(meta.date).toString();
    const text = (s: string): string => PDFHexString.fromText(s).toString();
    object(info, `<</Title ${text(meta.title)}/Subject ${text(meta.subject)}/Keywords ${text(meta.keywords.join(" "))}/Producer ${text(PRODUCER)}/Creator ${text(PRODUCER)}/CreationDate ${date}/ModDate ${date}>>`);
    const intent = pdfA ? `/OutputIntents [<</Type/OutputIntent/S/GTS_PDFA1/OutputConditionIdentifier ${PDFString.of(SRGB_PROFILE.name).toString()}/Info ${PDFString.of(SRGB_PROFILE.name).toString()}/DestOutputProfile ${profile} 0 R>>]` : "";
    object(
      catalog,
      `<</Type/Catalog/Pages ${PAGES} 0 R/Outlines ${OUTLINES} 0 R/PageMode/UseOutlines/StructTreeRoot ${structTreeRoot} 0 R/MarkInfo<</Marked true>>` +
        `/Lang ${PDFString.of(language).toString()}/ViewerPreferences<</DisplayDocTitle true>>/Metadata ${metadata} 0 R${intent}` +
        `${signing ? `/AcroForm ${serialize(signatureAcroForm(new ObjectRef(field)))}` : ""}>>`,
    );
    // The XMP packet uncompressed, as PDF/A wants it.
    const xmp = xmpMetadata(meta, true, pdfA);
    writeStreamObject(this.file, this.xref, metadata, Buffer.from(`<</Type/Metadata/Subtype/XML/Length ${xmp.length}>>`, "latin1"), xmp);
    if (pdfA) {
      const icc = deflateSync(srgbProfile());
      writeStreamObject(this.file, this.xref, profile, Buffer.from(`<</N 3/Filter/FlateDecode/Length ${icc.length}>>`, "latin1"), icc);
    }
    this.next = writeObjectStreams(this.file, this.xref, packed, 0, packed.count, true, this.next);
    // The file identifier: from the documents' own and the metadata.
    const id = this.id.update(JSON.stringify([meta.title, meta.subject, meta.keywords, meta.date.toISOString(), language])).digest("hex");
    await this.xref.writeDeflated(this.file, this.next, `/Root ${catalog} 0 R/Info ${info} 0 R/ID [<${id}> <${id}>]`);
    const tail = this.file.take();
    if (signing) await fillSignature(tail, signing.slots, signing.sign, this.streamed);
    return tail;
  }

  /**
   * The signature's objects: its field (merged with the widget) and Form element, packed; the
   * ParentTree leaf of the widget's key (the key after every document's); the empty appearance and
   * the signature dictionary written at once (the dictionary stays in the tail until it is filled).
   */
  private async signatureObjects(signature: PdfSignatureOptions, packed: PackedObjects, language: string) {
    const { slots, sign } = await prepareSignature(signature, wordsFor(language).signature);
    const [form, leaf, appearance, dictionary] = [this.next++, this.next++, this.next++, this.next++];
    const key = this.keys;
    const object = (number: number, text: string): void => packText(packed, number, text);
    object(form, `<</S/Form/P ${DOCUMENT} 0 R/K <</Type/OBJR/Obj ${this.field} 0 R/Pg ${this.signedPage} 0 R>>>>`);
    object(leaf, `<</Limits [${key} ${key}]/Nums [${key} ${form} 0 R]>>`);
    object(this.field, serialize(signatureWidget(slots, new ObjectRef(dictionary), new ObjectRef(appearance), new ObjectRef(this.signedPage), key)));
    const empty = new Stream(EMPTY_APPEARANCE, new Uint8Array(0));
    writeStreamObject(this.file, this.xref, appearance, Buffer.from(streamDict(empty), "latin1"), empty.data);
    writeUnpackedObject(this.file, this.xref, dictionary, signatureDictionary(slots));
    return { form, leaf, slots, sign };
  }
}

/** Object `number` of `text`, packed (into the object streams written next). */
const packText = (packed: PackedObjects, number: number, text: string): void => void packed.begin(number, text.length).text(text).end();

/** A dictionary with entries set (a copy's: the values of mapReferences are new). */
function withEntries(dict: Dict, entries: Record<string, Value | undefined>): Dict {
  for (const [key, value] of Object.entries(entries)) if (value !== undefined) dict.set(key, value);
  return dict;
}
