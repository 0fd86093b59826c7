import { readFileSync } from "node:fs";
import { z } from "zod";

/**
 * The seed fixture format (README, "Seed data"): auth users plus a flat map from Firestore
 * document path to fields, mirroring DESIGN.md's layout one to one. A value written as
 * `{ "$timestamp": "<ISO 8601>" }` becomes a Firestore Timestamp; everything else is plain JSON.
 */

/** An auth emulator account; `uid` is what the Firestore documents refer to. */
const fixtureUser = z.strictObject({
  uid: z.string().min(1).max(128),
  email: z.email(),
  /** send-pdf names a sender by email only when it is verified (otherwise by uid). */
  emailVerified: z.boolean().optional(),
  password: z.string().min(6),
  displayName: z.string().optional(),
  disabled: z.boolean().optional(),
});

/** A document path has an even number of non-empty segments. */
const documentPath = z.string().refine((p) => {
  const segments = p.split("/");
  return segments.length % 2 === 0 && segments.every((s) => s.length > 0);
}, "not a document path (collection/doc[/collection/doc...])");

/**
 * A picture the seed draws and uploads to the default bucket (photos and signatures of the demo
 * instances: generated, so the repository carries no binary files). A photo is a JPEG of a coloured
 * scene with its text; a signature a PNG stroke on transparency.
 */
const fixturePicture = z.strictObject({
  kind: z.enum(["photo", "signature", "logo"]),
  text: z.string().max(200),
  width: z.int().min(16).max(6000),
  height: z.int().min(16).max(6000),
  /** Hue of a photo's scene or a logo's mark, 0-360. */
  hue: z.number().min(0).max(360).default(210),
});
export type FixturePicture = z.infer<typeof fixturePicture>;

export const fixtureSchema = z.strictObject({
  users: z.array(fixtureUser).default([]),
  documents: z.record(documentPath, z.record(z.string(), z.unknown())).default({}),
  /** Storage path (under uploads/) -> the picture to draw there. */
  pictures: z.record(z.string().regex(/^uploads\/[^.][^\s]*$/), fixturePicture).default({}),
});
export type Fixture = z.infer<typeof fixtureSchema>;

export function readFixture(file: string): Fixture {
  const parsed = fixtureSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) throw new Error(`${file} is not a valid fixture:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** Replaces `{ $timestamp }` markers with what `toTimestamp` makes of the date. */
export function decodeValue<T>(value: unknown, toTimestamp: (date: Date) => T): unknown {
  if (Array.isArray(value)) return value.map((v) => decodeValue(v, toTimestamp));
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    if (entries.length === 1 && entries[0][0] === "$timestamp") {
      const date = new Date(String(entries[0][1]));
      if (Number.isNaN(date.getTime())) throw new Error(`invalid $timestamp: ${String(entries[0][1])}`);
      return toTimestamp(date);
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, decodeValue(v, toTimestamp)]));
  }
  return value;
}

const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A fixture picture as the seed uploads it: a photo as JPEG, a signature or logo as PNG with transparency. */
export async function drawPicture(p: FixturePicture): Promise<{ bytes: Buffer; contentType: "image/jpeg" | "image/png" }> {
  const { default: sharp } = await import("sharp");
  const image = sharp(Buffer.from(pictureSvg(p)));
  return p.kind === "photo" ? { bytes: await image.jpeg({ quality: 85 }).toBuffer(), contentType: "image/jpeg" } : { bytes: await image.png().toBuffer(), contentType: "image/png" };
}

/** The SVG of a fixture picture (sharp rasterises it). */
export function pictureSvg(p: FixturePicture): string {
  const { width: w, height: h } = p;
  if (p.kind === "signature") {
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><path d="M${w * 0.03} ${h * 0.75} C ${w * 0.2} ${h * 0.05}, ${w * 0.3} ${h * 0.95}, ${w * 0.5} ${h * 0.4} S ${w * 0.75} ${h * 0.85}, ${w * 0.97} ${h * 0.3}" stroke="#14213d" stroke-width="${Math.max(2, h / 25)}" fill="none" stroke-linecap="round"/></svg>`;
  }
  if (p.kind === "logo") {
    // A rounded mark and the name beside it, on transparency.
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect x="${h * 0.05}" y="${h * 0.05}" width="${h * 0.9}" height="${h * 0.9}" rx="${h * 0.2}" fill="hsl(${p.hue},60%,30%)"/><path d="M${h * 0.25} ${h * 0.72} L${h * 0.5} ${h * 0.25} L${h * 0.75} ${h * 0.72} Z" fill="white"/><text x="${h * 1.15}" y="${h * 0.68}" font-family="sans-serif" font-weight="bold" font-size="${h * 0.5}" fill="hsl(${p.hue},60%,30%)">${escapeXml(p.text)}</text></svg>`;
  }
  const size = Math.round(h / 12);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">` +
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${p.hue},55%,35%)"/><stop offset="1" stop-color="hsl(${(p.hue + 40) % 360},60%,70%)"/></linearGradient></defs>` +
    `<rect width="${w}" height="${h}" fill="url(#g)"/>` +
    `<rect x="${w * 0.3}" y="${h * 0.25}" width="${w * 0.4}" height="${h * 0.5}" rx="${h * 0.04}" fill="hsl(${p.hue},15%,85%)" stroke="#222" stroke-width="${h / 150}"/>` +
    `<circle cx="${w * 0.5}" cy="${h * 0.42}" r="${h * 0.08}" fill="#e0e0e0" stroke="#333" stroke-width="${h / 200}"/>` +
    `<text x="${w / 2}" y="${h * 0.9}" font-family="sans-serif" font-size="${size}" fill="white" text-anchor="middle">${escapeXml(p.text)}</text></svg>`
  );
}
