// Checks a PDF's signature without a PDF parser: the last /ByteRange in the file names the signed
// bytes and the /Contents hole between them, which holds the CMS (cms.ts). Enough for the PDFs this
// service signs, and for most producers' (they write the signature dictionary uncompressed: a
// signature dictionary inside a compressed object stream is not found, and the file reads as
// unsigned). Every scan is bounded by the file's size, and the CMS by MAX_CMS_BYTES: a hostile file
// gets an answer or MalformedPdfSignature, fast.
//
// Valid means: the CMS's message digest is the SHA-2 of the signed bytes, its signature over the
// signed attributes verifies with its signer's certificate's key, that certificate is the first of
// one of the trusted chains (the service's current one and those it had before a rotation), and
// each certificate of that chain is signed by the next and valid at the time of signing (the
// signature dictionary's /M: claimed by the signer, inside the signed bytes).

import { createHash, verify as verifySignature, X509Certificate } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { OIDS, parseSignedData } from "./cms";

/** What a PDF's signature says: what the verify route answers. */
export interface PdfSignatureReport {
  /** A signature dictionary (a /ByteRange and its /Contents) is there. */
  signed: boolean;
  /** The signature verifies and its signer is trusted (see the file comment). */
  valid: boolean;
  /** The signed bytes are the whole file but the /Contents hole: nothing was added after signing. */
  coversWholeDocument: boolean;
  /** The claimed time of signing (/M), ISO 8601. */
  signedAt?: string;
  /** The certificate the CMS names as its signer's, trusted or not. */
  signer?: { subject: string; issuer: string; serialNumber: string };
}

/** The file is not a PDF, or its signature is broken beyond checking (the route answers 400). */
export class MalformedPdfSignature extends Error {
  override readonly name = "MalformedPdfSignature";
}

/** Larger CMSs are not read: a signature with its chain and a timestamp takes some 10 KB. */
export const MAX_CMS_BYTES = 256 * 1024;
/** Certificates a CMS may carry. */
const MAX_CERTIFICATES = 32;
/** How far around the /ByteRange the signature dictionary's other entries (/Contents, /M) are looked for. */
const DICTIONARY_WINDOW = 4096;

const HASHES: Record<string, string> = { [OIDS.sha256]: "sha256", "2.16.840.1.101.3.4.2.2": "sha384", "2.16.840.1.101.3.4.2.3": "sha512" };
/** Signature algorithms that name their hash; a key's algorithm alone (id-ecPublicKey, rsaEncryption) uses the digest algorithm's. */
const SIGNATURE_HASHES: Record<string, string> = {
  [OIDS.ecdsaWithSha256]: "sha256",
  "1.2.840.10045.4.3.3": "sha384",
  "1.2.840.10045.4.3.4": "sha512",
  "1.2.840.113549.1.1.11": "sha256",
  "1.2.840.113549.1.1.12": "sha384",
  "1.2.840.113549.1.1.13": "sha512",
};
const KEY_ALGORITHMS = new Set(["1.2.840.10045.2.1", "1.2.840.113549.1.1.1"]);

/** Bytes [from, to) as Latin-1 text, the bounds clamped to the file. */
function ascii(bytes: Uint8Array, from: number, to: number): string {
  const start = Math.max(0, Math.min(bytes.length, from));
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, Math.max(0, Math.min(bytes.length, to) - start)).toString("latin1");
}
const isHexDigit = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const isWhite = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;

/** A PDF date (D:YYYYMMDDHHmmSSOHH'mm', every part after the year optional) as ISO 8601, or undefined. */
export function pdfDateToIso(text: string): string | undefined {
  const m = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:([Zz+-])(?:(\d{2})'?(\d{2})?'?)?)?$/.exec(text);
  if (!m) return undefined;
  const [, year, month = "01", day = "01", hour = "00", minute = "00", second = "00", sign, offsetHours = "00", offsetMinutes = "00"] = m;
  const offset = sign === "+" || sign === "-" ? (sign === "-" ? 1 : -1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) : 0;
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute) + offset, Number(second)));
  // Date.UTC rolls over what is out of range (month 13): such a date is not one.
  return Number.isFinite(date.getTime()) && Number(month) <= 12 && Number(day) <= 31 && Number(hour) <= 23 && Number(minute) <= 59 && Number(second) <= 59 ? date.toISOString() : undefined;
}

