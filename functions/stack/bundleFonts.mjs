// Copies the font files the renderer reads (FONT_FILES) from their development-only packages into
// lib/fonts, and the sRGB profile of PDF/A output intents into lib/icc, which a deploy uploads with
// the compiled code: the function carries these files and not every style of every font package.
// Run by `npm run build`, after tsc.
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const functionsDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(functionsDir, "package.json"));
const { FONT_FILES, BUNDLED_FONTS_DIR } = require("./lib/print/render/text/fonts.js");
for (const file of FONT_FILES) {
  const target = join(BUNDLED_FONTS_DIR, file);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(require.resolve(file), target);
}
const { SRGB_PROFILE, BUNDLED_PROFILE } = require("./lib/print/render/profile.js");
mkdirSync(dirname(BUNDLED_PROFILE), { recursive: true });
copyFileSync(require.resolve(SRGB_PROFILE.package), BUNDLED_PROFILE);
