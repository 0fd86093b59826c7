// The pictures of an instance's image and signature fields, read from the default bucket for the
// renderer. Tenant isolation: only objects under `uploads/{target document path}/` are read (DESIGN.md);
// another path prints "image unavailable" and is logged. Reads and decoding are bounded per document
// (422 beyond), and every picture is scaled down to print resolution before it is embedded.

import type { File, FileMetadata } from "@google-cloud/storage";
import type { Access } from "../http/access";
import { TtlCache } from "../http/ttlCache";
import * as logs from "../logs";
import { tooLarge } from "./limits";
import type { PreparedImage } from "./render";

export const PICTURE_LIMITS = {
  /** Pictures one document may show. */
  pictures: 50,
  /** Bytes of one stored picture, and of all of a document's. */
  bytesPerPicture: 15 * 1024 * 1024,
  bytes: 60 * 1024 * 1024,
  /** Pixels decoded, over all of a document's pictures (a 12-megapixel photo is 12 million). */
  pixels: 250_000_000,
  /**
   * The box a picture is scaled down into before it is embedded: 200 ppi of the largest box one is
   * drawn in (the value column of Letter paper, 335 pt, by 190 pt; a signature, at most 70 pt high,
   * keeps about 280 ppi). Measured (bench): more pixels only cost encoding time and bytes.
   */
  box: { width: 930, height: 530 },
} as const;

/** A logo: the bytes PUT print-settings/logo takes, the pixels it may decode, its box as embedded (300 ppi of its 150 x 50 pt box). */
export const LOGO_LIMITS = { bytes: 1024 * 1024, pixels: 25_000_000, box: { width: 625, height: 210 } } as const;

/** The result of a Storage call, or undefined when there is no such object (any other failure is thrown). */
const ifExists = <T>(call: Promise<[T, ...unknown[]]>): Promise<T | undefined> =>
  call.then(
    ([result]) => result,
    (error: { code?: unknown }) => {
      if (error.code === 404) return undefined;
      throw error;
    },
  );

/** A file's metadata, or undefined when there is no such object. */
export const metadataIfExists = (file: File): Promise<FileMetadata | undefined> => ifExists(file.getMetadata());

/** A stored picture the document may show, as its metadata names it. */
export interface PictureObject {
  path: string;
  generation: string;
  size: number;
  file: File;
}

/** The stored object at `path` with its generation and size, or undefined when there is none. */
async function storedObject(path: string, fileOf: (path: string) => File, storage: <T>(operation: () => Promise<T>) => Promise<T>): Promise<PictureObject | undefined> {
  const file = fileOf(path);
  const metadata = await storage(() => metadataIfExists(file));
  return metadata && { path, generation: String(metadata.generation ?? ""), size: Number(metadata.size ?? 0), file };
}

/** Whether a storage path lies in the uploads folder of the target at `docPath` (no dot segments, no empty segments). */
export function inUploadsFolder(docPath: string, path: string): boolean {
  const prefix = `uploads/${docPath}/`;
  if (!path.startsWith(prefix) || path.length > 1024) return false;
  return path
    .slice(prefix.length)
    .split("/")
    .every((segment) => segment !== "" && segment !== "." && segment !== "..");
}

/**
 * The pictures of `paths` the document may show, with their generations (part of the stored PDF's
 * name: a new upload, a new PDF). Paths outside the target's folder and missing objects are left out
 * (logged): the renderer prints "image unavailable" for them.
 */
export async function pictureObjects(
  access: Pick<Access, "path">,
  paths: readonly string[],
  fileOf: (path: string) => File,
  storage: <T>(operation: () => Promise<T>) => Promise<T>,
): Promise<PictureObject[]> {
  if (paths.length > PICTURE_LIMITS.pictures) throw tooLarge("pictures", paths.length, PICTURE_LIMITS.pictures);
  const allowed = paths.filter((path) => {
    if (inUploadsFolder(access.path, path)) return true;
    logs.pictureRefused("outside the target's uploads folder");
    return false;
  });
  const found = await Promise.all(
    allowed.map(async (path) => {
      const picture = await storedObject(path, fileOf, storage);
      if (!picture) logs.pictureRefused("no such object");
      return picture;
    }),
  );
  const pictures = found.filter((p): p is PictureObject => p !== undefined);
  let bytes = 0;
  for (const p of pictures) {
    if (p.size > PICTURE_LIMITS.bytesPerPicture) throw tooLarge("bytes in one picture", p.size, PICTURE_LIMITS.bytesPerPicture);
    bytes += p.size;
  }
  if (bytes > PICTURE_LIMITS.bytes) throw tooLarge("bytes of pictures", bytes, PICTURE_LIMITS.bytes);
  return pictures;
}

/**
 * The logo's object (its path was checked with the settings), or undefined when it is missing or
 * larger than a logo may be: the document prints without it, and the log says why.
 */
export async function logoObject(path: string, fileOf: (path: string) => File, storage: <T>(operation: () => Promise<T>) => Promise<T>): Promise<PictureObject | undefined> {
  const logo = await storedObject(path, fileOf, storage);
  if (!logo) logs.logoNotPrinted("no such object");
  else if (logo.size > LOGO_LIMITS.bytes) logs.logoNotPrinted(`${logo.size} bytes, over ${LOGO_LIMITS.bytes}`);
  else return logo;
  return undefined;
}

/**
 * How pictures are prepared: pixels decoded at most (over all of them: beyond, a 422 for a document's
 * pictures, the picture left out for a logo), the box it is scaled down into, and who logs a refusal.
 */