/** A distinguished name as Node gives it (a line per RDN, most significant first) as one line, the most specific first (RFC 4514's order). */
const oneLine = (name: string): string => name.split("\n").filter(Boolean).reverse().join(", ");

interface Located {
  ranges: [number, number, number, number];
  /** The CMS's DER (the hole's hex, without its padding). */
  cms: Uint8Array;
  signedAt?: string;
}

/** The last signature dictionary's byte range, CMS and /M, or undefined when the file has no /ByteRange. */
function locate(bytes: Uint8Array): Located | undefined {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const head = ascii(bytes, 0, Math.min(bytes.length, 1024));
  if (!head.includes("%PDF-")) throw new MalformedPdfSignature("not a PDF file (no %PDF- header)");
  const at = file.lastIndexOf("/ByteRange");
  if (at < 0) return undefined;
  const m = /^\s*\[\s*(\d{1,15})\s+(\d{1,15})\s+(\d{1,15})\s+(\d{1,15})\s*\]/.exec(ascii(bytes, at + 10, Math.min(bytes.length, at + 200)));
  if (!m) throw new MalformedPdfSignature("the /ByteRange is not four numbers");
  const ranges = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])] as [number, number, number, number];
  const [start, length1, holeEnd, length2] = ranges;
  const holeStart = start + length1;
  if (holeStart > holeEnd || holeEnd + length2 > bytes.length) throw new MalformedPdfSignature(`the /ByteRange [${ranges.join(" ")}] is out of the file's ${bytes.length} bytes`);
  if (holeEnd - holeStart < 2 || bytes[holeStart] !== 0x3c || bytes[holeEnd - 1] !== 0x3e) throw new MalformedPdfSignature("the /ByteRange's hole is not a hex string");
  if (holeEnd - holeStart - 2 > 2 * MAX_CMS_BYTES) throw new MalformedPdfSignature(`the signature's /Contents is larger than ${MAX_CMS_BYTES} bytes`);
  // The hole is the value of a /Contents key.
  let key = holeStart - 1;
  while (key > holeStart - 64 && key > 0 && isWhite(bytes[key])) key--;
  if (ascii(bytes, key - 8, key + 1) !== "/Contents") throw new MalformedPdfSignature("the /ByteRange's hole is not the signature's /Contents");
  let digits = holeStart + 1;
  while (digits < holeEnd - 1 && isHexDigit(bytes[digits])) digits++;
  if (digits !== holeEnd - 1) throw new MalformedPdfSignature("the signature's /Contents is not hex");
  const cms = derPrefix(Buffer.from(ascii(bytes, holeStart + 1, holeEnd - 1), "hex"));
  // /M in the signature dictionary, but for the hole: from the object's start (the last " obj"
  // before both the /ByteRange and the hole) to its end ("endobj" after both), each looked for
  // within DICTIONARY_WINDOW.
  const first = Math.min(at, holeStart);
  const last = Math.max(at, holeEnd);
  const objectStart = file.lastIndexOf(" obj", first);
  const from = objectStart >= 0 && objectStart >= first - DICTIONARY_WINDOW ? objectStart : Math.max(0, first - DICTIONARY_WINDOW);
  const objectEnd = file.indexOf("endobj", last);
  const to = objectEnd >= 0 && objectEnd <= last + DICTIONARY_WINDOW ? objectEnd : Math.min(bytes.length, last + DICTIONARY_WINDOW);
  const date = /\/M\s*\((D:[^)]{0,40})\)/.exec(`${ascii(bytes, from, holeStart)} ${ascii(bytes, holeEnd, to)}`);
  return { ranges, cms, signedAt: date ? pdfDateToIso(date[1]) : undefined };
}

