import { createHash, randomUUID } from "node:crypto";
import type { File } from "@google-cloud/storage";
import { z } from "zod";
import type { DocumentSnapshot } from "firebase-admin/firestore";
import { HOUR_MS, isEmulator, params } from "../config";
import { db, defaultBucket, firestoreSdk } from "../firebase";
import type { Access } from "../http/access";
import { firestoreCall } from "../http/deadline";
import { HttpError, notFound } from "../http/errors";
import { TtlCache } from "../http/ttlCache";
import type { ReadScope } from "../http/routes";
import * as logs from "../logs";
import { PRINT_LIMITS, assertPdfWithinLimits, assertWithinLimits, layoutLimitExceeded } from "./limits";
import { oneAtATime } from "./oneAtATime";
import { plainData } from "./plainData";
import { consumeQuotas } from "./rateLimit";
import type { PdfSignatureOptions, PreparedImage, PrintableInstance, RenderedPdf } from "./render";
import type { DocumentTemplate } from "./render/template";
import { LOGO, logoObject, metadataIfExists, pictureObjects, picturesVersion, preparePictures, type PictureObject } from "./pictures";
import { imagePaths } from "./render/format";
import { recordedSettings, settingsKey, type PrintSettings } from "./settings";
import { storageCall } from "./storageCall";
import { serviceSigner, SigningFailed, signingUnavailable } from "./signing/serviceSigner";
import type { PdfSigner } from "./signing/signer";
import { templateFor, type FoundTemplate } from "./templates/store";

/** Where generated PDFs live in the default bucket (SPEC.md section 8). */
export const PDF_PREFIX = "generated-pdfs/";

/** Bumped when the renderer's output changes, so that stored PDFs of the old layout are not reused. */
export const RENDERER_VERSION = 6; // 2: every script (fonts per script, shaping, bidi); 3: settings in the name; 4: tagged (PDF/UA-1); 5: 13 more scripts, soft hyphens, invisible controls, bounded clusters, whole numbers exact; 6: explicit bidi controls removed (a PDF of version 5 could read as another value)

/** How long a production download URL is valid (SPEC.md section 8). */
export const SIGNED_URL_TTL_MS = 15 * 60 * 1000;

/** A PDF of an object instance, stored in the bucket. */
export interface StoredPdf {
  file: File;
  /** The instance's title, as printed. */
  title: string;
  /** The bytes, when this request rendered them (otherwise `pdfBytes` downloads them). */
  bytes?: Uint8Array;
  storagePath: string;
  sizeBytes: number;
  pageCount: number;
  /** True when an earlier request had already rendered this version of the instance. */
  cached: boolean;
  /** The emulator's download token of the file (none in production, which signs URLs). */
  downloadToken?: string;
  /** The settings it is printed with. */
  settings: PrintSettings;
  /** The template it is printed with (none: the default layout). */
  template?: FoundTemplate;
}

/** What answers and the audit trail say of a template: which, which version, where it is kept. */
export const templateShown = (template: FoundTemplate | undefined) => (template ? { templateId: template.templateId, version: template.version, source: template.source } : null);

/** The schema of templateShown in print's and send-pdf's answers. */
export const templateSchema = z
  .strictObject({ templateId: z.string(), version: z.int().positive(), source: z.string().describe("The document path of the target that holds it.") })
  .nullable()
  .describe("The print template the PDF is printed with; null: the default layout.");

/**
 * The object name of an instance's PDF: under the prefix, the target's path and the instance id
 * (each segment an id the pipeline validated: no slash, no dot segment), then the version of the
 * instance it shows, a hash of the settings it is printed with, and the template's (a hash of where
 * it is kept and what it holds, its id and version among it: an id may hold any character) with its
 * version: an edited template prints anew. No input can steer it outside `generated-pdfs/{target}/{instanceId}/`.
 */
