import { isUtf8 } from "node:buffer";
import express, { type RequestHandler } from "express";
import { HttpError } from "./errors";

const METHODS_WITH_BODY = new Set(["POST", "PUT", "PATCH"]);
const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

const notUtf8 = () => new HttpError(400, "The body is not valid UTF-8.");
/** A body the JSON parser did not read: another type declared, or none. */
export const notJson = () => new HttpError(415, "Request bodies must be JSON, sent with Content-Type: application/json.");

/** The media type of a Content-Type header, lower case, without parameters. */
const mediaType = (header: string) => header.split(";")[0].trim().toLowerCase();

/** The body's length: the bytes the platform kept, else its Content-Length (0 when neither says). */
export function declaredLength(req: express.Request): number {
  const raw = (req as { rawBody?: Buffer }).rawBody;
  if (raw) return raw.length;
  const header = Number(req.headers["content-length"]);
  return Number.isFinite(header) ? header : 0;
}

/**
 * JSON bodies only, up to `limit` bytes. On Cloud Functions (and in its emulator) the platform has
 * already parsed the body and kept the bytes in `req.rawBody`, so the limit and content type are
 * checked here; `express.json` parses only where nothing did before (it skips parsed requests).
 */
export function jsonBody(limit: number): RequestHandler[] {
  const enforce: RequestHandler = (req, res, next) => {
    if (res.locals.upload || res.locals.bodyParsed) return next(); // a route's file (uploadBody), or its larger body (largeBodyRouter)
    const length = declaredLength(req);
    if (length > limit) {
      throw new HttpError(413, `The request body is ${length} bytes; the limit is ${limit} bytes.`);
    }
    // A state-changing request with any other declared type is refused even when empty: a plain HTML form
    // or a "simple" cross-site fetch can send text/plain or form types without a CORS preflight (CSRF).
    const declared = req.headers["content-type"];
    if ((length > 0 || (STATE_CHANGING.has(req.method) && declared !== undefined)) && mediaType(declared ?? "") !== "application/json") {
      throw notJson();
    }
    if (length > 0 && !METHODS_WITH_BODY.has(req.method)) {
      throw new HttpError(400, `A ${req.method} request takes no body.`);
    }
    // Bytes that are not UTF-8 would be parsed into U+FFFD and stored as such: something else than was sent.
    const raw = (req as { rawBody?: Buffer }).rawBody;
    if (raw && raw.length > 0 && !isUtf8(raw)) throw notUtf8();
    next();
  };
  const verify = (req: object, _res: unknown, bytes: Buffer): void => {
    if (!isUtf8(bytes)) throw notUtf8();
    (req as { rawBody?: Buffer }).rawBody = bytes; // as the platform keeps them: what was parsed, wherever it was
  };
  return [enforce, express.json({ limit, strict: true, verify })];
}

/**
 * A file as a route's body (`upload`): one of its media types, up to its size, kept as bytes (the
 * platform may have read them already: `express.raw` then leaves the request alone).
 */
export function uploadBody({ mediaTypes, maxBytes }: { mediaTypes: readonly string[]; maxBytes: number }): RequestHandler[] {
  const enforce: RequestHandler = (req, res, next) => {
    const length = declaredLength(req);
    if (length > maxBytes) throw new HttpError(413, `The file is ${length} bytes; the limit is ${maxBytes} bytes.`);
    if (!mediaTypes.includes(mediaType(req.headers["content-type"] ?? ""))) {
      throw new HttpError(415, `The body must be the file's bytes, sent with Content-Type ${mediaTypes.join(" or ")}.`);
    }
    res.locals.upload = true;
    next();
  };
  return [enforce, express.raw({ type: [...mediaTypes], limit: maxBytes })];
}
