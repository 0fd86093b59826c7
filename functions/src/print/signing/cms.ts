// The CMS of a PAdES baseline B-B signature (ETSI EN 319 142-1, with CAdES, ETSI EN 319 122-1):
// a detached SignedData (RFC 5652) over the PDF's digest, SHA-256, ECDSA, the signed attributes
// content-type (id-data), message-digest and signing-certificate-v2 (RFC 5035: the SHA-256 of the
// signer's certificate and its issuer and serial number), no signing-time (PAdES puts the time in
// the signature dictionary's /M), and the signer's whole chain. Built with pkijs and asn1js: the
// ASN.1 structures are theirs; this module chooses what goes in.
//
// Loaded only when a PDF is signed or verified (render.ts, verify.ts: dynamic import): pkijs takes
// some 50 ms to load.

import { createHash } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import type { PdfSigner } from "./signer";

export const OIDS = {
  data: "1.2.840.113549.1.7.1",
  signedData: "1.2.840.113549.1.7.2",
  contentType: "1.2.840.113549.1.9.3",
  messageDigest: "1.2.840.113549.1.9.4",
  signingTime: "1.2.840.113549.1.9.5",
  signingCertificateV2: "1.2.840.113549.1.9.16.2.47",
  /** id-aa-signatureTimeStampToken: the unsigned attribute of a B-T signature (not made yet). */
  signatureTimeStampToken: "1.2.840.113549.1.9.16.2.14",
  sha256: "2.16.840.1.101.3.4.2.1",
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
} as const;

/** Bytes of /Contents to make room for: the chain, and 2 KiB for the rest (signed attributes, signature, names: about 500 bytes measured). */
export const cmsRoom = (chain: readonly Uint8Array[]): number => chain.reduce((sum, der) => sum + der.length, 0) + 2048;

const sha256 = (bytes: Uint8Array): Uint8Array => new Uint8Array(createHash("sha256").update(bytes).digest());
const der = (value: asn1js.BaseBlock | pkijs.PkiObject): Uint8Array => new Uint8Array((value instanceof pkijs.PkiObject ? value.toSchema() : value).toBER(false));
/** DER orders a SET OF by its elements' encodings (X.690 11.6). */
const derOrder = <T>(items: T[], encoding: (item: T) => Uint8Array): T[] =>
  items
    .map((item) => ({ item, bytes: encoding(item) }))
    .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
    .map(({ item }) => item);

/** SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2 } with one ESSCertIDv2 (hashAlgorithm left out: its DEFAULT is SHA-256). */
function signingCertificateV2(certificateDer: Uint8Array, certificate: pkijs.Certificate): asn1js.Sequence {
  const issuerSerial = new asn1js.Sequence({
    value: [new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 4, value: certificate.issuer })] }).toSchema(), certificate.serialNumber],
  });
  const essCertIdV2 = new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: sha256(certificateDer) }), issuerSerial] });
  return new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] });
}

const attribute = (type: string, value: asn1js.BaseBlock): pkijs.Attribute => new pkijs.Attribute({ type, values: [value] });

/** What a chain gives every signature: the signer's issuer and serial number, its ESS attribute, the certificates as ASN.1. */
interface PreparedChain {
  sid: pkijs.IssuerAndSerialNumber;
  signingCertificate: pkijs.Attribute;
  /** SignedData's certificates field: [0] IMPLICIT SET OF Certificate. */
  certificates: asn1js.BaseBlock;
}

/** Per chain (a signer keeps its array): parsing a certificate with pkijs takes about a millisecond (measured), and a signer signs many PDFs. */
const preparedChains = new WeakMap<readonly Uint8Array[], PreparedChain>();

function prepared(chain: readonly Uint8Array[]): PreparedChain {
  let ready = preparedChains.get(chain);
  if (!ready) {
    const certificate = pkijs.Certificate.fromBER(chain[0]);
    // One node over the chain's DER as it is (in DER's order: a SET OF): as parsed values, asn1js
    // would encode each certificate's hundred nodes again on every signature (a millisecond, measured).
    const certificates = new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 0 }, valueHex: Buffer.concat(derOrder([...chain], (c) => c)) });
    certificates.idBlock.isConstructed = true;
    ready = {
      sid: new pkijs.IssuerAndSerialNumber({ issuer: certificate.issuer, serialNumber: certificate.serialNumber }),
      signingCertificate: attribute(OIDS.signingCertificateV2, signingCertificateV2(chain[0], certificate)),
      certificates,
    };
    preparedChains.set(chain, ready);
  }
  return ready;
}

/**
 * The DER ContentInfo of a detached SignedData over a document whose SHA-256 is `documentDigest`,
 * signed by `signer` (its key may be in Cloud KMS: the only await).
 */
export async function signedData(documentDigest: Uint8Array, signer: PdfSigner): Promise<Uint8Array> {
  if (documentDigest.length !== 32) throw new RangeError(`signedData: a SHA-256 digest has 32 bytes, not ${documentDigest.length}`);
  if (signer.chain.length === 0) throw new RangeError("signedData: the signer has no certificate");
  const chain = prepared(signer.chain);
  const signedAttrs = new pkijs.SignedAndUnsignedAttributes({
    type: 0,
    attributes: derOrder(
      [
        attribute(OIDS.contentType, new asn1js.ObjectIdentifier({ value: OIDS.data })),
        attribute(OIDS.messageDigest, new asn1js.OctetString({ valueHex: documentDigest })),
        chain.signingCertificate,
      ],
      der,
    ),
  });
  // What is signed: the attributes' DER with the SET OF tag, not the [0] IMPLICIT they have in the SignerInfo (RFC 5652, 5.4).
  const toSign = der(signedAttrs);
  toSign[0] = 0x31;
  const signature = await signer.sign(toSign);
  const sha256Algorithm = new pkijs.AlgorithmIdentifier({ algorithmId: OIDS.sha256 });
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: chain.sid,
    // SHA-2's parameters are absent (RFC 5754), and ECDSA's must be.
    digestAlgorithm: sha256Algorithm,
    signedAttrs,
    signatureAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OIDS.ecdsaWithSha256 }),
    signature: new asn1js.OctetString({ valueHex: signature }),
    // PAdES B-T goes here: unsignedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 1, attributes:
    // [attribute(OIDS.signatureTimeStampToken, <the TSA's TimeStampToken, a ContentInfo, over the
    // SHA-256 of `signature`>)] }), and cmsRoom grows by the token's size (some 4-6 KB with the
    // TSA's chain).
  });
  // SignedData (RFC 5652, 5.1) as asn1js values: pkijs's SignedData class would parse each
  // certificate again from its DER on every signature (a millisecond for two, measured).
  const content = new asn1js.Sequence({
    value: [
      new asn1js.Integer({ value: 1 }),
      new asn1js.Set({ value: [sha256Algorithm.toSchema()] }),
      // Detached: the content's type only, no content.
      new pkijs.EncapsulatedContentInfo({ eContentType: OIDS.data }).toSchema(),
      chain.certificates,
      new asn1js.Set({ value: [signerInfo.toSchema()] }),
    ],
  });
  return der(new pkijs.ContentInfo({ contentType: OIDS.signedData, content }));
}

/** A CMS read back: its SignedData (pkijs), or why it is not one. */
export function parseSignedData(cms: Uint8Array): pkijs.SignedData {
  const contentInfo = pkijs.ContentInfo.fromBER(cms);
  if (contentInfo.contentType !== OIDS.signedData) throw new Error(`the CMS is a ${contentInfo.contentType}, not a SignedData`);
  return new pkijs.SignedData({ schema: contentInfo.content });
}
