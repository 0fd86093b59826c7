import { z } from "zod";
import { auditInTransaction } from "../../audit";
import { db, defaultBucket } from "../../firebase";
import { firestoreTransaction } from "../../http/deadline";
import { HttpError, badRequest } from "../../http/errors";
import { defineRoute } from "../../http/routes";
import { storageCall } from "../../print/storageCall";
import { oneAtATime } from "../../print/oneAtATime";
import { LOGO_LIMITS } from "../../print/pictures";
import { consumeQuotas } from "../../print/rateLimit";
import { params } from "../../config";
import { logoPath, removeReplacedLogo } from "../../print/logos";
import { describeSettings, ownPrint, printSettingsResponse, withOwnPrint } from "./printSettings";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Logos are decoded one at a time per instance: a 25-megapixel decode takes about 100 MB, and the api
 * function's instances are small and serve many requests at once.
 */
const oneDecodeAtATime = oneAtATime();

/** The image's format once it decodes whole within the logo's pixel limit (400 or 422 otherwise). */
async function checkedLogo(bytes: Buffer): Promise<"png" | "jpeg"> {
  const { default: sharp } = await import("sharp");
  let format: string | undefined;
  let pixels: number;
  try {
    // The header only (nothing is decoded here): without a limit, so that an image past sharp's own one is told its size (422), not "not an image".
    const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
    format = meta.format;
    pixels = (meta.width ?? 0) * (meta.height ?? 0);
  } catch {
    throw badRequest("The body is not a PNG or JPEG image.");
  }
  if (format !== "png" && format !== "jpeg") throw badRequest(`The body is a ${format ?? "unknown"} file, not a PNG or JPEG image.`);
  if (pixels > LOGO_LIMITS.pixels) throw new HttpError(422, `The logo has ${pixels} pixels; the limit is ${LOGO_LIMITS.pixels}.`);
  try {
    // Decoded whole (into a thumbnail), so that a truncated or corrupt file is refused now, not at print time.
    await sharp(bytes, { failOn: "error", limitInputPixels: LOGO_LIMITS.pixels }).resize(32, 32, { fit: "inside" }).raw().toBuffer();
  } catch {
    throw badRequest(`The body is not a readable ${format === "png" ? "PNG" : "JPEG"} image.`);
  }
  return format;
}

/** Stores the body as the target's logo and sets its `print.logo` to it (issue 17). ADMIN. */
export const putPrintSettingsLogo = defineRoute({
  method: "put",
  path: "/print-settings/logo",
  summary: "Upload the logo of a target (a PNG or JPEG body of at most 1 MB); its PDFs print it at the head of the first page",
  anyOf: ["ADMIN"],
  upload: { mediaTypes: ["image/png", "image/jpeg"], maxBytes: LOGO_LIMITS.bytes },
  body: z.instanceof(Buffer), // the file's bytes, as `upload` takes them

  response: printSettingsResponse("The settings, as they are now: `logo` is the uploaded file."),
  errors: {
    400: "The body is not a readable PNG or JPEG image.",
    422: "The image has more than 25 million pixels.",
    429: "The target took LOGO_UPLOADS_PER_TARGET_PER_DAY uploads today (failed ones too); Retry-After says for how long.",
    503: "Cloud Storage unavailable.",
  },
  async handle({ access, caller, body }) {
    // Counted before any work, failed uploads too: each may be a megabyte of Storage.
    const max = params.logoUploadsPerTargetPerDay.value();
    await consumeQuotas([{ action: "logoUpload", subject: access.path, max, windowMs: DAY_MS, amount: 1, refusal: `At most ${max} logo uploads per target per day` }]);
    // The decode and the upload first, outside any transaction (they take time); then one short
    // transaction names the logo in the settings and records it on the audit trail.
    const format = await oneDecodeAtATime(() => checkedLogo(body));
    const path = logoPath(access.path, body, format);
    await storageCall(() => defaultBucket().file(path).save(body, { resumable: false, contentType: `image/${format}` }));
    const replaced = await firestoreTransaction(async (tx) => {
      const previous: unknown = (await tx.get(db().doc(access.path))).get("print.logo");
      tx.update(db().doc(access.path), { "print.logo": path });
      auditInTransaction(tx, access, caller, { action: "printSettings.logoUploaded", subject: "print-settings", details: { logo: path, sizeBytes: body.length, format } });
      return previous;
    });
    await removeReplacedLogo(access.path, replaced, path);
    return { statusCode: 200 as const, message: "Logo saved.", data: describeSettings(withOwnPrint(access.chain, { ...ownPrint(access.chain), logo: path })) };
  },
});
