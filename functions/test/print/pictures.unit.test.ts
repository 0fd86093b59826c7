// Image and signature fields in the renderer: pictures arrive prepared (RenderOptions.images), are
// embedded once each (a JPEG as it is, pixels with their alpha as a soft mask), scaled into the value
// column, and read back with poppler's pdfimages; a picture not prepared prints "image unavailable".

import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { renderInstancePdf, type PreparedImage, type PrintableInstance } from "../../src/print/render";
import { pageRaster, pdfImages, popplerLines } from "./popplerText";

let photo: PreparedImage;
let signature: PreparedImage;
beforeAll(async () => {
  // A 600 x 400 photo (a gradient) as JPEG, and a 300 x 100 signature: black strokes on transparency.
  const gradient = Buffer.alloc(600 * 400 * 3);
  for (let i = 0; i < 600 * 400; i++) gradient.set([(i % 600) * 0.4, Math.floor(i / 600) * 0.6, 128], i * 3);
  const jpeg = await sharp(gradient, { raw: { width: 600, height: 400, channels: 3 } }).jpeg({ quality: 80 }).toBuffer();
  photo = { format: "jpeg", bytes: new Uint8Array(jpeg), width: 600, height: 400, channels: 3 };
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="100"><path d="M10 70 C 60 10, 90 90, 140 40 S 220 80, 290 30" stroke="black" stroke-width="4" fill="none"/></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const pixels = new Uint8Array(info.width * info.height);
  const alpha = new Uint8Array(info.width * info.height);
  for (let i = 0; i < info.width * info.height; i++) {
    pixels[i] = data[i * 4];
    alpha[i] = data[i * 4 + 3];
  }
  signature = { format: "pixels", pixels, alpha, width: info.width, height: info.height, channels: 1 };
});

const report = (fields: PrintableInstance["sections"][number]["fields"]): PrintableInstance => ({ title: "Inspection with photos", objectTypeName: "Inspection", sections: [{ title: "Evidence", fields }] });
const options = (images: Map<string, PreparedImage>, locale?: string) => ({ instanceId: "photos", targetName: "Acme North", generatedAt: new Date("2026-05-04T16:12:05Z"), images, locale });

describe("pictures", () => {
  it("embeds each photo once at its pixel size, however often it is drawn, and a signature with its alpha", async () => {
    const images = new Map([
      ["uploads/tenants/acme-north/boiler.jpg", photo],
      ["uploads/tenants/acme-north/signature.png", signature],
    ]);
    const pdf = await renderInstancePdf(
      report([
        { label: "Boiler", type: "image", value: { storagePath: "uploads/tenants/acme-north/boiler.jpg", caption: "Front view, 4 May" } },
        { label: "Boiler again", type: "image", value: { storagePath: "uploads/tenants/acme-north/boiler.jpg" } },
        { label: "Inspector", type: "signature", value: { storagePath: "uploads/tenants/acme-north/signature.png", caption: "F. Lefèvre, 4 May 2026" } },
      ]),
      options(images),
    );
    const list = pdfImages(pdf.bytes);
    const drawnPhotos = list.filter((i) => i.enc === "jpeg");
    expect(drawnPhotos).toHaveLength(2); // drawn twice
    expect(drawnPhotos.every((i) => i.width === 600 && i.height === 400 && i.color === "rgb")).toBe(true);
    const sig = list.filter((i) => i.type === "image" && i.color === "gray" && i.width === 300);
    expect(sig).toHaveLength(1);
    expect(list.some((i) => i.type === "smask" && i.width === 300 && i.height === 100)).toBe(true);
    // One XObject for the photo in the file, whatever the number of times it is drawn.
    expect(Buffer.from(pdf.bytes).toString("latin1").match(/\/DCTDecode/g)).toHaveLength(1);
    const text = popplerLines(pdf.bytes).join("\n");
    expect(text).toContain("Front view, 4 May");
    expect(text).toContain("F. Lefèvre, 4 May 2026");
  });

  it("prints the locale's 'image unavailable' for a picture the caller did not prepare, with its caption", async () => {
    const fields = [{ label: "Photo", type: "image" as const, value: { storagePath: "uploads/tenants/other/secret.jpg", caption: "Roof" } }];
    expect(popplerLines((await renderInstancePdf(report(fields), options(new Map()))).bytes).join("\n")).toContain("[image unavailable] Roof");
    expect(popplerLines((await renderInstancePdf(report(fields), options(new Map(), "de-DE"))).bytes).join("\n")).toContain("[Bild nicht verfügbar] Roof");
    expect(pdfImages((await renderInstancePdf(report(fields), options(new Map()))).bytes)).toEqual([]);
  });

  it("keeps a picture whole on one page: a photo that does not fit moves to the next page", async () => {
    const images = new Map([["p.jpg", photo]]);
    const fields = [
      ...Array.from({ length: 30 }, (_, i) => ({ label: `Row ${i}`, type: "text" as const, value: "filler" })),
      { label: "Photo", type: "image" as const, value: { storagePath: "p.jpg", caption: "After the rows" } },
    ];
    const pdf = await renderInstancePdf(report(fields), options(images));
    expect(pdf.pageCount).toBe(2);
    expect(pdfImages(pdf.bytes).map((i) => i.page)).toEqual([2]);
  });

  it("draws the logo scaled into its box at the head of the first page only: at the right, at the left in a right-to-left document", async () => {
    // A red 400 x 100 logo: fitted into the 150 x 50 pt box, it is 150 x 37.5 pt.
    const red = await sharp({ create: { width: 400, height: 100, channels: 3, background: "#e00000" } }).jpeg().toBuffer();
    const logo: PreparedImage = { format: "jpeg", bytes: new Uint8Array(red), width: 400, height: 100, channels: 3 };
    const long = report(Array.from({ length: 90 }, (_, i) => ({ label: `Check ${i + 1}`, type: "text" as const, value: "done" })));
    for (const locale of ["en-GB", "ar"]) {
      const pdf = await renderInstancePdf(long, { ...options(new Map(), locale), logo });
      expect(pdf.pageCount, locale).toBeGreaterThan(1);
      expect(pdfImages(pdf.bytes), locale).toEqual([expect.objectContaining({ page: 1, width: 400, height: 100 })]);
      // Where the red pixels are on page 1, drawn at 72 dpi (one pixel per point).
      const { width, rgb } = pageRaster(pdf.bytes, 1, 72);
      let [left, right, top, bottom] = [Infinity, -1, Infinity, -1];
      for (let i = 0; i < rgb.length / 3; i++) {
        if (rgb[i * 3] < 200 || rgb[i * 3 + 1] > 80 || rgb[i * 3 + 2] > 80) continue;
        const [x, y] = [i % width, Math.floor(i / width)];
        [left, right, top, bottom] = [Math.min(left, x), Math.max(right, x), Math.min(top, y), Math.max(bottom, y)];
      }
      expect(right - left + 1, locale).toBeCloseTo(150, -1);
      expect(bottom - top + 1, locale).toBeCloseTo(37.5, -1);
      expect(top, locale).toBeLessThan(80); // at the head of the page
      if (locale === "ar") expect(left, locale).toBeCloseTo(50, -1);
      else expect(right, locale).toBeCloseTo(width - 50, -1);
    }
  });
});
