// The logos PUT print-settings/logo stores: where each goes, and their removal once replaced.

import { createHash } from "node:crypto";
import { defaultBucket } from "../firebase";
import * as logs from "../logs";
import { storageCall } from "./storageCall";

/**
 * Where an uploaded logo is stored: in the target's own uploads folder (so that its settings may name
 * it), under a name made from its bytes. The path is the logo's version: stored PDFs name the settings
 * they were printed with, so a new logo is a new PDF without a Storage call per print to learn it.
 */
export const logoPath = (targetPath: string, bytes: Buffer, format: "png" | "jpeg") =>
  `uploads/${targetPath}/print-settings/logo-${createHash("sha256").update(bytes).digest("hex").slice(0, 16)}.${format === "png" ? "png" : "jpg"}`;

/** Is `path` a logo this route stored for the target (logoPath's form)? Only those are ever removed. */
const isUploadedLogo = (targetPath: string, path: unknown): path is string =>
  typeof path === "string" && path.startsWith(`uploads/${targetPath}/print-settings/logo-`) && /\/logo-[0-9a-f]{16}\.(?:png|jpg)$/.test(path);

/**
 * Removes the logo a change of settings replaced (issue 38, F6: every upload stayed forever), when
 * this route stored it: nothing else names it (a target's settings may only name its own uploads, and
 * a stored PDF holds the logo's pixels, not its path). The transaction that replaced it read it, so
 * two changes at once each remove the one they replaced. A failure is logged, never the request's.
 */
export async function removeReplacedLogo(targetPath: string, replaced: unknown, current: unknown): Promise<void> {
  if (!isUploadedLogo(targetPath, replaced) || replaced === current) return;
  try {
    await storageCall(() => defaultBucket().file(replaced).delete({ ignoreNotFound: true }));
  } catch (error) {
    logs.logoNotRemoved(replaced, error);
  }
}
