// Who signs a PDF: a key and its certificate chain, behind one interface, so that the CMS (cms.ts)
// neither knows nor cares where the private key is. Production signs through Cloud KMS (the key
// never leaves it); the local stack and the tests sign with a throwaway key in a PEM file
// (stack/signingCa.ts). Keys are ECDSA P-256, signatures ECDSA with SHA-256.
//
// Why `sign(data)` and not a digest: Node's crypto cannot make an ECDSA signature of a digest it is
// handed (crypto.sign(null, digest) hashes it again with SHA-256, measured), so the local signer needs
// the bytes; Cloud KMS takes the digest, which kmsSigner computes (the signed attributes are a few
// hundred bytes). Neither sees the document: the CMS signs its digest inside the signed attributes.

import { createHash, createPrivateKey, sign as signBytes, X509Certificate, type KeyObject } from "node:crypto";

export interface PdfSigner {
  /** The signer's certificate first, then its issuers up to (and including) the root, DER. */
  readonly chain: readonly Uint8Array[];
  /**
   * Signs `data`, the DER of the CMS signed attributes, with ECDSA and SHA-256; returns the DER
   * ECDSA signature (what Cloud KMS asymmetricSign returns for the data's SHA-256 digest).
   */
  sign(data: Uint8Array): Promise<Uint8Array>;
}

/** The signer cannot be made: a chain or key that is missing, malformed or does not match (the route answers 503). */
export class SignerConfigurationError extends Error {
  override readonly name = "SignerConfigurationError";
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+?)-----END CERTIFICATE-----/g;

/** The DER certificates of a PEM chain, in its order; each one parsed (X509Certificate) to reject a malformed one now. */
export function certificatesOfPem(pem: string): Uint8Array[] {
  const chain = [...pem.matchAll(PEM_CERTIFICATE)].map((m) => new Uint8Array(Buffer.from(m[1].replace(/\s+/g, ""), "base64")));
  if (chain.length === 0) throw new SignerConfigurationError("the certificate chain holds no PEM certificate");
  chain.forEach((der, i) => {
    try {
      new X509Certificate(der);
    } catch (error) {
      throw new SignerConfigurationError(`certificate ${i + 1} of the chain cannot be read: ${(error as Error).message}`);
    }
  });
  return chain;
}

/** Throws unless `key` is an ECDSA P-256 key. */
function checkP256(key: KeyObject, what: string): void {
  if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
    throw new SignerConfigurationError(`${what} is not an ECDSA P-256 key (${key.asymmetricKeyType} ${key.asymmetricKeyDetails?.namedCurve ?? ""})`.trim());
  }
}

/** A signer with the private key here (PEM, PKCS#8 or SEC1), node:crypto: the local stack's and the tests'. */
export function localSigner(privateKeyPem: string, chainPem: string): PdfSigner {
  const chain = certificatesOfPem(chainPem);
  let key: KeyObject;
  try {
    key = createPrivateKey(privateKeyPem);
  } catch (error) {
    throw new SignerConfigurationError(`the signing key cannot be read: ${(error as Error).message}`);
  }
  checkP256(key, "the signing key");
  if (!new X509Certificate(chain[0]).checkPrivateKey(key)) throw new SignerConfigurationError("the signing key is not the key of the chain's first certificate");
  return {
    chain,
    sign: async (data) => new Uint8Array(signBytes("sha256", data, { key, dsaEncoding: "der" })),
  };
}

/**
 * A signer whose key is a Cloud KMS asymmetric signing key version (EC_SIGN_P256_SHA256), by its
 * resource name (projects/P/locations/L/keyRings/R/cryptoKeys/K/cryptoKeyVersions/V), with the chain
 * of its certificate (PEM). The runtime service account needs roles/cloudkms.signerVerifier on the key.
 *
 * Not exercised by the tests (no KMS here): they only load the client's module. The client is loaded
 * on the first signature, so a function that never signs does not pay for it at cold start, and made
 * once per signer. Nothing checks here that the KMS key is the certificate's: a wrong pairing makes
 * signatures that do not verify (the caller may check one, with verify.ts, at start-up).
 */
export function kmsSigner(keyVersionName: string, chainPem: string): PdfSigner {
  const chain = certificatesOfPem(chainPem);
  checkP256(new X509Certificate(chain[0]).publicKey, "the chain's first certificate's key");
  if (!/^projects\/[^/]+\/locations\/[^/]+\/keyRings\/[^/]+\/cryptoKeys\/[^/]+\/cryptoKeyVersions\/[^/]+$/.test(keyVersionName)) {
    throw new SignerConfigurationError(`"${keyVersionName}" is not a KMS key version's resource name`);
  }
  let client: Promise<import("@google-cloud/kms").KeyManagementServiceClient> | undefined;
  return {
    chain,
    sign: async (data) => {
      client ??= import("@google-cloud/kms").then(
        (kms) => new kms.KeyManagementServiceClient(),
        (error: unknown) => {
          client = undefined; // the next signature tries again
          throw error;
        },
      );
      const sha256 = createHash("sha256").update(data).digest();
      const [response] = await (await client).asymmetricSign({ name: keyVersionName, digest: { sha256 } });
      const signature = response.signature;
      if (!signature || typeof signature === "string") throw new Error(`KMS answered no signature for ${keyVersionName}`);
      return new Uint8Array(signature);
    },
  };
}
