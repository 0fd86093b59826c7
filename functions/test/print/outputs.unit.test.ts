// The renderer's output, pinned: the SHA-256 of every PDF of outputs.ts (the benchmark's cases, the
// demo instances under several settings, the layout's corners) as outputs.sha256.json records it.
// A change meant to change what the renderer prints updates the file on purpose:
//   UPDATE_OUTPUT_HASHES=1 npx vitest run --project unit test/print/outputs.unit.test.ts

import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { renderInstancePdf } from "../../src/print/render";
import { outputCases } from "./outputs";

const HASHES_FILE = resolve(__dirname, "outputs.sha256.json");

describe("the renderer's output", () => {
  it("is byte for byte what outputs.sha256.json records, for every benchmark case, demo instance and corner", async () => {
    const hashes: Record<string, string> = {};
    for (const { name, instance, options } of await outputCases()) {
      const { bytes, pageCount } = await renderInstancePdf(instance, options);
      hashes[name] = `${createHash("sha256").update(bytes).digest("hex")} ${pageCount}`;
    }
    if (process.env.UPDATE_OUTPUT_HASHES === "1") writeFileSync(HASHES_FILE, `${JSON.stringify(hashes, null, 2)}\n`);
    const recorded = existsSync(HASHES_FILE) ? (JSON.parse(readFileSync(HASHES_FILE, "utf8")) as Record<string, string>) : {};
    expect(hashes).toEqual(recorded);
  }, 120_000);
});