/** The DER value at the start of `bytes` (the hole is zero-padded after it). */
function derPrefix(bytes: Uint8Array): Uint8Array {
  if (bytes.length < 2 || bytes[0] !== 0x30) throw new MalformedPdfSignature("the signature's /Contents holds no CMS");
  let length = bytes[1];
  let header = 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4 || bytes.length < 2 + count) throw new MalformedPdfSignature("the CMS's length cannot be read");
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[2 + i];
    header += count;
  }
  if (header + length > bytes.length) throw new MalformedPdfSignature("the CMS is cut short");
  return bytes.subarray(0, header + length);
}

/** The first value of the signed attribute `type`, when there is exactly one such attribute. */
function attributeValue(signerInfo: pkijs.SignerInfo, type: string): asn1js.BaseBlock | undefined {
  const matching = signerInfo.signedAttrs?.attributes.filter((a) => a.type === type) ?? [];
  return matching.length === 1 && matching[0].values.length === 1 ? (matching[0].values[0] as asn1js.BaseBlock) : undefined;
}

const octets = (value: asn1js.BaseBlock | undefined): Uint8Array | undefined => (value instanceof asn1js.OctetString ? value.valueBlock.valueHexView : undefined);

/** The ESS signing-certificate-v2 attribute's first certificate hash and its algorithm, when it is there and readable. */
function signingCertificateHash(signerInfo: pkijs.SignerInfo): { hash: string; value: Uint8Array } | undefined {
  const attribute = attributeValue(signerInfo, OIDS.signingCertificateV2);
  const certs = attribute instanceof asn1js.Sequence ? attribute.valueBlock.value[0] : undefined;
  const first = certs instanceof asn1js.Sequence ? certs.valueBlock.value[0] : undefined;
  if (!(first instanceof asn1js.Sequence)) return undefined;
  const [algorithmOrHash, maybeHash] = first.valueBlock.value;
  if (algorithmOrHash instanceof asn1js.OctetString) return { hash: "sha256", value: algorithmOrHash.valueBlock.valueHexView };
  const oid = algorithmOrHash instanceof asn1js.Sequence ? algorithmOrHash.valueBlock.value[0] : undefined;
  const hash = oid instanceof asn1js.ObjectIdentifier ? HASHES[oid.valueBlock.toString()] : undefined;
  const value = octets(maybeHash);
  return hash && value ? { hash, value } : undefined;
}

const equalBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && Buffer.compare(a, b) === 0;

/**
 * Each certificate of `chain` issued and signed by the next, a CA; the last (the configured anchor)
 * by itself when it names itself its issuer; all valid at `at`.
 */
function chainHolds(chain: X509Certificate[], at: Date): boolean {
  return chain.every((cert, i) => {
    const within = new Date(cert.validFrom).getTime() <= at.getTime() && at.getTime() <= new Date(cert.validTo).getTime();
    const issuer = chain[i + 1];
    if (issuer) return within && issuer.ca && cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
    return within && (!cert.checkIssued(cert) || cert.verify(cert.publicKey));
  });
}

/**
 * Checks the last signature of a PDF against the trusted chains (each: a signing certificate, then
 * its issuers up to the root, DER). Throws MalformedPdfSignature for a file that is not a PDF or whose
 * signature cannot be read; an unsigned PDF is `signed: false`.
 */
