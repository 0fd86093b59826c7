// The logo: uploaded by PUT /api/{target}/print-settings/logo (PNG or JPEG, at most 1 MB) into the
// target's uploads folder, inherited by the targets below, printed at the head of the first page,
// and part of the stored PDF's version; bad bodies and bad stored logos never fail a print.

import { getStorage } from "firebase-admin/storage";
import { connect } from "node:net";
import { crc32 } from "node:zlib";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { Timestamp } from "firebase-admin/firestore";
import { LOGO_LIMITS } from "../../src/print/pictures";
import { quotaDocumentPath } from "../../src/print/rateLimit";
import { BUCKET } from "../../stack/config";
import { stackAdminApp } from "../../stack/seedStack";
import { BASES, REQUEST_TIMEOUT_MS, call, idTokenFor } from "../helpers";
import { pdfImages } from "../print/popplerText";
import { apiUrl, firestore, freshUid, readDoc } from "./fixtures";

const bucket = () => getStorage(stackAdminApp()).bucket(BUCKET);

const logoPng = (colour: string, width = 480, height = 160) =>
  sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect x="4" y="4" width="${height - 8}" height="${height - 8}" rx="24" fill="${colour}"/></svg>`))
    .png()
    .toBuffer();

describe("PUT /api/{target}/print-settings/logo and the logo in printed PDFs", () => {
  let orgAdmin: string;
  let reader: string;
  let org: string;
  let tenant: string;
  beforeAll(async () => {
    [orgAdmin, reader] = await Promise.all([idTokenFor("org-admin@acme.test"), idTokenFor("north-reader@acme.test")]);
    // A fresh organization administered by the demo's organization admin, with one tenant and an instance.
    org = freshUid("logo-org");
    tenant = freshUid("logo-tenant");
    const db = firestore();
    await db.doc(`organizations/${org}`).set({ name: "Logo Org", features: {} });
    await db.doc(`organizations/${org}/members/org-admin`).set({ permissions: ["ADMIN"] });
    await db.doc(`tenants/${tenant}`).set({ name: "Logo Tenant", organizationId: org, features: {} });
    await db.doc(`tenants/${tenant}/members/north-reader`).set({ permissions: ["READ"] });
    await db.doc(`tenants/${tenant}/objectInstances/doc`).set({ title: "Doc", objectTypeName: "T", sections: [{ title: "S", fields: [{ label: "Done", type: "boolean", value: true }] }] });
  });
  const orgTarget = () => `/organization/${org}`;
  const tenantTarget = () => `/organization/${org}/tenant/${tenant}`;
  const upload = (body: Uint8Array | string, contentType: string, target = orgTarget(), token = orgAdmin) =>
    fetch(apiUrl(`${target}/print-settings/logo`), {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": contentType },
      body,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    }).then(async (res) => ({ status: res.status, headers: res.headers, json: (await res.json()) as any }));
  const print = () => call(`${BASES.print.functionUrl}/tenant/${tenant}/print`, { method: "POST", auth: { bearer: reader }, body: { objectInstanceId: "doc" } });
  const pdfOf = async (printed: Awaited<ReturnType<typeof print>>) => new Uint8Array(await (await fetch(printed.json.data.downloadUrl)).arrayBuffer());

  it("stores an organization's logo in its folder; its tenants print it on the first page; a new upload is a new PDF", async () => {
    const before = await print();
    expect(before.status).toBe(201);
    expect(pdfImages(await pdfOf(before))).toEqual([]);

    const png = await logoPng("#1f4e79");
    const saved = await upload(png, "image/png");
    expect(saved.status).toBe(200);
    // Named by its bytes: the path is the logo's version.
    const path = saved.json.data.own.logo as string;
    expect(path).toMatch(new RegExp(`^uploads/organizations/${org}/print-settings/logo-[0-9a-f]{16}\\.png$`));
    expect(saved.json.data).toMatchObject({ effective: { logo: path }, sources: { logo: `organizations/${org}` }, own: { logo: path } });
    const [metadata] = await bucket().file(path).getMetadata();
    expect(metadata.contentType).toBe("image/png");
    expect((await readDoc(`organizations/${org}`))?.print).toEqual({ logo: path });
    const tenantSettings = await call(apiUrl(`${tenantTarget()}/print-settings`), { auth: { bearer: orgAdmin } });
    expect(tenantSettings.json.data).toMatchObject({ effective: { logo: path }, sources: { logo: `organizations/${org}` }, own: {} });

    const printed = await print();
    expect(printed.json.data).toMatchObject({ cached: false });
    expect(printed.json.data.storagePath).not.toBe(before.json.data.storagePath);
    // The logo and its alpha, at its pixel size (480 x 160 fits the logo's 625 x 210 box: 300 ppi of 150 x 50 pt).
    expect(pdfImages(await pdfOf(printed))).toEqual([
      expect.objectContaining({ page: 1, type: "image", width: 480, height: 160 }),
      expect.objectContaining({ page: 1, type: "smask", width: 480, height: 160 }),
    ]);
    expect((await print()).json.data).toMatchObject({ cached: true, storagePath: printed.json.data.storagePath });

    // The same bytes again: the same path, the same PDF.
    expect((await upload(png, "image/png")).json.data.own.logo).toBe(path);
    expect((await print()).json.data).toMatchObject({ cached: true, storagePath: printed.json.data.storagePath });

    // Another logo (a JPEG, larger than a logo is embedded: scaled down) is another path, so another PDF.
    const jpeg = await sharp({ create: { width: 1200, height: 300, channels: 3, background: "#c02020" } }).jpeg().toBuffer();
    const replaced = await upload(jpeg, "image/jpeg");
    expect(replaced.status).toBe(200);
    expect(replaced.json.data.own.logo).toMatch(/\/logo-[0-9a-f]{16}\.jpg$/);
    expect((await bucket().file(replaced.json.data.own.logo).getMetadata())[0].contentType).toBe("image/jpeg");
    const again = await print();
    expect(again.json.data.cached).toBe(false);
    expect(pdfImages(await pdfOf(again))).toEqual([expect.objectContaining({ page: 1, type: "image", width: 625, height: 156, enc: "jpeg" })]);

    const events = await call(apiUrl(`${orgTarget()}/audit-events?action=printSettings.logoUploaded`), { auth: { bearer: orgAdmin } });
    expect(events.json.data).toHaveLength(3);
    expect(events.json.data[0]).toMatchObject({ subject: "print-settings", target: `organizations/${org}`, details: { logo: replaced.json.data.own.logo, format: "jpeg", sizeBytes: jpeg.length } });
  });

  it("refuses what is not a PNG or JPEG of at most 1 MB, and a reader, changing nothing", async () => {
    const files = async () => (await bucket().getFiles({ prefix: `uploads/organizations/${org}/` }))[0].map((f) => f.name).sort();
    const stored = await files();
    const settings = async () => (await call(apiUrl(`${orgTarget()}/print-settings`), { auth: { bearer: orgAdmin } })).json.data;
    const before = await settings();
    const png = await logoPng("#000000");
    const cases: [Uint8Array | string, string, number, RegExp][] = [
      [JSON.stringify({ logo: "x" }), "application/json", 415, /image\/png or image\/jpeg/],
      [png, "image/gif", 415, /image\/png or image\/jpeg/],
      [new Uint8Array(Buffer.from("not an image at all")), "image/png", 400, /not a PNG or JPEG/],
      [png.subarray(0, png.length - 40), "image/png", 400, /not a readable PNG/],
      [await sharp(png).webp().toBuffer(), "image/png", 400, /webp file/],
      [new Uint8Array(1024 * 1024 + 1), "image/png", 413, /1048576 bytes/],
      [new Uint8Array(0), "image/png", 400, /file's bytes/],
    ];
    for (const [body, type, status, message] of cases) {
      const res = await upload(body, type);
      expect(res.status, `${type} ${body.length}`).toBe(status);
      expect(res.json.message).toMatch(message);
    }
    // An image with more pixels than a logo may decode, in few bytes.
    const huge = await sharp({ create: { width: 10_000, height: 3_000, channels: 3, background: "#ffffff" } }).png().toBuffer();
    expect((await upload(huge, "image/png")).status).toBe(422);
    // One that claims 60,000 x 60,000 pixels, past sharp's own limit too: told its size as well.
    const claimed = Buffer.from(huge);
    claimed.writeUInt32BE(60_000, 16);
    claimed.writeUInt32BE(60_000, 20);
    claimed.writeUInt32BE(crc32(claimed.subarray(12, 29)), 29); // IHDR's type and data
    const tooLarge = await upload(claimed, "image/png");
    expect(tooLarge.status).toBe(422);
    expect(tooLarge.json.message).toBe(`The logo has 3600000000 pixels; the limit is ${LOGO_LIMITS.pixels}.`);
    expect((await upload(png, "image/png", `/tenant/${tenant}`, reader)).status).toBe(401);
    expect(await settings()).toEqual(before);
    expect(await files()).toEqual(stored);
  });

  it("takes a logo path only in the target's own folder, and prints without a logo that is missing or broken", async () => {
    const put = (body: unknown) => call(apiUrl(`${tenantTarget()}/print-settings`), { method: "PUT", auth: { bearer: orgAdmin }, body });
    for (const logo of [`uploads/organizations/${org}/print-settings/logo.png`, "uploads/tenants/acme-south/logo.png", `uploads/tenants/${tenant}/../acme-south/logo.png`, `generated-pdfs/tenants/${tenant}/x.pdf`]) {
      const res = await put({ logo });
      expect(res.status, logo).toBe(400);
      expect(res.json.message).toContain("'logo'");
    }
    // The tenant's own logo path, not uploaded yet: the PDF prints without a logo.
    const own = `uploads/tenants/${tenant}/brand/logo.png`;
    expect((await put({ logo: own })).json.data).toMatchObject({ effective: { logo: own }, sources: { logo: `tenants/${tenant}` } });
    const missing = await print();
    expect(missing.status).toBe(201);
    expect(pdfImages(await pdfOf(missing))).toEqual([]);
    // A broken file (written past the route, which would refuse it): still printed, without it.
    const brokenPath = `uploads/tenants/${tenant}/brand/broken.png`;
    await bucket().file(brokenPath).save(Buffer.from("\x89PNG\r\n\x1a\n broken"), { contentType: "image/png" });
    expect((await put({ logo: brokenPath })).status).toBe(200);
    const broken = await print();
    expect(broken.status).toBe(201);
    expect(broken.json.data.storagePath).not.toBe(missing.json.data.storagePath);
    expect(pdfImages(await pdfOf(broken))).toEqual([]);
    // A stored path outside the folder of the target that sets it is not used: the organization's logo is inherited again.
    await firestore().doc(`tenants/${tenant}`).update({ "print.logo": "uploads/tenants/acme-south/logo.png" });
    const inherited = await call(apiUrl(`${tenantTarget()}/print-settings`), { auth: { bearer: orgAdmin } });
    expect(inherited.json.data.sources.logo).toBe(`organizations/${org}`);
    expect(pdfImages(await pdfOf(await print()))).toEqual([expect.objectContaining({ page: 1, width: 625, height: 156 })]);
  });

  // Issue 38, F6: five 0.94 MB uploads in a row all answered 200 and stayed in Storage for good.
  it("removes the logo an upload or a settings change replaces, and only the ones the route stored", async () => {
    const exists = async (path: string) => (await bucket().file(path).exists())[0];
    const first = (await upload(await logoPng("#206020"), "image/png")).json.data.own.logo as string;
    const second = await upload(await logoPng("#602020"), "image/png");
    expect(second.status).toBe(200);
    const current = second.json.data.own.logo as string;
    expect(await exists(current)).toBe(true);
    expect(await exists(first)).toBe(false);
    // A settings change that leaves the logo out (inherited again) removes it too.
    const put = (body: unknown) => call(apiUrl(`${orgTarget()}/print-settings`), { method: "PUT", auth: { bearer: orgAdmin }, body });
    expect((await put({ footerText: "Logo gone" })).status).toBe(200);
    expect(await exists(current)).toBe(false);
    // A logo the route did not store (a file of the target's own, named in the settings) is never removed.
    const own = `uploads/organizations/${org}/brand/logo.png`;
    await bucket().file(own).save(await logoPng("#202060"), { contentType: "image/png" });
    expect((await put({ logo: own })).status).toBe(200);
    expect((await upload(await logoPng("#606020"), "image/png")).status).toBe(200);
    expect(await exists(own)).toBe(true);
    const stored = (await bucket().getFiles({ prefix: `uploads/organizations/${org}/print-settings/` }))[0].map((f) => f.name);
    expect(stored).toHaveLength(1);
  });

  it("refuses a settings PUT that lost its body with 400, keeping the settings and the uploaded logo", async () => {
    const saved = await upload(await logoPng("#205050"), "image/png");
    expect(saved.status).toBe(200);
    const logo = saved.json.data.own.logo as string;
    const settingsUrl = apiUrl(`${orgTarget()}/print-settings`);
    expect((await call(settingsUrl, { method: "PUT", auth: { bearer: orgAdmin }, body: { footerText: "Kept", logo } })).status).toBe(200);
    const before = (await call(settingsUrl, { auth: { bearer: orgAdmin } })).json;
    // Each of these, read as {}, would clear every key.
    const chunked = (text: string) => new ReadableStream({ start: (c) => (text && c.enqueue(new TextEncoder().encode(text)), c.close()) });
    const refused = (): [name: string, init: RequestInit, status: number, message: string][] => [
      ["JSON, no body (fetch declares Content-Length 0)", { headers: { "content-type": "application/json" } }, 400, "The body is empty"],
      ["JSON, an empty chunked body", { headers: { "content-type": "application/json" }, body: chunked(""), duplex: "half" } as RequestInit, 400, "The body is empty"],
      // Nothing parses a body of no type: unread, it would pass for none.
      ["no type, a chunked body", { body: chunked("{}"), duplex: "half" } as RequestInit, 415, "must be JSON"],
      ["no type, an empty chunked body", { body: chunked(""), duplex: "half" } as RequestInit, 400, "The body is empty"],
    ];
    // At the function's URL and through the Hosting rewrite (whose proxy, patched, forwards a chunked body as one).
    for (const url of [settingsUrl, `${BASES.api.hosting}${orgTarget()}/print-settings`]) {
      for (const [name, init, status, message] of refused()) {
        const res = await fetch(url, { ...init, method: "PUT", headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${orgAdmin}` }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
        expect(res.status, `${name} at ${url}`).toBe(status);
        expect(((await res.json()) as { message: string }).message, name).toContain(message);
      }
    }
    // No Content-Length, no Transfer-Encoding, no type: a request that has no body (fetch cannot send
    // it). The functions emulator forwards it chunked, so it may arrive as a body of no type (415).
    const { hostname, port, pathname } = new URL(settingsUrl);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => socket.write(`PUT ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${orgAdmin}\r\nConnection: close\r\n\r\n`));
      let answer = "";
      socket.setEncoding("utf8").on("data", (d: string) => (answer += d)).on("end", () => resolve(answer)).on("error", reject);
    });
    expect(["HTTP/1.1 400 Bad Request", "HTTP/1.1 415 Unsupported Media Type"]).toContain(raw.split("\r\n")[0]);
    expect((await call(settingsUrl, { auth: { bearer: orgAdmin } })).json).toEqual(before);
    expect(before.data.own).toMatchObject({ footerText: "Kept", logo });
    expect((await bucket().file(logo).exists())[0]).toBe(true);
    // {} is the way to clear them, and removes the logo the route stored.
    expect((await call(settingsUrl, { method: "PUT", auth: { bearer: orgAdmin }, body: {} })).json.data.own).toEqual({});
    expect((await bucket().file(logo).exists())[0]).toBe(false);
  });

  it("refuses an upload past the target's daily quota with 429 and Retry-After, storing nothing", async () => {
    const target = `organizations/${org}`;
    const files = async () => (await bucket().getFiles({ prefix: `uploads/${target}/` }))[0].map((f) => f.name).sort();
    const [before, settingsBefore] = [await files(), await readDoc(target)];
    // The quota's counter as if this target had uploaded all day (counting 50 real uploads would take the test a minute).
    await firestore().doc(quotaDocumentPath("logoUpload", target)).set({ action: "logoUpload", windowStart: Timestamp.now(), count: 1_000_000, expiresAt: Timestamp.fromMillis(Date.now() + 86_400_000) });
    const refused = await upload(await logoPng("#123456"), "image/png");
    expect(refused.status).toBe(429);
    expect(refused.json.message).toMatch(/^At most \d+ logo uploads per target per day; try again in \d+ s\.$/);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await files()).toEqual(before);
    expect(await readDoc(target)).toEqual(settingsBefore);
    await firestore().doc(quotaDocumentPath("logoUpload", target)).delete();
    expect((await upload(await logoPng("#123456"), "image/png")).status).toBe(200);
  });
});
