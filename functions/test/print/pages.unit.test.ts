// What the renderer's output looks like and reads as, pinned apart from its bytes: every page of every
// PDF of outputs.ts rendered by poppler at 150 dpi (pdftoppm, the pixels' SHA-256), and its text as
// pdftotext extracts it. A change that makes the same pages in other bytes (a compression level, an
// operator written once instead of again: issue 37) updates outputs.sha256.json and must leave this
// file as it is; a change meant to change what is printed updates both, on purpose:
//   UPDATE_PAGE_HASHES=1 npx vitest run --project unit test/print/pages.unit.test.ts

import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { renderInstancePdf } from "../../src/print/render";
import { outputCases } from "./outputs";

const HASHES_FILE = resolve(__dirname, "outputs.pages.sha256.json");
const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), "output-pages-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const sha256 = (bytes: Uint8Array | string): string => createHash("sha256").update(bytes).digest("hex");

/** Each page's pixels at 150 dpi (PPM, RGB) and the extracted text, hashed. */
async function pageHashes(name: string, bytes: Uint8Array): Promise<{ pages: string[]; text: string }> {
  const dir = mkdtempSync(join(work, "case-"));
  const file = join(dir, "out.pdf");
  writeFileSync(file, bytes);
  await run("pdftoppm", ["-r", "150", file, join(dir, "page")], { maxBuffer: 1 << 20 });
  const { stdout } = await run("pdftotext", ["-enc", "UTF-8", file, "-"], { maxBuffer: 64 << 20, encoding: "utf8" });
  // page-01.ppm ... page-81.ppm: the same width of numbers, so the names sort in page order.
  const pages = readdirSync(dir)
    .filter((f) => f.endsWith(".ppm"))
    .sort()
    .map((f) => sha256(readFileSync(join(dir, f))));
  rmSync(dir, { recursive: true, force: true });
  if (pages.length === 0) throw new Error(`${name}: pdftoppm made no page`);
  return { pages, text: sha256(stdout) };
}

describe("the renderer's pages", () => {
  it("look and read as outputs.pages.sha256.json records, for every benchmark case, demo instance and corner (poppler at 150 dpi; pdftotext)", async () => {
    const cases = await outputCases();
    const hashes: Record<string, { pages: string[]; text: string }> = {};
    // Two at a time: poppler's processes use the machine's two cores while the next PDF renders.
    for (let i = 0; i < cases.length; i += 2) {
      const batch = await Promise.all(
        cases.slice(i, i + 2).map(async ({ name, instance, options }) => [name, await pageHashes(name, (await renderInstancePdf(instance, options)).bytes)] as const),
      );
      for (const [name, h] of batch) hashes[name] = h;
    }
    if (process.env.UPDATE_PAGE_HASHES === "1") writeFileSync(HASHES_FILE, `${JSON.stringify(hashes, null, 1)}\n`);
    const recorded = existsSync(HASHES_FILE) ? (JSON.parse(readFileSync(HASHES_FILE, "utf8")) as typeof hashes) : {};
    expect(hashes).toEqual(recorded);
  }, 600_000);
});
