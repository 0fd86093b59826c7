// A signed PDF's own objects (PAdES baseline B-B, ETSI EN 319 142-1; ISO 32000-1 12.7.4.5, 12.8):
// an invisible signature field merged with its widget on the first page, its signature dictionary,
// and the bytes filled in once the file is written: the /ByteRange and the CMS in /Contents.
//
// The signature dictionary is an Unpacked object (objects.ts): written as itself in the file's body,
// never into a compressed object stream, so the file writer knows the offsets of its two placeholders.
// fillSignature then writes the byte range, hashes the file but the /Contents hole, has the CMS made
// (signing/cms.ts, through the caller: the signer may be Cloud KMS) and writes its hex into the hole.
//
// PDF/A-2 (ISO 19005-2): 6.3.2, the widget's flags Print and Locked (/F 132; Hidden, Invisible, NoView
// clear), a zero /Rect and an empty /AP /N stream; 6.4.3, the byte range is the whole file but the
// /Contents string. PDF/UA-1: 7.18.1 the field's /TU, 7.18.3 its page's /Tabs /S, 7.18.4 the widget
// under a Form structure element (pdf.ts adds it).

import { createHash, type Hash } from "node:crypto";
import { Hex, informationText, Literal, pdfDate, Placeholder, Ref, Stream, Unpacked, type Dict, type PdfObjects } from "./objects";
import type { PdfSignatureOptions } from "./types";

/** The CMS module (pkijs), loaded on the first signed PDF and kept (a dynamic import() resolves the module again each time). */
let cmsModule: Promise<typeof import("../signing/cms.js")> | undefined;
const loadCms = (): Promise<typeof import("../signing/cms.js")> => (cmsModule ??= import("../signing/cms.js"));

/**
 * The signature of one file made with `options`: its slots (reason and name as the document
 * information writes text; the field described in the document's words, `signatureWord`), and what
 * makes its CMS of a digest, for fillSignature. The renderer's documents and a print job's merged
 * file are signed alike.
 */
export async function prepareSignature(options: PdfSignatureOptions, signatureWord: string): Promise<{ slots: SignatureSlots; sign: (digest: Uint8Array) => Promise<Uint8Array> }> {
  const cms = await loadCms();
  const text = (s: string | undefined): string | undefined => (typeof s === "string" ? informationText(s) : undefined);
  const slots = new SignatureSlots({
    signedAt: options.signedAt,
    reason: text(options.reason),
    name: text(options.name),
    description: options.name ? `${signatureWord}: ${text(options.name)}` : signatureWord,
    contentsBytes: cms.cmsRoom(options.signer.chain),
  });
  return { slots, sign: (digest) => cms.signedData(digest, options.signer) };
}

/** The field's name (/T): a document has one signature field. */
export const SIGNATURE_FIELD_NAME = "Signature1";

/** Digits of each of /ByteRange's last three numbers: offsets of files up to 10 GB. */
const BYTE_RANGE_DIGITS = 10;
/** Written first: `[ 0 0 0 0` and spaces to the fixed width, then ` ]`; fillSignature writes the numbers over it. */
const BLANK_BYTE_RANGE = `[ 0 0 0 0${" ".repeat(3 * BYTE_RANGE_DIGITS - 3)} ]`;

/** What the signature dictionary and the field say besides the CMS. */
export interface SignatureFieldSpec {
  /** The claimed signing time: the dictionary's /M (PAdES B-B has no signing-time attribute in the CMS). */
  signedAt: Date;
  /** /Reason and /Name of the signature dictionary, when given. */
  reason?: string;
  name?: string;
  /** The field's description for assistive technology (/TU, PDF/UA-1 7.18.1), in the document's language. */
  description: string;
  /** Bytes the CMS may take: /Contents is a hex string of twice as many zeros, written over when signed. */
  contentsBytes: number;
}

/** The longest string PDF/A-2 allows (6.1.13: ISO 32000-1's implementation limit, Annex C), in bytes: /Contents's room. */
export const MAX_CONTENTS_BYTES = 32767;

/** The signature's two placeholders, whose offsets the file writer sets, and what fills them. */
export class SignatureSlots {
  readonly byteRange = new Placeholder(BLANK_BYTE_RANGE);
  readonly contents: Placeholder;

  constructor(readonly spec: SignatureFieldSpec) {
    if (!(Number.isSafeInteger(spec.contentsBytes) && spec.contentsBytes > 0)) throw new RangeError(`SignatureSlots: room for ${spec.contentsBytes} bytes of CMS`);
    if (spec.contentsBytes > MAX_CONTENTS_BYTES) throw new SignatureFillError(`room for a CMS of ${spec.contentsBytes} bytes is more than a PDF string may hold (${MAX_CONTENTS_BYTES}): is the certificate chain that long?`);
    this.contents = new Placeholder(`<${"0".repeat(2 * spec.contentsBytes)}>`);
  }
}

