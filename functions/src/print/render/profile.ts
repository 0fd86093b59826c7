import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The sRGB colour profile of a PDF/A output intent: the ICC's sRGB2014 (v2, 3 KB, freely
 * distributable), as pdfkit's package ships it. `npm run build` copies it to lib/icc (like the fonts:
 * the package is a development dependency).
 */
export const SRGB_PROFILE = { package: "pdfkit/js/data/sRGB_IEC61966_2_1.icc", name: "sRGB IEC61966-2.1" } as const;

/** Where the build puts it (this file compiles to lib/print/render). */
export const BUNDLED_PROFILE = join(__dirname, "..", "..", "icc", "sRGB_IEC61966_2_1.icc");

let profile: Uint8Array | undefined;

/** The profile's bytes, read once: from the build's bundle, else from the package (tests, emulator). */
export function srgbProfile(): Uint8Array {
  profile ??= new Uint8Array(readFileSync(existsSync(BUNDLED_PROFILE) ? BUNDLED_PROFILE : require.resolve(SRGB_PROFILE.package)));
  return profile;
}
