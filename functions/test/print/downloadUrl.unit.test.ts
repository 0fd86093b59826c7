import { createHash, generateKeyPairSync, verify } from "node:crypto";
import { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { suiteClock } from "../suiteClock";
import { REUSE_SIGNED_URL_MS, SIGNED_URL_TTL_MS, emulatorDownloadUrl, reusable, reusingSignedUrls, signedReadUrl } from "../../src/print/documents";

// The production path signs locally here: a service-account key made in the test, so no network
// and no IAM. In production the same call signs through IAM signBlob instead (README, Deploying).
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const clientEmail = "print-runtime@example-project.iam.gserviceaccount.com";
const storage = new Storage({
  projectId: "example-project",
  credentials: { client_email: clientEmail, private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString() },
});
const objectName = "generated-pdfs/tenants/acme-north/inspection-short/r1-1767225600000000000.pdf";
const file = storage.bucket("example-project.appspot.com").file(objectName);

/** RFC 3986 encoding, as the V4 canonical query string uses. */
const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

describe("signedReadUrl (production)", () => {
  // A fixed instant for exact expectations, and the clock the Storage client reads (it refuses an
  // expiry in the past) set to it, so the test passes whatever the date it runs on.
  const now = Date.parse("2026-11-22T10:00:00Z");
  beforeAll(() => vi.useFakeTimers({ now, toFake: ["Date"] }));
  afterAll(suiteClock);

  it("is a V4 URL for GET of exactly this object, valid 900 seconds from now", async () => {
    const { url, expiresAt } = await signedReadUrl(file, now);
    const parsed = new URL(url);
    expect(parsed.origin).toBe("https://storage.googleapis.com");
    expect(decodeURIComponent(parsed.pathname)).toBe(`/example-project.appspot.com/${objectName}`);
    const q = parsed.searchParams;
    expect(q.get("X-Goog-Algorithm")).toBe("GOOG4-RSA-SHA256");
    expect(q.get("X-Goog-Expires")).toBe("900");
    expect(q.get("X-Goog-Date")).toBe("20261122T100000Z");
    expect(q.get("X-Goog-Credential")).toBe(`${clientEmail}/20261122/auto/storage/goog4_request`);
    expect(q.get("X-Goog-SignedHeaders")).toBe("host");
    expect(q.get("X-Goog-Signature")).toMatch(/^[0-9a-f]{512}$/);
    expect(expiresAt).toBe(new Date(now + SIGNED_URL_TTL_MS).toISOString());
    expect(SIGNED_URL_TTL_MS).toBe(15 * 60 * 1000);
  });

  it("carries a signature that verifies with the key's public half, and fails for any other request", async () => {
    const { url } = await signedReadUrl(file, now);
    const parsed = new URL(url);
    const signature = Buffer.from(parsed.searchParams.get("X-Goog-Signature")!, "hex");
    const stringToSign = (pathname: string, expires = "900") => {
      const params = [...parsed.searchParams.entries()].filter(([k]) => k !== "X-Goog-Signature").map(([k, v]) => [k, k === "X-Goog-Expires" ? expires : v]);
      const query = params.sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`).join("&");
      const canonicalRequest = ["GET", pathname, query, `host:${parsed.host}`, "", "host", "UNSIGNED-PAYLOAD"].join("\n");
      const scope = parsed.searchParams.get("X-Goog-Credential")!.split("/").slice(1).join("/");
      return ["GOOG4-RSA-SHA256", parsed.searchParams.get("X-Goog-Date"), scope, createHash("sha256").update(canonicalRequest).digest("hex")].join("\n");
    };
    expect(verify("RSA-SHA256", Buffer.from(stringToSign(parsed.pathname)), publicKey, signature)).toBe(true);
    expect(verify("RSA-SHA256", Buffer.from(stringToSign(parsed.pathname.replace("inspection-short", "audit-long"))), publicKey, signature)).toBe(false);
    expect(verify("RSA-SHA256", Buffer.from(stringToSign(parsed.pathname, "604800")), publicKey, signature)).toBe(false);
  });
});

describe("reusingSignedUrls (production: print's URLs)", () => {
  const start = Date.parse("2026-11-22T10:00:00Z");
  let clock = start;
  beforeAll(() => vi.useFakeTimers({ now: start, toFake: ["Date"] }));
  afterAll(suiteClock);

  it("signs an object's URL once and gives it again while it has more than 5 minutes left, then signs anew", async () => {
    let signatures = 0;
    const sign = async (f: typeof file, now: number) => {
      signatures++;
      vi.setSystemTime(now);
      const url = await signedReadUrl(f, now);
      clock += 30_000; // signing takes time (an IAM call): what is reused is measured from the URL's own expiry
      return url;
    };
    const urlOf = reusingSignedUrls(() => clock, sign);
    clock = start;
    // Requests that miss at once share one signature.
    const [first, same] = await Promise.all([urlOf(file), urlOf(file)]);
    expect(same).toEqual(first);
    expect(signatures).toBe(1);
    expect(first.expiresAt).toBe(new Date(start + SIGNED_URL_TTL_MS).toISOString());
    // A print of the same stored PDF just over 9 minutes later: the same URL, which still has more than 5 minutes.
    clock = start + SIGNED_URL_TTL_MS - REUSE_SIGNED_URL_MS - 1;
    expect(await urlOf(file)).toEqual(first);
    expect(signatures).toBe(1);
    // Another object (another instance, or another target's) is never given this URL.
    const other = storage.bucket("example-project.appspot.com").file(objectName.replace("acme-north", "acme-south"));
    const theirs = await urlOf(other);
    expect(decodeURIComponent(new URL(theirs.url).pathname)).toContain("/tenants/acme-south/");
    expect(signatures).toBe(2);
    // With 5 minutes or less left, a new URL valid 15 minutes from then.
    clock = start + SIGNED_URL_TTL_MS - REUSE_SIGNED_URL_MS;
    const renewed = await urlOf(file);
    expect(signatures).toBe(3);
    expect(renewed.url).not.toBe(first.url);
    expect(renewed.expiresAt).toBe(new Date(start + SIGNED_URL_TTL_MS - REUSE_SIGNED_URL_MS + SIGNED_URL_TTL_MS).toISOString());
    expect(new URL(renewed.url).searchParams.get("X-Goog-Date")).toBe("20261122T101000Z");
  });

  it("keeps no failed signature: the next request signs again", async () => {
    let calls = 0;
    const urlOf = reusingSignedUrls(() => start, async (f, now) => {
      calls++;
      if (calls === 1) throw new Error("signBlob unavailable");
      vi.setSystemTime(now);
      return signedReadUrl(f, now);
    });
    await expect(urlOf(file)).rejects.toThrow("signBlob unavailable");
    expect((await urlOf(file)).expiresAt).toBe(new Date(start + SIGNED_URL_TTL_MS).toISOString());
    expect(calls).toBe(2);
  });

  it("reusable: more than 5 minutes left, never the emulator's URL without expiry", () => {
    const url = { url: "https://storage.googleapis.com/b/o", expiresAt: new Date(start + SIGNED_URL_TTL_MS).toISOString() };
    expect(reusable(url, start + SIGNED_URL_TTL_MS - REUSE_SIGNED_URL_MS - 1)).toBe(true);
    expect(reusable(url, start + SIGNED_URL_TTL_MS - REUSE_SIGNED_URL_MS)).toBe(false);
    expect(reusable({ url: "http://127.0.0.1:9199/x", expiresAt: null }, start)).toBe(false);
    expect(reusable(undefined, start)).toBe(false);
  });
});

describe("emulatorDownloadUrl", () => {
  it("is the storage emulator's token URL, with the object name encoded as one segment, and no expiry", () => {
    expect(emulatorDownloadUrl("127.0.0.1:9199", "demo-print-admin.appspot.com", "generated-pdfs/tenants/t/a b.pdf", "tok en")).toEqual({
      url: "http://127.0.0.1:9199/v0/b/demo-print-admin.appspot.com/o/generated-pdfs%2Ftenants%2Ft%2Fa%20b.pdf?alt=media&token=tok%20en",
      expiresAt: null,
    });
  });
});