interface Preparation {
  pixels: number;
  box: { width: number; height: number };
  refused: (reason: string) => void;
  leaveOutBeyondPixels: boolean;
}
const FIELD_PICTURES: Preparation = { pixels: PICTURE_LIMITS.pixels, box: PICTURE_LIMITS.box, refused: logs.pictureRefused, leaveOutBeyondPixels: false };
export const LOGO: Preparation = { pixels: LOGO_LIMITS.pixels, box: LOGO_LIMITS.box, refused: logs.logoNotPrinted, leaveOutBeyondPixels: true };

/**
 * Downloads and prepares each picture: EXIF orientation applied, scaled down to fit `box` (never
 * enlarged), a picture without transparency as JPEG, one with it as pixels and alpha
 * (signatures, logos). A file that is not a JPEG or PNG, or cannot be decoded, is left out (logged).
 */
export async function preparePictures(
  pictures: readonly PictureObject[],
  storage: <T>(operation: () => Promise<T>) => Promise<T>,
  { pixels: maxPixels, box, refused, leaveOutBeyondPixels }: Preparation = FIELD_PICTURES,
): Promise<Map<string, PreparedImage>> {
  const prepared = new Map<string, PreparedImage>();
  let pixels = 0;
  /** Adds a picture's pixels to the document's; past the bound, false (and a 422, or the picture left out). */
  const withinPixels = (more: number): boolean => {
    pixels += more;
    if (pixels <= maxPixels) return true;
    if (!leaveOutBeyondPixels) throw tooLarge("pixels in pictures", pixels, maxPixels);
    refused(`${pixels} pixels, over ${maxPixels}`);
    return false;
  };
  let sharp: typeof import("sharp") | undefined;
  for (const picture of pictures) {
    // A version prepared lately (the metadata just read named this generation: the same bytes).
    const key = `${picture.path}#${picture.generation}#${box.width}x${box.height}`;
    const kept = recentlyPrepared.get(key);
    if (kept) {
      if (withinPixels(kept.sourcePixels)) prepared.set(picture.path, kept.image);
      continue;
    }
    // Loaded on the first picture to prepare: sharp (libvips) is a native module a text-only print never needs.
    sharp ??= (await import("sharp")).default;
    // Deleted since its metadata was read: as if it had never been there.
    const bytes = await storage(() => ifExists(picture.file.download()));
    if (!bytes) {
      refused("no such object");
      continue;
    }
    let image: ReturnType<typeof sharp>;
    let meta: Awaited<ReturnType<ReturnType<typeof sharp>["metadata"]>>;
    try {
      image = sharp(bytes, { limitInputPixels: maxPixels, failOn: "error" });
      meta = await image.metadata();
    } catch {
      refused("not a readable image");
      continue;
    }
    if (meta.format !== "jpeg" && meta.format !== "png") {
      refused(`a ${meta.format ?? "unknown"} file, not JPEG or PNG`);
      continue;
    }
    const sourcePixels = (meta.width ?? 0) * (meta.height ?? 0);
    if (!withinPixels(sourcePixels)) continue;
    const scaled = image.rotate().resize({ ...box, fit: "inside", withoutEnlargement: true });
    let ready: PreparedImage;
    try {
      if (!meta.hasAlpha) {
        const grey = meta.channels === 1 || meta.space === "b-w";
        // libjpeg-turbo: mozjpeg's encoder makes it 25% smaller in 3 to 4 times the time (measured).
        const { data, info } = await (grey ? scaled.toColourspace("b-w") : scaled.toColourspace("srgb")).jpeg({ quality: 82 }).toBuffer({ resolveWithObject: true });
        ready = { format: "jpeg", bytes: new Uint8Array(data), width: info.width, height: info.height, channels: grey ? 1 : 3 };
      } else {
        const { data, info } = await scaled.toColourspace("srgb").ensureAlpha().raw().toBuffer({ resolveWithObject: true });
        const count = info.width * info.height;
        const rgb = new Uint8Array(count * 3);
        const alpha = new Uint8Array(count);
        for (let i = 0; i < count; i++) {
          rgb[i * 3] = data[i * 4];
          rgb[i * 3 + 1] = data[i * 4 + 1];
          rgb[i * 3 + 2] = data[i * 4 + 2];
          alpha[i] = data[i * 4 + 3];
        }
        ready = { format: "pixels", pixels: rgb, alpha, width: info.width, height: info.height, channels: 3 };
      }
    } catch {
      refused("not a readable image");
      continue;
    }
    prepared.set(picture.path, ready);
    recentlyPrepared.set(key, { image: ready, sourcePixels });
  }
  return prepared;
}

/**
 * Pictures prepared lately, by path, generation and box (what the renderer only reads): a preview
 * renders the same document again as its author types, and a job's documents often show the same
 * photos. A few MB as JPEG; a picture with transparency is kept as pixels (at most 930 x 530 x 4
 * bytes, 2 MB), so 16 of them bound it to 32 MB. A stored PDF is found before any picture is read:
 * only a new render comes here.
 */
const recentlyPrepared = new TtlCache<{ image: PreparedImage; sourcePixels: number }>(10 * 60 * 1000, 16);

/** The pictures' versions, for the stored PDF's name: another upload, another PDF. */
export const picturesVersion = (pictures: readonly PictureObject[]): string =>
  pictures
    .map((p) => `${p.path}#${p.generation}`)
    .sort()
    .join("|");