/**
 * The field, merged with its widget, as object `field` on page `page` (whose /Annots must list it),
 * with its signature dictionary and empty appearance; `structParent`: its key in the ParentTree
 * (tagged files). Returns the catalog's /AcroForm.
 */
export function addSignatureField(objects: PdfObjects, slots: SignatureSlots, field: Ref, page: Ref, structParent?: number): Dict {
  const signature = objects.add(signatureDictionary(slots));
  // An empty appearance of zero size: PDF/A-2 wants a normal appearance for every widget.
  const appearance = objects.add(new Stream(EMPTY_APPEARANCE, new Uint8Array(0)));
  objects.set(field, signatureWidget(slots, signature, appearance, page, structParent));
  return signatureAcroForm(field);
}

/** The signature dictionary, with its two placeholders: never in an object stream (Unpacked). */
export function signatureDictionary({ spec, byteRange, contents }: SignatureSlots): Unpacked {
  return new Unpacked({
    Type: "Sig",
    Filter: "Adobe.PPKLite",
    SubFilter: "ETSI.CAdES.detached",
    M: pdfDate(spec.signedAt),
    Reason: spec.reason === undefined ? undefined : Hex.ofText(spec.reason),
    Name: spec.name === undefined ? undefined : Hex.ofText(spec.name),
    ByteRange: byteRange,
    Contents: contents,
  });
}

/** The dictionary of the widget's empty appearance (a stream of no bytes). */
export const EMPTY_APPEARANCE: Dict = { Type: "XObject", Subtype: "Form", BBox: [0, 0, 0, 0] };

/** The field merged with its widget: `signature` its dictionary, `appearance` its empty appearance, on `page`. */
export function signatureWidget(slots: SignatureSlots, signature: Ref, appearance: Ref, page: Ref, structParent?: number): Dict {
  return {
    Type: "Annot",
    Subtype: "Widget",
    FT: "Sig",
    T: new Literal(SIGNATURE_FIELD_NAME),
    TU: Hex.ofText(slots.spec.description),
    V: signature,
    // Invisible: zero size, Print and Locked (4 + 128), never Hidden or NoView (PDF/A-2 6.3.2).
    Rect: [0, 0, 0, 0],
    F: 132,
    P: page,
    AP: { N: appearance },
    StructParent: structParent,
  };
}

/** The catalog's /AcroForm of a file whose one field is the signature `field`. */
export function signatureAcroForm(field: Ref): Dict {
  // SignaturesExist and AppendOnly: a reader saves changes as an incremental update, after the signed bytes.
  return { Fields: [field], SigFlags: 3 };
}

/** The signature could not be put into the file: no room for the CMS, or the placeholders are not where they should be. */
export class SignatureFillError extends Error {
  override readonly name = "SignatureFillError";
}

/**
 * Fills the signature of a file written with `slots`: its /ByteRange, then the CMS that `sign` makes
 * of the SHA-256 of the file but the /Contents string, as hex into that string. Changes and returns
 * `bytes`. A file streamed as it is written (a merged PDF) hands only its tail, which must hold the
 * signature dictionary: `streamed` says how many bytes went before it, and their hash so far.
 */
export async function fillSignature(bytes: Uint8Array, slots: SignatureSlots, sign: (digest: Uint8Array) => Promise<Uint8Array>, streamed?: { bytes: number; hash: Hash }): Promise<Uint8Array> {
  const { byteRange, contents } = slots;
  const base = streamed?.bytes ?? 0;
  // Offsets in `bytes`: the placeholders' are the file's.
  const holeStart = contents.offset - base;
  const holeEnd = holeStart + contents.text.length;
  const rangeAt = byteRange.offset - base;
  if (byteRange.offset < 0 || contents.offset < 0 || rangeAt < 0 || holeStart < 0 || holeEnd > bytes.length || bytes[holeStart] !== 0x3c || bytes[holeEnd - 1] !== 0x3e) {
    throw new SignatureFillError("the signature's /Contents is not where the file writer said (written into an object stream, or streamed out already?)");
  }
  const ranges = [0, base + holeStart, base + holeEnd, bytes.length - holeEnd];
  const text = `[ ${ranges.join(" ")}`;
  const width = byteRange.text.length - 2;
  if (text.length > width) throw new SignatureFillError(`a byte range of ${base + bytes.length} bytes does not fit /ByteRange`);
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).write(text.padEnd(width, " "), rangeAt, "latin1");
  const digest = (streamed?.hash ?? createHash("sha256")).update(bytes.subarray(0, holeStart)).update(bytes.subarray(holeEnd)).digest();
  const cms = await sign(digest);
  if (2 * cms.length > holeEnd - holeStart - 2) throw new SignatureFillError(`a CMS of ${cms.length} bytes is larger than the ${slots.spec.contentsBytes} bytes made room for`);
  // Upper-case hex over the leading zeros; the zeros after it stay (DER says where the CMS ends).
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).write(Buffer.from(cms).toString("hex").toUpperCase(), holeStart + 1, "latin1");
  return bytes;
}
