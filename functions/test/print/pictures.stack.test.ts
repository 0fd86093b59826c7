// Photos and signatures through the print function: read from the target's own uploads folder only,
// EXIF orientation applied, scaled down to print resolution, and part of the stored PDF's version.

import { getStorage } from "firebase-admin/storage";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { BUCKET } from "../../stack/config";
import { stackAdminApp } from "../../stack/seedStack";
import { firestore, freshUid } from "../api/fixtures";
import { BASES, call, idTokenFor } from "../helpers";
import { pdfImages, popplerLines } from "./popplerText";

const bucket = () => getStorage(stackAdminApp()).bucket(BUCKET);

/** A 2400 x 1600 photo stored rotated: EXIF orientation 6 says to turn it upright (1600 wide, 2400 high). */
async function phonePhoto(): Promise<Buffer> {
  const pixels = Buffer.alloc(2400 * 1600 * 3);
  for (let i = 0; i < 2400 * 1600; i++) pixels.set([(i % 2400) / 10, Math.floor(i / 2400) / 7, 90], i * 3);
  return sharp(pixels, { raw: { width: 2400, height: 1600, channels: 3 } }).jpeg({ quality: 92 }).withMetadata({ orientation: 6 }).toBuffer();
}

const signaturePng = () =>
  sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="400" height="120"><path d="M10 90 C 80 10, 120 110, 200 50 S 300 100, 390 40" stroke="#102040" stroke-width="5" fill="none"/></svg>`))
    .png()
    .toBuffer();

describe("photos and signatures in printed PDFs", () => {
  let reader: string;
  let tenant: string;
  beforeAll(async () => {
    reader = await idTokenFor("north-reader@acme.test");
    tenant = freshUid("pictures");
    const db = firestore();
    await db.doc(`tenants/${tenant}`).set({ name: "Pictures", organizationId: null, features: {} });
    await db.doc(`tenants/${tenant}/members/north-reader`).set({ permissions: ["READ"] });
    await bucket().file(`uploads/tenants/${tenant}/photos/boiler.jpg`).save(await phonePhoto(), { contentType: "image/jpeg" });
    await bucket().file(`uploads/tenants/${tenant}/signatures/inspector.png`).save(await signaturePng(), { contentType: "image/png" });
    await bucket().file("uploads/tenants/acme-south/secret.jpg").save(await phonePhoto(), { contentType: "image/jpeg" });
    await bucket().file(`uploads/tenants/${tenant}/notes.txt`).save("not a picture", { contentType: "text/plain" });
    await db.doc(`tenants/${tenant}/objectInstances/report`).set({
      title: "Boiler inspection with photos",
      objectTypeName: "Inspection",
      sections: [
        {
          title: "Evidence",
          fields: [
            { label: "Boiler", type: "image", value: { storagePath: `uploads/tenants/${tenant}/photos/boiler.jpg`, caption: "Front, after cleaning" } },
            { label: "Another tenant's file", type: "image", value: { storagePath: "uploads/tenants/acme-south/secret.jpg", caption: "Not ours" } },
            { label: "Climbing out", type: "image", value: { storagePath: `uploads/tenants/${tenant}/../acme-south/secret.jpg` } },
            { label: "Not a picture", type: "image", value: { storagePath: `uploads/tenants/${tenant}/notes.txt` } },
            { label: "Inspector", type: "signature", value: { storagePath: `uploads/tenants/${tenant}/signatures/inspector.png`, caption: "A. Okafor, 4 May 2026" } },
          ],
        },
      ],
    });
  });
  const print = () => call(`${BASES.print.functionUrl}/tenant/${tenant}/print`, { method: "POST", auth: { bearer: reader }, body: { objectInstanceId: "report" } });
  const download = async (res: { json: { data: { downloadUrl: string } } }) => new Uint8Array(await (await fetch(res.json.data.downloadUrl)).arrayBuffer());

  it("prints the target's own photo upright and scaled to print resolution, and the signature with its transparency", async () => {
    const res = await print();
    expect(res.status).toBe(201);
    const pdf = await download(res);
    const images = pdfImages(pdf);
    // Upright (EXIF 6: 1600 x 2400), scaled into the 930 x 530 box (200 ppi of the largest box a picture is drawn in).
    expect(images.filter((i) => i.type === "image" && i.color === "rgb").map((i) => [i.width, i.height])).toContainEqual([353, 530]);
    expect(images.some((i) => i.type === "smask" && i.width === 400 && i.height === 120)).toBe(true);
    expect(pdf.length).toBeLessThan(600_000); // the 2400 x 1600 source is not carried whole
    const text = popplerLines(pdf).join("\n");
    expect(text).toContain("Front, after cleaning");
    expect(text).toContain("A. Okafor, 4 May 2026");
  });

  it("never reads outside the target's uploads folder, nor prints what is not a JPEG or PNG: 'image unavailable'", async () => {
    const pdf = await download(await print());
    const text = popplerLines(pdf).join("\n");
    expect(text).toContain("[image unavailable] Not ours");
    expect(text.split("[image unavailable]").length - 1).toBe(3);
    // Only our two pictures are in the file (the photo once as an image; the signature as image + mask).
    expect(pdfImages(pdf).filter((i) => i.type === "image")).toHaveLength(2);
  });

  it("renders again when a picture is uploaded anew (its generation is part of the PDF's version), else reuses the PDF", async () => {
    const first = await print();
    expect((await print()).json.data).toMatchObject({ cached: true, storagePath: first.json.data.storagePath });
    await bucket().file(`uploads/tenants/${tenant}/signatures/inspector.png`).save(await signaturePng(), { contentType: "image/png" });
    const after = await print();
    expect(after.json.data.cached).toBe(false);
    expect(after.json.data.storagePath).not.toBe(first.json.data.storagePath);
  });

  it("prepares a picture once while its version stays, and again once it is uploaded anew (previews as the author types)", async () => {
    const path = `uploads/tenants/${tenant}/photos/kept-${freshUid("p")}.jpg`;
    const photo = (width: number) => sharp({ create: { width, height: 300, channels: 3, background: { r: 40, g: 90, b: 160 } } }).jpeg().toBuffer();
    await bucket().file(path).save(await photo(400), { contentType: "image/jpeg" });
    await firestore().doc(`tenants/${tenant}/objectInstances/kept`).set({ title: "Kept", objectTypeName: "Inspection", sections: [{ title: "S", fields: [{ label: "Photo", type: "image", value: { storagePath: path } }] }] });
    const preview = async () => {
      const res = await fetch(`${BASES.print.functionUrl}/tenant/${tenant}/preview`, { method: "POST", headers: { authorization: `Bearer ${reader}`, "content-type": "application/json" }, body: JSON.stringify({ objectInstanceId: "kept" }), signal: AbortSignal.timeout(20_000) });
      return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
    };
    const storageCalls = (res: Awaited<ReturnType<typeof preview>>) => Number(/storage=(\d+)/.exec(res.headers.get("x-backend-calls") ?? "")?.[1] ?? 0);
    const widths = (res: Awaited<ReturnType<typeof preview>>) => pdfImages(res.bytes).filter((i) => i.type === "image").map((i) => i.width);
    const first = await preview();
    expect(first.status).toBe(200);
    expect(widths(first)).toEqual([400]);
    // Its metadata is read every time (where it is, whether it changed); its bytes only the first time.
    const again = await preview();
    expect(storageCalls(again)).toBe(storageCalls(first) - 1);
    expect(widths(again)).toEqual([400]);
    await bucket().file(path).save(await photo(500), { contentType: "image/jpeg" });
    const anew = await preview();
    expect(storageCalls(anew)).toBe(storageCalls(first));
    expect(widths(anew)).toEqual([500]);
  });

  it("prints the demo's inspection-photos: four photos and a signature the seed drew and uploaded, and the organization's logo", async () => {
    const res = await call(`${BASES.print.functionUrl}/tenant/acme-north/print`, { method: "POST", auth: { bearer: reader }, body: { objectInstanceId: "inspection-photos" } });
    expect(res.status).toBe(201);
    const images = pdfImages(await download(res));
    expect(images.filter((i) => i.type === "image" && i.color === "rgb" && i.width === 707 && i.height === 530)).toHaveLength(4);
    // The signature's and the logo's transparency; the logo (400 x 120) on page 1 only.
    expect(images.filter((i) => i.type === "smask")).toHaveLength(2);
    expect(images.filter((i) => i.width === 400 && i.height === 120)).toEqual([expect.objectContaining({ page: 1, type: "image" }), expect.objectContaining({ page: 1, type: "smask" })]);
  });
});