export async function verifyPdfSignature(bytes: Uint8Array, trustedChains: Uint8Array[][]): Promise<PdfSignatureReport> {
  const trusted = trustedChains.map((chain) => chain.map((der) => new X509Certificate(der)));
  const located = locate(bytes);
  if (!located) return { signed: false, valid: false, coversWholeDocument: false };
  const { ranges, cms, signedAt } = located;
  const [start, , holeEnd, length2] = ranges;
  const coversWholeDocument = start === 0 && holeEnd + length2 === bytes.length;
  let signedData: pkijs.SignedData;
  try {
    signedData = parseSignedData(cms);
  } catch (error) {
    throw new MalformedPdfSignature(`the signature's CMS cannot be read: ${(error as Error).message}`);
  }
  const report: PdfSignatureReport = { signed: true, valid: false, coversWholeDocument, signedAt };
  try {
    report.valid = check(bytes, ranges, signedData, trusted, report);
  } catch (error) {
    // What pkijs read but cannot encode again, or OpenSSL cannot read (a certificate, a key).
    throw new MalformedPdfSignature(`the signature's CMS cannot be checked: ${(error as Error).message}`);
  }
  return report;
}

/** Whether the CMS's signature holds over `ranges` and its signer is trusted; sets `report.signer` once the signer's certificate is found. */
function check(bytes: Uint8Array, ranges: Located["ranges"], signedData: pkijs.SignedData, trusted: X509Certificate[][], report: PdfSignatureReport): boolean {
  const [start, length1, holeEnd, length2] = ranges;
  const certificates = (signedData.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
  if (signedData.signerInfos.length !== 1 || certificates.length > MAX_CERTIFICATES) return false;
  const [signerInfo] = signedData.signerInfos;
  // The signer's certificate, by issuer and serial number.
  const sid: unknown = signerInfo.sid;
  const certificate = sid instanceof pkijs.IssuerAndSerialNumber ? certificates.find((c) => c.issuer.isEqual(sid.issuer) && c.serialNumber.isEqual(sid.serialNumber)) : undefined;
  if (!certificate) return false;
  const certificateDer = new Uint8Array(certificate.toSchema().toBER(false));
  const x509 = new X509Certificate(certificateDer);
  report.signer = { subject: oneLine(x509.subject), issuer: oneLine(x509.issuer), serialNumber: x509.serialNumber.toUpperCase() };

  // The document's digest, as the message-digest attribute says it.
  const hash = HASHES[signerInfo.digestAlgorithm.algorithmId];
  const messageDigest = octets(attributeValue(signerInfo, OIDS.messageDigest));
  const contentType = attributeValue(signerInfo, OIDS.contentType);
  if (!hash || !messageDigest || !signerInfo.signedAttrs || !(contentType instanceof asn1js.ObjectIdentifier) || contentType.valueBlock.toString() !== OIDS.data) return false;
  const digest = createHash(hash).update(bytes.subarray(start, start + length1)).update(bytes.subarray(holeEnd, holeEnd + length2)).digest();
  if (!equalBytes(digest, messageDigest)) return false;
  // The signing certificate the attributes name, when they name one (PAdES: always).
  const named = signingCertificateHash(signerInfo);
  if (named && !equalBytes(createHash(named.hash).update(certificateDer).digest(), named.value)) return false;
  // The signature over the signed attributes (their DER as a SET: pkijs keeps it so).
  const signatureAlgorithm = signerInfo.signatureAlgorithm.algorithmId;
  const signatureHash = SIGNATURE_HASHES[signatureAlgorithm] ?? (KEY_ALGORITHMS.has(signatureAlgorithm) ? hash : undefined);
  if (!signatureHash) return false;
  const signedAttributes = new Uint8Array(signerInfo.signedAttrs.encodedValue);
  const signature = signerInfo.signature.valueBlock.valueHexView;
  try {
    if (!verifySignature(signatureHash, signedAttributes, { key: x509.publicKey, dsaEncoding: "der" }, signature)) return false;
  } catch {
    return false; // a key and a signature that do not go together
  }
  // A trusted chain that starts with this certificate and holds at the time of signing.
  const at = report.signedAt ? new Date(report.signedAt) : new Date();
  return trusted.some((chain) => chain.length > 0 && equalBytes(chain[0].raw, certificateDer) && chainHolds(chain, at));
}
