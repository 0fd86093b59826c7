// Codes read back from a PDF page as a scanner reads them: the page drawn at 200 dpi by poppler and
// decoded by independent decoders (Debian's zbar-tools and dmtx-utils, installed by test/unitSetup.ts).

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pageRaster } from "./popplerText";

/** Page `page` rasterised at 200 dpi and read by zbarimg (QR, Code 128) or dmtxread (Data Matrix: zbar reads none): each symbol found as "TYPE:text". */
export function decoded(pdf: Uint8Array, decoder: "zbar" | "dmtx", page = 1): string[] {
  const { width, height, rgb } = pageRaster(pdf, page, 200);
  const dir = mkdtempSync(join(tmpdir(), "codes-"));
  try {
    const file = join(dir, "page.ppm");
    writeFileSync(file, Buffer.concat([Buffer.from(`P6\n${width} ${height}\n255\n`), rgb]));
    if (decoder === "dmtx") {
      const r = spawnSync("dmtxread", ["-N1", file], { encoding: "buffer" });
      return r.stdout.length ? [`DataMatrix:${r.stdout.toString("utf8")}`] : [];
    }
    const r = spawnSync("zbarimg", ["-q", file], { encoding: "utf8" });
    return r.stdout.split("\n").filter((line) => line);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
