// The local stack's throwaway signing identity: a root CA ("print-admin local test CA") and a signing
// certificate it issued, ECDSA P-256, with their keys, as PEM files in a folder that git ignores.
// Production signs with a Cloud KMS key and a real chain (src/print/signing/signer.ts); this one only
// makes signed PDFs checkable here: trust ca.pem (README) and pdfsig or Acrobat call them valid.
//
// The certificates are made with pkijs's structures and signed with node:crypto, synchronously. They
// are made again when missing, unreadable, not yet valid or within RENEW_BEFORE_DAYS of their end
// (pdfsig checks them against today's date): the signing certificate alone under the same CA while
// the CA lasts, so that a CA already trusted stays trusted.

import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { certificatesOfPem } from "../src/print/signing/signer";

export const SIGNING_CA_NAME = "print-admin local test CA";
export const SIGNING_CERTIFICATE_NAME = "print-admin local test signer";
/**
 * The files in the identity's folder: the CA's key and certificate (PEM, and DER as ca.cer, the form
 * Acrobat's import dialog offers), the signing key and its chain (its certificate, then the CA's).
 */
export const SIGNING_FILES = { caKey: "ca-key.pem", ca: "ca.pem", caDer: "ca.cer", key: "signing-key.pem", chain: "signing-chain.pem" } as const;
const DAY = 24 * 60 * 60 * 1000;
export const RENEW_BEFORE_DAYS = 30;
const CA_DAYS = 5 * 365;
const SIGNER_DAYS = 365;

export interface SigningIdentity {
  /** The signing key, PKCS#8 PEM. */
  keyPem: string;
  /** The signing certificate, then the CA's, PEM. */
  chainPem: string;
  /** The CA's certificate, PEM: what a reader is told to trust. */
  caPem: string;
}

const OID = {
  commonName: "2.5.4.3",
  organization: "2.5.4.10",
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  extKeyUsage: "2.5.29.37",
  subjectKeyIdentifier: "2.5.29.14",
  authorityKeyIdentifier: "2.5.29.35",
  emailProtection: "1.3.6.1.5.5.7.3.4",
  documentSigning: "1.3.6.1.5.5.7.3.36",
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
};

/**
 * O=print-admin (local stack), CN=`commonName`: a relative distinguished name each (pkijs's
 * RelativeDistinguishedNames would put both into one, a multi-valued RDN), read back from its DER.
 */
function name(commonName: string): pkijs.RelativeDistinguishedNames {
  const rdn = (type: string, value: string): asn1js.Set => new asn1js.Set({ value: [new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: type }), new asn1js.Utf8String({ value })] })] });
  return pkijs.RelativeDistinguishedNames.fromBER(new asn1js.Sequence({ value: [rdn(OID.organization, "print-admin (local stack)"), rdn(OID.commonName, commonName)] }).toBER(false));
}

/** RFC 5280: UTCTime through 2049, GeneralizedTime from 2050; whole seconds. */
const time = (date: Date): pkijs.Time => {
  const value = new Date(Math.floor(date.getTime() / 1000) * 1000);
  return new pkijs.Time({ type: value.getUTCFullYear() < 2050 ? 0 : 1, value });
};

const extension = (extnID: string, critical: boolean, value: asn1js.BaseBlock | pkijs.PkiObject): pkijs.Extension =>
  new pkijs.Extension({ extnID, critical, extnValue: (value instanceof pkijs.PkiObject ? value.toSchema() : value).toBER(false) });

/** The key identifier of a public key: the SHA-1 of its bits (RFC 5280, 4.2.1.2, method 1). */
function keyIdentifier(publicKey: KeyObject): Uint8Array {
  const info = pkijs.PublicKeyInfo.fromBER(publicKey.export({ type: "spki", format: "der" }));
  return new Uint8Array(createHash("sha1").update(info.subjectPublicKey.valueBlock.valueHexView).digest());
}

interface Issued {
  subject: string;
  publicKey: KeyObject;
  notBefore: Date;
  notAfter: Date;
  ca: boolean;
  /** The issuer's name, key identifier and private key (the subject's own for a root). */
  issuer: { name: string; keyId: Uint8Array; key: KeyObject };
}

/** A certificate's DER, signed by its issuer's key with ECDSA and SHA-256. */
function certificate(what: Issued): Uint8Array {
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x7f) | 0x01; // positive, and 16 bytes long
  const keyUsage = what.ca
    ? new asn1js.BitString({ valueHex: new Uint8Array([0x06]), unusedBits: 1 }) // keyCertSign, cRLSign
    : new asn1js.BitString({ valueHex: new Uint8Array([0xc0]), unusedBits: 6 }); // digitalSignature, nonRepudiation
  const algorithm = new pkijs.AlgorithmIdentifier({ algorithmId: OID.ecdsaWithSha256 });
  const cert = new pkijs.Certificate({
    version: 2,
    serialNumber: new asn1js.Integer({ valueHex: serial }),
    signature: algorithm,
    issuer: name(what.issuer.name),
    notBefore: time(what.notBefore),
    notAfter: time(what.notAfter),
    subject: name(what.subject),
    subjectPublicKeyInfo: pkijs.PublicKeyInfo.fromBER(what.publicKey.export({ type: "spki", format: "der" })),
    extensions: [
      extension(OID.basicConstraints, true, new pkijs.BasicConstraints({ cA: what.ca })),
      extension(OID.keyUsage, true, keyUsage),
      ...(what.ca ? [] : [extension(OID.extKeyUsage, false, new pkijs.ExtKeyUsage({ keyPurposes: [OID.emailProtection, OID.documentSigning] }))]),
      extension(OID.subjectKeyIdentifier, false, new asn1js.OctetString({ valueHex: keyIdentifier(what.publicKey) })),
      extension(OID.authorityKeyIdentifier, false, new pkijs.AuthorityKeyIdentifier({ keyIdentifier: new asn1js.OctetString({ valueHex: what.issuer.keyId }) })),
    ],
    signatureAlgorithm: algorithm,
  });
  cert.tbsView = new Uint8Array(cert.encodeTBS().toBER(false));
  cert.signatureValue = new asn1js.BitString({ valueHex: sign("sha256", cert.tbsView, { key: what.issuer.key, dsaEncoding: "der" }) });
  return new Uint8Array(cert.toSchema().toBER(false));
}