export function pdfObjectName(access: Access, instanceId: string, instance: DocumentSnapshot, settings: PrintSettings, pictures = "", template?: FoundTemplate): string {
  const updated = instance.updateTime!;
  const version = `${updated.seconds}${String(updated.nanoseconds).padStart(9, "0")}`;
  // The template's content too: a version number starts again at 1 when a template is deleted and saved anew.
  const layout = template ? `-t${createHash("sha256").update(JSON.stringify([template.source, template.template])).digest("hex").slice(0, 10)}v${template.version}` : "";
  return `${PDF_PREFIX}${access.path}/${instanceId}/r${RENDERER_VERSION}-${version}-${settingsKey(settings, pictures)}${layout}.pdf`;
}

/** A file name safe everywhere (ASCII letters, digits, space . _ -), ending in .pdf. */
export function safeFileName(name: string): string {
  const base = name
    .replace(/\.pdf$/i, "")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "") // accents go, their letters stay
    .replace(/[^A-Za-z0-9 ._-]+/g, "_")
    .replace(/_+/g, "_")
    .replace(/^[ ._]+|[ ._]+$/g, "")
    .slice(0, 80);
  return `${base || "document"}.pdf`;
}

/** `Content-Disposition` with the safe file name and the exact title in RFC 5987 form. */
export function contentDisposition(title: string): string {
  // eslint-disable-next-line no-control-regex
  const exact = title.replace(/[\u0000-\u001f\u007f"\\/]/g, "").slice(0, 120) || "document";
  // RFC 5987 allows fewer characters than encodeURIComponent leaves alone: encode ' ( ) * ! too.
  const encoded = encodeURIComponent(`${exact}.pdf`).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${safeFileName(title)}"; filename*=UTF-8''${encoded}`;
}

/** The instance's title, as printed and as named in mail and file names. */
export const titleOf = (stored: FirebaseFirestore.DocumentData) => String(plainData(stored.title, firestoreSdk()) ?? "Untitled");

/** The instance as the renderer takes it: plain data within the renderer's limits (422 otherwise). */
function printable(stored: FirebaseFirestore.DocumentData): PrintableInstance {
  const data = plainData(stored, firestoreSdk()) as Record<string, unknown>;
  assertWithinLimits(data);
  return {
    title: titleOf(stored),
    objectTypeName: String(data.objectTypeName ?? ""),
    sections: Array.isArray(data.sections) ? data.sections : [],
  };
}

/**
 * Versions of instances (by PDF object name) whose render failed, with the answer given: a retry is
 * answered at once instead of rendering again. A new version of the instance has another name.
 */
const FAILED_RENDER_TTL_MS = 10 * 60 * 1000;
const failedRenders = new TtlCache<HttpError>(FAILED_RENDER_TTL_MS, 1_000);

/**
 * The answer to a failed render, remembered for the instance version when the version is the cause: a
 * limit's 422, or 422 for a renderer fault (logged). A platform's failure (Storage's 503 while reading a
 * picture) is not: it says "try again shortly", and the retry renders.
 */
function rememberFailure(storagePath: string, error: unknown): HttpError {
  const answer = error instanceof HttpError ? error : new HttpError(422, "The object instance could not be printed.");
  if (!(error instanceof HttpError)) logs.unexpectedError(error);
  if (answer.statusCode < 500) failedRenders.set(storagePath, answer);
  return answer;
}

/**
 * Renders run one at a time per instance: a render is CPU work on the instance's one vCPU, so running
 * several at once gains nothing, and one at a time bounds the memory renders take together to one
 * render's (about 465 MiB above the process at most, within PRINT_LIMITS) whatever the concurrency setting.
 */
const oneRenderAtATime = oneAtATime();

/** What the audit trail records of a PDF: the instance version it shows and where it is stored. */
export const pdfDetails = (instance: DocumentSnapshot, pdf: StoredPdf) => ({
  instanceVersion: instance.updateTime!.toDate().toISOString(),
  storagePath: pdf.storagePath,
  cached: pdf.cached,
  ...recordedSettings(pdf.settings),
  template: templateShown(pdf.template),
});

/** `{target}/objectInstances/{objectInstanceId}`: what the print routes read (`reads`). */
export const objectInstance = ({ path, body }: ReadScope<unknown, { objectInstanceId: string }>) => `${path}/objectInstances/${body.objectInstanceId}`;

/** What a print of an instance needs before any work: its data, and the template it prints with. */
export interface PrintSource {
  stored: FirebaseFirestore.DocumentData;
  template: FoundTemplate | undefined;
}

/**
 * The instance of a print, which must exist (404), and the template it prints with: the one named
 * (404 when not on the target's chain), else its type's nearest. Found before a quota is spent: a
 * typo costs nothing.
 */
export async function printSource(access: Access, instance: DocumentSnapshot, templateId: string | undefined): Promise<PrintSource> {
  if (!instance.exists) throw notFound(`Object instance '${instance.id}' does not exist in this target.`);
  const stored = instance.data()!;
  return { stored, template: await templateFor(access.chain, stored.objectTypeName, templateId) };
}

/**
 * The PDF of one object instance of the target (read by the pipeline: `objectInstance`; `printSource`
 * found its data and template), rendered and stored, or the one already stored for the same version
 * of the instance, settings and template.
 */
export async function pdfOfInstance(access: Access, instance: DocumentSnapshot, { stored, template }: PrintSource, settings: PrintSettings, renderedBy: string): Promise<StoredPdf> {
  const instanceId = instance.id;
  // The pictures it may show, and their versions: part of the stored PDF's name. (The logo's path,
  // in the settings, is its version: an upload is a new path.)
  const pictures = await pictureObjects(access, imagePaths(stored), fileOf, storageCall);
  const storagePath = pdfObjectName(access, instanceId, instance, settings, picturesVersion(pictures), template);
  const failed = failedRenders.get(storagePath);
  if (failed) throw failed;

  const title = titleOf(stored);
  const file = defaultBucket().file(storagePath);
  // One call tells whether the file exists and, if so, all the answer needs (404: not rendered yet).
  const metadata = await storageCall(() => metadataIfExists(file));
  if (metadata) {
    const pageCount = Number(metadata.metadata?.pageCount ?? 0);
    const downloadToken = String(metadata.metadata?.firebaseStorageDownloadTokens ?? "").split(",")[0] || undefined;
    return { file, title, storagePath, sizeBytes: Number(metadata.size), pageCount, cached: true, downloadToken, settings, template };
  }

  // A signed PDF needs the service's signer: a key that cannot sign is a 503 before any work (never an unsigned PDF).
  const signer = settings.sign ? await serviceSigner() : undefined;
  // A render: counted against the user before any work (settings in the body make every request a
  // new PDF, so renders are counted, not requests); 429 beyond the param.
  const max = params.rendersPerUserPerHour.value();
  await consumeQuotas([{ action: "render", subject: renderedBy, max, windowMs: HOUR_MS, amount: 1, refusal: `At most ${max} new PDFs per hour per user (a stored PDF does not count)` }]);
  const targetName = targetNameOf(access);
  let pdf: RenderedPdf;
  try {
    pdf = await renderStoredInstance({ path: access.path, name: targetName }, instanceId, stored, pictures, settings, { template: template?.template, signer });
  } catch (error) {
    throw rememberFailure(storagePath, error);
  }
  // Before the file is stored: every stored signed PDF is one the verify route knows.
  if (signer) await recordPrintedPdfs(access.path, [{ sha256: sha256Hex(pdf.bytes), storagePath, objectInstanceId: instanceId }]);
  // The emulator serves files by download token only; production uses signed URLs and no token.
  const downloadToken = isEmulator() ? randomUUID() : undefined;

  await storageCall(() =>
    file.save(Buffer.from(pdf.bytes), {
      resumable: false,
      contentType: "application/pdf",
      metadata: {
        contentDisposition: contentDisposition(title),
        cacheControl: "private, max-age=900",
        metadata: {
          pageCount: String(pdf.pageCount),
          ...(downloadToken && { firebaseStorageDownloadTokens: downloadToken }),
        },
      },
    }),
  );
  return { file, title, bytes: pdf.bytes, storagePath, sizeBytes: pdf.bytes.length, pageCount: pdf.pageCount, cached: false, downloadToken, settings, template };
}

/**
 * A preview: the instance rendered with a template (unsaved, named, or its type's) and the settings,
 * stored nowhere. Counted against the user's own preview quota (PREVIEWS_PER_USER_PER_HOUR), not the renders'.
 */
export async function previewOfInstance(access: Access, instance: DocumentSnapshot, settings: PrintSettings, caller: string, template: { given?: DocumentTemplate; templateId?: string }): Promise<RenderedPdf> {
  if (!instance.exists) throw notFound(`Object instance '${instance.id}' does not exist in this target.`);
  const { stored, template: found } = template.given ? { stored: instance.data()!, template: undefined } : await printSource(access, instance, template.templateId);
  const max = params.previewsPerUserPerHour.value();
  await consumeQuotas([{ action: "preview", subject: caller, max, windowMs: HOUR_MS, amount: 1, refusal: `At most ${max} previews per hour per user` }]);
  const pictures = await pictureObjects(access, imagePaths(stored), fileOf, storageCall);
  const targetName = targetNameOf(access);
  try {
    return await renderStoredInstance({ path: access.path, name: targetName }, instance.id, stored, pictures, settings, { template: template.given ?? found?.template });
  } catch (error) {
    if (error instanceof HttpError) throw error;
    logs.unexpectedError(error);
    throw new HttpError(422, "The object instance could not be previewed.");
  }
}

/** An object of the default bucket by its path (what the picture and logo lookups take). */
export const fileOf = (path: string) => defaultBucket().file(path);

/** The target's display name (printed on every PDF). */
const targetNameOf = (access: Access): string => String(access.chain[access.chain.length - 1].data.name ?? "");

/** What a render needs of the target: its document path (pictures must lie in its uploads folder) and its name (printed). */
export interface RenderTarget {
  path: string;
  name: string;
}

/**
 * One stored instance as a PDF: converted to plain data within the renderer's limits, its pictures
 * and the settings' logo prepared, rendered one at a time per instance, and logged. What the instance
 * causes is a 422 naming the limit; the caller decides what to remember of a failure.
 */
export async function renderStoredInstance(
  target: RenderTarget,
  instanceId: string,
  stored: FirebaseFirestore.DocumentData,
  pictures: readonly PictureObject[],
  settings: PrintSettings,
  /**
   * batch: a print job's chunk (the logo prepared once, the renders added up for one log line, else
   * logged each); template: the layout's (none: the default); signer: signs the PDF (serviceSigner;
   * none: unsigned), a failure of its key a 503.
   */
  { batch, template, signer }: { batch?: RenderBatch; template?: DocumentTemplate; signer?: PdfSigner } = {},
): Promise<RenderedPdf> {
  const started = performance.now();
  // Loaded on the first render only: pdf-lib is most of the print function's import time, and a
  // request served from a stored PDF never needs it.
  const { renderInstancePdf, LayoutLimitExceeded } = await import("./render/index.js");
  let pdf: RenderedPdf;
  try {
    // Only a version that is rendered is converted and measured in whole: a stored PDF needs its title alone.
    const data = printable(stored);
    pdf = await oneRenderAtATime(async () => {
      const images = await preparePictures(pictures, storageCall);
      const generatedAt = new Date();
      // The signature's time is the one printed on the page.
      const signature = signer && serviceSignature(signer, generatedAt);
      return renderInstancePdf(data, { instanceId, targetName: target.name, generatedAt, maxPages: PRINT_LIMITS.pages, maxLines: PRINT_LIMITS.lines, maxRuns: PRINT_LIMITS.runs, ...settings, images, logo: await (batch?.logo ?? preparedLogo(settings)), template, signature });
    });
    assertPdfWithinLimits(pdf.pageCount, pdf.bytes.length);
  } catch (error) {
    if (error instanceof SigningFailed) throw signingUnavailable(error);
    throw error instanceof LayoutLimitExceeded ? layoutLimitExceeded(error.what) : error;
  }
  const rendered = { documents: 1, pageCount: pdf.pageCount, sizeBytes: pdf.bytes.length, durationMs: performance.now() - started, missingCharacters: pdf.missingCharacters, bidiControlsRemoved: pdf.bidiControlsRemoved };
  if (batch) for (const key of Object.keys(rendered) as (keyof logs.RenderedPdfs)[]) batch.rendered[key] += rendered[key];
  else logs.pdfRendered(rendered);
  return pdf;
}

/** The signature dictionary's /Reason: what readers show beside the signer. */
const SIGNATURE_REASON = "Issued by the print service: the document is unchanged since it was printed";

/** How the service signs a PDF it prints (a document, or a print job's merged file): its reason, and its name as the mail's sender. */
export const serviceSignature = (signer: PdfSigner, signedAt: Date): PdfSignatureOptions => ({ signer, signedAt, reason: SIGNATURE_REASON, name: params.mailFromName.value() });

/** How long the service remembers a signed PDF it printed (POST verify's issuedHere): a Firestore TTL policy on `expireAt` deletes the record then (README, Deploying). */
export const PRINTED_PDF_RETENTION_MS = 400 * 24 * HOUR_MS;

/** What the service keeps of a signed PDF it printed, at `{target}/printedPdfs/{sha256}`: the verify route's issuedHere. */
export interface PrintedPdfRecord {
  storagePath: string;
  /** The instance it shows; none for a print job's merged PDF, which shows many. */
  objectInstanceId?: string;
  /** The print job that printed it (a ZIP's document, or the merged PDF). */
  printJobId?: string;
  printedAt: FirebaseFirestore.Timestamp;
  expireAt: FirebaseFirestore.Timestamp;
}

/** A signed PDF to record: its bytes' SHA-256 (hex) and what the record says of it. */
export type PrintedPdf = { sha256: string } & Pick<PrintedPdfRecord, "storagePath" | "objectInstanceId" | "printJobId">;

/** The document that records a PDF of the target by the SHA-256 of its bytes (hex). */
export const printedPdfPath = (targetPath: string, sha256: string) => `${targetPath}/printedPdfs/${sha256}`;

export const sha256Hex = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/** Records signed PDFs the target printed (one, or a print job's pack: one batch of at most a chunk's 50 writes; 503 when Firestore fails). */
export async function recordPrintedPdfs(targetPath: string, pdfs: readonly PrintedPdf[]): Promise<void> {
  if (pdfs.length === 0) return;
  const { Timestamp } = firestoreSdk();
  const now = Date.now();
  const batch = db().batch();
  for (const { sha256, ...what } of pdfs) {
    const record: PrintedPdfRecord = { ...what, printedAt: Timestamp.fromMillis(now), expireAt: Timestamp.fromMillis(now + PRINTED_PDF_RETENTION_MS) };
    batch.set(db().doc(printedPdfPath(targetPath, sha256)), record);
  }
  await firestoreCall(() => batch.commit());
}

/**
 * Many documents rendered with the same settings (a print job's chunk): the logo prepared once (a
 * download and a resize each time otherwise), and the renders logged once, added up (a log line a
 * document costs a job's worker 3% of its time, and Cloud Logging its volume).
 */
export interface RenderBatch {
  logo: Promise<PreparedImage | undefined>;
  rendered: logs.RenderedPdfs;
}

export function renderBatch(settings: PrintSettings): RenderBatch {
  const logo = preparedLogo(settings);
  logo.catch(() => undefined); // awaited by the first render; a batch of missing instances never awaits it
  return { logo, rendered: { documents: 0, pageCount: 0, sizeBytes: 0, durationMs: 0, missingCharacters: 0, bidiControlsRemoved: 0 } };
}

/**
 * The settings' logo, downloaded and prepared. Apart from the fields' pictures, which must lie in the
 * instance's target's folder: the logo may be a target's above (inherited), its path checked against
 * the folder of the target that set it.
 */
function preparedLogo(settings: PrintSettings): Promise<PreparedImage | undefined> {
  if (!settings.logo) return Promise.resolve(undefined);
  // A logo's path is its version (an upload is a new path): kept a while, so that a preview's every keystroke does not download and scale it again.
  let logo = preparedLogos.get(settings.logo);
  if (!logo) {
    logo = logoObject(settings.logo, fileOf, storageCall).then(async (object) => object && (await preparePictures([object], storageCall, LOGO)).get(object.path));
    preparedLogos.set(settings.logo, logo);
    // A platform failure (503) is not kept: the next render tries again.
    logo.catch(() => preparedLogos.delete(settings.logo));
  }
  return logo;
}

/** Prepared logos by path: a few targets' logos, each at most 625 x 210 pixels. */
const PREPARED_LOGO_TTL_MS = 10 * 60 * 1000;
const preparedLogos = new TtlCache<Promise<PreparedImage | undefined>>(PREPARED_LOGO_TTL_MS, 16);

/** The PDF's bytes: those just rendered, or the stored file's. */
export async function pdfBytes(pdf: StoredPdf): Promise<Uint8Array> {
  if (pdf.bytes) return pdf.bytes;
  const [bytes] = await storageCall(() => pdf.file.download());
  return bytes;
}

/** A URL that downloads a stored PDF, and when it stops working (null: never). */
export interface DownloadUrl {
  url: string;
  expiresAt: string | null;
}

/**
 * Production: a V4 signed read URL valid SIGNED_URL_TTL_MS (15 minutes). Without a private key in
 * its credentials, the client library signs through IAM signBlob as the runtime service account,
 * which needs roles/iam.serviceAccountTokenCreator on itself (README, Deploying).
 */
export async function signedReadUrl(file: File, now = Date.now()): Promise<DownloadUrl> {
  const expires = now + SIGNED_URL_TTL_MS;
  const [url] = await file.getSignedUrl({ version: "v4", action: "read", accessibleAt: now, expires });
  return { url, expiresAt: new Date(expires).toISOString() };
}

/** A signed URL is given again while it has this much left of its SIGNED_URL_TTL_MS (print's and print jobs' alike). */
export const REUSE_SIGNED_URL_MS = 5 * 60 * 1000;

/** Whether a signed URL may be given again at `now`: it has more than REUSE_SIGNED_URL_MS left. */
export const reusable = (url: DownloadUrl | undefined, now: number): url is DownloadUrl =>
  typeof url?.expiresAt === "string" && Date.parse(url.expiresAt) - now > REUSE_SIGNED_URL_MS;

/**
 * signedReadUrl, each object's URL signed once and given again while it is reusable (per instance;
 * requests that miss at once share one signature). Each signature is an IAM signBlob call: a PDF
 * printed again, which costs no render, would otherwise spend one per request of the project's quota,
 * which every tenant's prints and job downloads share. Only the same object's URL is given again (the
 * object's name holds its target), so nobody gets a URL they could not have asked for.
 */
export function reusingSignedUrls(now: () => number = Date.now, sign: (file: File, now: number) => Promise<DownloadUrl> = signedReadUrl) {
  const signed = new TtlCache<Promise<DownloadUrl>>(SIGNED_URL_TTL_MS, 1_000, now);
  return async (file: File): Promise<DownloadUrl> => {
    const kept = signed.get(file.name);
    if (kept) {
      const url = await kept;
      if (reusable(url, now())) return url;
    }
    const signing = sign(file, now());
    signed.set(file.name, signing);
    // A failed signature is not kept: the next request signs again.
    signing.catch(() => signed.get(file.name) === signing && signed.delete(file.name));
    return signing;
  };
}
const productionUrl = reusingSignedUrls();

/** Emulator: the storage emulator's download-token URL, which needs no signing and never expires. */
export function emulatorDownloadUrl(emulatorHost: string, bucket: string, objectName: string, token: string): DownloadUrl {
  return { url: `http://${emulatorHost}/v0/b/${bucket}/o/${encodeURIComponent(objectName)}?alt=media&token=${encodeURIComponent(token)}`, expiresAt: null };
}

/** The one switch between the two kinds of URL (DESIGN.md, Print). */
export async function downloadUrl(pdf: StoredPdf): Promise<DownloadUrl> {
  if (!isEmulator()) return storageCall(() => productionUrl(pdf.file));
  return emulatorDownloadUrl(String(process.env.FIREBASE_STORAGE_EMULATOR_HOST), pdf.file.bucket.name, pdf.storagePath, pdf.downloadToken ?? "");
}
