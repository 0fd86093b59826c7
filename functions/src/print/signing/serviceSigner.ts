// The service's own signer (issue 36): the one key every signed PDF of this deployment is signed
// with, made once per instance, on the first PDF that needs it.
//
// Production: the Cloud KMS key version SIGNING_KMS_KEY (a param) with the chain of its certificate,
// the secret SIGNING_CERTIFICATE_CHAIN (PEM). The emulator: the local stack's throwaway key and chain
// (stack/signingCa.ts), which the launcher writes into functions/.secret.local as
// SIGNING_LOCAL_KEY and SIGNING_CERTIFICATE_CHAIN: the chain is read through the same secret either way.
//
// A key or chain that is missing or unusable is a 503 with a log line, never an unsigned PDF: the
// signer signs a probe when it is made and checks it against the chain's first certificate (a KMS
// key that is not the certificate's, disabled, or not permitted fails there, before any render).

import { createHash, verify, X509Certificate } from "node:crypto";
import { isEmulator, LOCAL_SIGNING_KEY_ENV, params, signingCertificateChain } from "../../config";
import { HttpError } from "../../http/errors";
import * as logs from "../../logs";
import type { PdfSigner } from "./signer";

/** A signature failed while the PDF was being signed (KMS unreachable, the key disabled since): answered 503 by the caller. */
export class SigningFailed extends Error {
  override readonly name = "SigningFailed";
}

/** The 503 of a PDF that must be signed and cannot be: logged with its cause, which the caller is not told. */
export function signingUnavailable(cause: unknown, message = "This target's PDFs are signed, and the service's signing key cannot be used now: no PDF was made. Try again later; if it persists, an administrator must check the signing configuration."): HttpError {
  logs.signingUnavailable(cause);
  return new HttpError(503, message);
}

/** A secret's value, "" when it is not set (firebase-functions warns and answers "" then). */
const secretValue = (secret: { value(): string }): string => {
  try {
    return secret.value();
  } catch {
    return "";
  }
};

/** The chain of the signing certificate, PEM (SIGNING_CERTIFICATE_CHAIN). */
export const signingChainPem = (): string => secretValue(signingCertificateChain);

const PROBE = new TextEncoder().encode("print-admin: the signing key answers for its certificate");

async function makeSigner(): Promise<PdfSigner> {
  const { kmsSigner, localSigner, SignerConfigurationError } = await import("./signer.js");
  const chainPem = signingChainPem();
  if (!chainPem.trim()) throw new SignerConfigurationError("SIGNING_CERTIFICATE_CHAIN is not set");
  let signer: PdfSigner;
  if (isEmulator()) {
    const keyPem = process.env[LOCAL_SIGNING_KEY_ENV] ?? "";
    if (!keyPem.trim()) throw new SignerConfigurationError(`${LOCAL_SIGNING_KEY_ENV} is not set (the local stack's launcher writes it into functions/.secret.local: start it with npm start)`);
    signer = localSigner(keyPem, chainPem);
  } else {
    const keyVersion = params.signingKmsKey.value();
    if (!keyVersion) throw new SignerConfigurationError("SIGNING_KMS_KEY is not set");
    signer = kmsSigner(keyVersion, chainPem);
  }
  // One signature now: a key that is not the certificate's, disabled, or not ours to use fails here.
  let probe: Uint8Array;
  try {
    probe = await signer.sign(PROBE);
  } catch (error) {
    throw new SignerConfigurationError(`the signing key does not sign: ${(error as Error).message}`);
  }
  const certificate = new X509Certificate(signer.chain[0]);
  if (!verify("sha256", PROBE, { key: certificate.publicKey, dsaEncoding: "der" }, probe)) {
    throw new SignerConfigurationError(`the signing key is not the key of the chain's first certificate (${certificate.subject.replace(/\n/g, ", ")}, fingerprint ${createHash("sha256").update(certificate.raw).digest("hex").slice(0, 16)})`);
  }
  return {
    chain: signer.chain,
    sign: (data) =>
      signer.sign(data).catch((error: unknown) => {
        throw new SigningFailed(`the signing key failed: ${(error as Error).message}`);
      }),
  };
}

/**
 * The chains a signature is trusted with (POST verify): the current chain as configured, and one per
 * signing certificate of SIGNING_PREVIOUS_CHAINS, each followed by its issuers among every configured
 * certificate (so a previous signing certificate under the same CA needs only itself listed).
 * Made once per instance; throws the 503 of signingUnavailable when the current chain cannot be read.
 */
export async function trustedChains(): Promise<Uint8Array[][]> {
  chains ??= (async () => {
    const { certificatesOfPem, SignerConfigurationError } = await import("./signer.js");
    const chainPem = signingChainPem();
    if (!chainPem.trim()) throw new SignerConfigurationError("SIGNING_CERTIFICATE_CHAIN is not set");
    const current = certificatesOfPem(chainPem);
    const previousPem = params.signingPreviousChains.value();
    const previous = previousPem.trim() ? certificatesOfPem(previousPem) : [];
    const pool = [...current, ...previous].map((der) => new X509Certificate(der));
    const chainOf = (leaf: X509Certificate): Uint8Array[] => {
      const chain = [leaf];
      for (;;) {
        const last = chain[chain.length - 1];
        if (chain.length >= 10 || last.checkIssued(last)) break;
        const issuer = pool.find((cert) => cert.ca && !chain.includes(cert) && last.checkIssued(cert) && last.verify(cert.publicKey));
        if (!issuer) break;
        chain.push(issuer);
      }
      return chain.map((cert) => new Uint8Array(cert.raw));
    };
    return [current, ...pool.slice(current.length).filter((cert) => !cert.ca).map(chainOf)];
  })();
  try {
    return await chains;
  } catch (error) {
    chains = undefined;
    throw signingUnavailable(error, "The service's signing certificate chain cannot be read now: no signature can be checked. Try again later; if it persists, an administrator must check the signing configuration.");
  }
}

let chains: Promise<Uint8Array[][]> | undefined;
let made: Promise<PdfSigner> | undefined;

/**
 * The service's signer, made on first use and kept for the instance; a failure is not kept (the
 * next PDF tries again). Throws the 503 of signingUnavailable when it cannot be made.
 */
export async function serviceSigner(): Promise<PdfSigner> {
  made ??= makeSigner();
  try {
    return await made;
  } catch (error) {
    made = undefined;
    throw signingUnavailable(error);
  }
}