const pem = (der: Uint8Array): string => `-----BEGIN CERTIFICATE-----\n${Buffer.from(der).toString("base64").replace(/.{1,64}/g, "$&\n")}-----END CERTIFICATE-----\n`;

/** Good for signing at `now`: already valid, and not within RENEW_BEFORE_DAYS of its end. */
const lasts = (cert: X509Certificate, now: Date): boolean => new Date(cert.validFrom).getTime() <= now.getTime() && now.getTime() < new Date(cert.validTo).getTime() - RENEW_BEFORE_DAYS * DAY;

const read = (dir: string, file: string): string | undefined => (existsSync(join(dir, file)) ? readFileSync(join(dir, file), "utf8") : undefined);

/** Writes a file whole or not at all (a stack starting beside a test never reads half a key). */
function write(dir: string, file: string, text: string | Uint8Array, mode: number): void {
  const temporary = join(dir, `.${file}.${process.pid}.tmp`);
  writeFileSync(temporary, text, { mode });
  renameSync(temporary, join(dir, file));
}

/** The CA in `dir` when it is whole and lasts at `now`. */
function existingCa(dir: string, now: Date): { cert: X509Certificate; key: KeyObject; pem: string } | undefined {
  try {
    const caPem = read(dir, SIGNING_FILES.ca);
    const keyPem = read(dir, SIGNING_FILES.caKey);
    if (!caPem || !keyPem) return undefined;
    const cert = new X509Certificate(caPem);
    const key = createPrivateKey(keyPem);
    return cert.ca && cert.checkPrivateKey(key) && cert.verify(cert.publicKey) && lasts(cert, now) ? { cert, key, pem: caPem } : undefined;
  } catch {
    return undefined; // unreadable: made again
  }
}

/** The signing identity in `dir` when it is whole, issued by `ca` and lasts at `now`. */
function existingSigner(dir: string, ca: X509Certificate, now: Date): { keyPem: string; chainPem: string } | undefined {
  try {
    const keyPem = read(dir, SIGNING_FILES.key);
    const chainPem = read(dir, SIGNING_FILES.chain);
    if (!keyPem || !chainPem) return undefined;
    const chain = certificatesOfPem(chainPem).map((der) => new X509Certificate(der));
    const [leaf] = chain;
    const whole = chain.length === 2 && chain[1].raw.equals(ca.raw) && leaf.checkIssued(ca) && leaf.verify(ca.publicKey) && leaf.checkPrivateKey(createPrivateKey(keyPem));
    return whole && lasts(leaf, now) ? { keyPem, chainPem } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The signing identity in `dir` (made when missing), good at `now`: a CA valid from a day before
 * `now` for 5 years, and a signing certificate it issued, valid from a day before `now` for a year
 * (keyUsage digitalSignature and nonRepudiation, extended key usage emailProtection, which NSS's
 * pdfsig and Acrobat look for, and documentSigning), both made again as the file comment says.
 */
export function ensureSigningIdentity(dir: string, now: Date): SigningIdentity {
  if (!Number.isFinite(now.getTime())) throw new TypeError("ensureSigningIdentity: an invalid date");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const notBefore = new Date(now.getTime() - DAY);
  let ca = existingCa(dir, now);
  if (!ca) {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const keyId = keyIdentifier(publicKey);
    const der = certificate({ subject: SIGNING_CA_NAME, publicKey, notBefore, notAfter: new Date(notBefore.getTime() + CA_DAYS * DAY), ca: true, issuer: { name: SIGNING_CA_NAME, keyId, key: privateKey } });
    ca = { cert: new X509Certificate(der), key: privateKey, pem: pem(der) };
    write(dir, SIGNING_FILES.caKey, privateKey.export({ type: "pkcs8", format: "pem" }) as string, 0o600);
    write(dir, SIGNING_FILES.ca, ca.pem, 0o644);
  }
  if (!existsSync(join(dir, SIGNING_FILES.caDer)) || !readFileSync(join(dir, SIGNING_FILES.caDer)).equals(ca.cert.raw)) write(dir, SIGNING_FILES.caDer, ca.cert.raw, 0o644);
  let signer = existingSigner(dir, ca.cert, now);
  if (!signer) {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const issuer = { name: SIGNING_CA_NAME, keyId: keyIdentifier(ca.cert.publicKey), key: ca.key };
    // Never past the CA's end.
    const notAfter = new Date(Math.min(notBefore.getTime() + SIGNER_DAYS * DAY, new Date(ca.cert.validTo).getTime()));
    const der = certificate({ subject: SIGNING_CERTIFICATE_NAME, publicKey, notBefore, notAfter, ca: false, issuer });
    signer = { keyPem: privateKey.export({ type: "pkcs8", format: "pem" }) as string, chainPem: pem(der) + ca.pem };
    write(dir, SIGNING_FILES.key, signer.keyPem, 0o600);
    write(dir, SIGNING_FILES.chain, signer.chainPem, 0o644);
  }
  return { ...signer, caPem: ca.pem };
}
