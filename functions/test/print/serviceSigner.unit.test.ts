// The service's signer (src/print/signing/serviceSigner.ts): made once, from the chain secret and the
// emulator's local key or the KMS param; a key or chain that is missing or unusable is a 503 and a
// log line, never a signer that would make an unsigned or unverifiable PDF.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ensureSigningIdentity, type SigningIdentity } from "../../stack/signingCa";

const work = mkdtempSync(join(tmpdir(), "service-signer-"));
let identity: SigningIdentity;
let other: SigningIdentity;
const ENV_KEYS = ["FUNCTIONS_EMULATOR", "SIGNING_CERTIFICATE_CHAIN", "SIGNING_LOCAL_KEY", "SIGNING_KMS_KEY", "SIGNING_PREVIOUS_CHAINS"] as const;
const saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));

beforeAll(() => {
  identity = ensureSigningIdentity(join(work, "a"), new Date());
  other = ensureSigningIdentity(join(work, "b"), new Date());
});
afterEach(() => {
  for (const key of ENV_KEYS) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A fresh copy of the module (its signer is kept per instance) with this environment, and the log lines it writes. */
async function fresh(env: Partial<Record<(typeof ENV_KEYS)[number], string>>) {
  for (const key of ENV_KEYS) delete process.env[key];
  Object.assign(process.env, env);
  vi.resetModules();
  const logs = await import("../../src/logs.js");
  const logged = vi.spyOn(logs, "signingUnavailable").mockImplementation(() => undefined);
  return { module: await import("../../src/print/signing/serviceSigner.js"), logged };
}

async function refusal(promise: Promise<unknown>): Promise<{ statusCode: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { statusCode: number; message: string };
  }
  throw new Error("expected a refusal");
}

describe("serviceSigner", () => {
  it("under the emulator: signs with the local key over the chain secret, made once", async () => {
    const { module } = await fresh({ FUNCTIONS_EMULATOR: "true", SIGNING_CERTIFICATE_CHAIN: identity.chainPem, SIGNING_LOCAL_KEY: identity.keyPem });
    const signer = await module.serviceSigner();
    expect(signer.chain).toHaveLength(2);
    expect(await module.serviceSigner()).toBe(signer);
    expect((await signer.sign(new Uint8Array([1, 2, 3]))).length).toBeGreaterThan(60);
  });

  it.each([
    ["no chain", { FUNCTIONS_EMULATOR: "true", SIGNING_LOCAL_KEY: "x" }, /SIGNING_CERTIFICATE_CHAIN is not set/],
    ["no local key", { FUNCTIONS_EMULATOR: "true", SIGNING_CERTIFICATE_CHAIN: "" }, /SIGNING_LOCAL_KEY is not set/],
    ["a chain that holds no certificate", { FUNCTIONS_EMULATOR: "true", SIGNING_CERTIFICATE_CHAIN: "not a PEM", SIGNING_LOCAL_KEY: "" }, /holds no PEM certificate/],
    ["a key that is not the certificate's", { FUNCTIONS_EMULATOR: "true", SIGNING_CERTIFICATE_CHAIN: "", SIGNING_LOCAL_KEY: "" }, /not the key of the chain's first certificate/],
    ["production without SIGNING_KMS_KEY", { SIGNING_CERTIFICATE_CHAIN: "", SIGNING_KMS_KEY: "" }, /SIGNING_KMS_KEY is not set/],
    ["production with a malformed key name", { SIGNING_CERTIFICATE_CHAIN: "", SIGNING_KMS_KEY: "my-key" }, /not a KMS key version's resource name/],
  ])("is a 503 with a log line, and tried again next time: %s", async (_, env, cause) => {
    // Filled in here: the identities are made in beforeAll.
    const values: Record<string, string> = { ...env };
    if (values.SIGNING_CERTIFICATE_CHAIN === "") values.SIGNING_CERTIFICATE_CHAIN = identity.chainPem;
    if (values.SIGNING_LOCAL_KEY === "") values.SIGNING_LOCAL_KEY = other.keyPem;
    const { module, logged } = await fresh(values);
    const error = await refusal(module.serviceSigner());
    expect(error.statusCode).toBe(503);
    expect(error.message).toMatch(/signing key cannot be used now: no PDF was made/);
    expect(logged).toHaveBeenCalledTimes(1);
    expect(String(logged.mock.calls[0][0])).toMatch(cause);
    await refusal(module.serviceSigner());
    expect(logged).toHaveBeenCalledTimes(2);
  });

  it("a failure of the key while a PDF is signed (a KMS key disabled since) is a 503 and a log line, not a 422 remembered", async () => {
    const { module, logged } = await fresh({ FUNCTIONS_EMULATOR: "true", SIGNING_CERTIFICATE_CHAIN: identity.chainPem, SIGNING_LOCAL_KEY: identity.keyPem });
    const { chain } = await module.serviceSigner();
    const failing = { chain, sign: () => Promise.reject(new module.SigningFailed("the signing key failed: FAILED_PRECONDITION: key version disabled")) };
    const { renderStoredInstance } = await import("../../src/print/documents.js");
    const { DEFAULT_SETTINGS } = await import("../../src/print/settings.js");
    const stored = { title: "T", objectTypeName: "x", sections: [{ title: "S", fields: [{ label: "A", type: "text", value: "b" }] }] };
    const error = await refusal(renderStoredInstance({ path: "tenants/t", name: "T" }, "i", stored, [], { ...DEFAULT_SETTINGS, sign: true }, { signer: failing }));
    expect(error.statusCode).toBe(503);
    expect(String(logged.mock.calls[0][0])).toMatch(/key version disabled/);
  }, 60_000);

  it("trusts the current chain and, after a rotation, the previous signing certificates (each followed by its issuers)", async () => {
    const DAY = 24 * 60 * 60 * 1000;
    const { renderInstancePdf } = await import("../../src/print/render/index.js");
    const { localSigner } = await import("../../src/print/signing/signer.js");
    const { verifyPdfSignature } = await import("../../src/print/signing/verify.js");
    // The old signer, then a rotation under the same CA (ensureSigningIdentity renews the signer near its end).
    const dir = join(work, "rotated");
    const old = ensureSigningIdentity(dir, new Date());
    const signedAt = new Date();
    const instance = { title: "T", objectTypeName: "x", sections: [{ title: "S", fields: [{ label: "A", type: "text" as const, value: "b" }] }] };
    const { bytes } = await renderInstancePdf(instance, { instanceId: "i", targetName: "T", generatedAt: signedAt, signature: { signer: localSigner(old.keyPem, old.chainPem), signedAt } });
    const renewed = ensureSigningIdentity(dir, new Date(Date.now() + 340 * DAY));
    expect(renewed.chainPem).not.toBe(old.chainPem);
    const oldLeafPem = old.chainPem.slice(0, old.chainPem.indexOf("-----END CERTIFICATE-----") + 25);

    const before = (await fresh({ FUNCTIONS_EMULATOR: "true", SIGNING_CERTIFICATE_CHAIN: renewed.chainPem })).module;
    const current = await before.trustedChains();
    expect(current).toHaveLength(1);
    expect((await verifyPdfSignature(bytes, current)).valid).toBe(false);

    // Listed as a previous chain, on one line (as a .env value may hold it), beside an unrelated one: valid again.
    const after = (await fresh({ FUNCTIONS_EMULATOR: "true", SIGNING_CERTIFICATE_CHAIN: renewed.chainPem, SIGNING_PREVIOUS_CHAINS: `${other.chainPem}${oldLeafPem}`.replace(/\n/g, " ") })).module;
    const chains = await after.trustedChains();
    expect(chains.map((chain) => chain.length)).toEqual([2, 2, 2]);
    expect((await verifyPdfSignature(bytes, chains)).valid).toBe(true);

    // No current chain: nothing can be checked, a 503.
    const none = await fresh({ FUNCTIONS_EMULATOR: "true" });
    expect((await refusal(none.module.trustedChains())).statusCode).toBe(503);
  }, 60_000);
});
