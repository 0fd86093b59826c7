import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { getStorage } from "firebase-admin/storage";
import { describe, expect, it } from "vitest";
import { BUCKET, ROOT_DIR, URLS } from "../../stack/config";
import { stackAdminApp } from "../../stack/seedStack";
import { call } from "../helpers";

const bucket = () => getStorage(stackAdminApp()).bucket(BUCKET);
const mediaUrl = (name: string, token?: string) =>
  `${URLS.storage}/v0/b/${BUCKET}/o/${encodeURIComponent(name)}?alt=media${token === undefined ? "" : `&token=${token}`}`;

async function storeWithToken(contents: string): Promise<{ name: string; token: string }> {
  const name = `stack-tests/${randomUUID()}.txt`;
  const token = randomUUID();
  await bucket().file(name).save(contents, { contentType: "text/plain", metadata: { metadata: { firebaseStorageDownloadTokens: token } } });
  return { name, token };
}

describe("the storage emulator as the stack runs it", () => {
  it("stores through the Admin SDK and serves the file by download token", async () => {
    const { name, token } = await storeWithToken("hello from the admin sdk");
    const res = await call(mediaUrl(name, token));
    expect(res.status).toBe(200);
    expect(res.text).toBe("hello from the admin sdk");
    const [exists] = await bucket().file(name).exists();
    expect(exists).toBe(true);
  });

  // A print job's archive can be hundreds of MB: it goes up as a resumable upload in chunks, which the
  // emulator (one request of at most 130 MB, and the first chunk taken as the whole) takes only with
  // the stack's patch (stack/patches/firebase-tools+*.patch).
  it("stores an object sent as a resumable upload in several chunks, whole", async () => {
    const file = bucket().file(`stack-tests/${randomUUID()}.bin`);
    const chunk = 256 * 1024;
    const bytes = Buffer.alloc(4 * chunk + 1000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff;
    await new Promise<void>((resolve, reject) => file.createWriteStream({ resumable: true, chunkSize: chunk }).on("error", reject).on("finish", resolve).end(bytes));
    const [stored] = await file.download();
    expect(stored.length).toBe(bytes.length);
    expect(stored.equals(bytes)).toBe(true);
    await file.delete();
  }, 60_000);

  it("rejects a wrong token, and no token at all", async () => {
    const { name } = await storeWithToken("secret");
    for (const url of [mediaUrl(name, randomUUID()), mediaUrl(name)]) {
      const res = await call(url);
      expect(res.status).toBe(403);
      expect(res.text).not.toContain("secret");
    }
  });

  it("rejects a client upload that is not the admin (rules deny everything)", async () => {
    const res = await call(`${URLS.storage}/v0/b/${BUCKET}/o?name=${encodeURIComponent("generated-pdfs/evil.pdf")}`, {
      method: "POST",
      headers: { "content-type": "application/pdf", authorization: "Bearer not-the-admin" },
      body: "%PDF-",
    });
    expect(res.status).toBe(403);
    const [exists] = await bucket().file("generated-pdfs/evil.pdf").exists();
    expect(exists).toBe(false);
  });
});

describe("the firebase-tools internals the storage fallback relies on", () => {
  // stack/storageFallback.ts subclasses firebase-tools' StorageEmulator and replaces its rules
  // runtime. These pins fail loudly when an upgrade of firebase-tools changes what it uses.
  const rootPackage = JSON.parse(readFileSync(`${ROOT_DIR}/package.json`, "utf8"));
  const load = (path: string) => require(require.resolve(`firebase-tools/${path}`, { paths: [ROOT_DIR] }));

  it("firebase-tools is pinned exactly, and the installed version is the pinned one", () => {
    const pinned = rootPackage.devDependencies["firebase-tools"];
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(load("package.json").version).toBe(pinned);
  });

  it("StorageEmulator still builds its rules manager through an overridable method and keeps its runtime in _rulesRuntime", () => {
    const { StorageEmulator } = load("lib/emulator/storage");
    expect(typeof StorageEmulator).toBe("function");
    expect(typeof StorageEmulator.prototype.createRulesManager).toBe("function");
    const source = StorageEmulator.toString();
    expect(source).toContain("this._rulesRuntime = new");
    expect(source).toContain("this._rulesManager = this.createRulesManager(");
    expect(source).toMatch(/async start\(\)[\s\S]*this\._rulesRuntime\.start\(/);
  });

  it("the storage layer still checks download tokens and admin credentials before rules", () => {
    const files = readFileSync(require.resolve("firebase-tools/lib/emulator/storage/files.js", { paths: [ROOT_DIR] }), "utf8");
    expect(files).toMatch(/hasValidDownloadToken = \(metadata\?\.downloadTokens \|\| \[\]\)\.includes\(request\.downloadToken/);
    const { isPermitted } = load("lib/emulator/storage/rules/utils");
    expect(isPermitted.toString()).toMatch(/isValidAdminCredentials\(opts\.authorization\)[\s\S]*opts\.ruleset\.verify\(/);
  });

  it("StorageEmulator still serves an Express app, kept in getApp(), which the fault switch wraps (stack/faults.ts)", () => {
    const { StorageEmulator } = load("lib/emulator/storage");
    expect(typeof StorageEmulator.prototype.getApp).toBe("function");
    expect(StorageEmulator.toString()).toMatch(/this\._app = await \(0, server_1\.createApp\)\([\s\S]*this\._app\.listen\(/);
  });

  it("the emulator registry still starts and stops instances by name", () => {
    const { EmulatorRegistry } = load("lib/emulator/registry");
    const { Emulators } = load("lib/emulator/types");
    expect(typeof EmulatorRegistry.start).toBe("function");
    expect(typeof EmulatorRegistry.stop).toBe("function");
    expect(Emulators.STORAGE).toBe("storage");
  });
});
