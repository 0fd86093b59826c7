/**
 * Does the cmap path pay? Every string of the Latin one-page document (demo inspection-short) shaped
 * by HarfBuzz and by the font's cmap, in this process, warm: ms for the whole document's strings.
 * Run after `npm run build`:  npm run bench:shaping   (figures go to BENCHMARKS.md, "Fonts")
 */
import { readFileSync } from "node:fs";
import { DEMO_FIXTURE } from "./cases";

type Shape = typeof import("../src/print/render/text/shape");
type Fonts = typeof import("../src/print/render/text/fonts");
const shape = require("../lib/print/render/text/shape.js") as Shape;
const fonts = require("../lib/print/render/text/fonts.js") as Fonts;

function strings(value: unknown, out: string[]): string[] {
  if (typeof value === "string") out.push(...value.split("\n"));
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === "object") for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** The comparison (Markdown lines). */
export async function shapingTable(): Promise<string[]> {
  const demo = JSON.parse(readFileSync(DEMO_FIXTURE, "utf8")) as { documents: Record<string, unknown> };
  const texts = strings(demo.documents["tenants/acme-north/objectInstances/inspection-short"], []).filter((s) => s.trim() !== "");
  await shape.loadShaper();
  const regular = fonts.getFace("latin", false);
  const run = (path: (t: string) => unknown): number => {
    for (let i = 0; i < 50; i++) for (const t of texts) path(t);
    const times: number[] = [];
    for (let k = 0; k < 200; k++) {
      const started = performance.now();
      for (const t of texts) path(t);
      times.push(performance.now() - started);
    }
    return times.sort((a, b) => a - b)[times.length >> 1];
  };
  // Into one glyph store, emptied after each string (as a document's store would grow).
  const store = new shape.GlyphStore();
  const cmap = run((t) => (shape.throughCmap(store, t, 0, t.length, regular), (store.length = 0)));
  const harfbuzz = run((t) => (shape.throughHarfBuzz(store, t, 0, t.length, regular, false, "en"), (store.length = 0)));
  const chars = texts.reduce((n, t) => n + t.length, 0);
  return [
    `| path | ms for the document's ${texts.length} strings (${chars} characters), median of 200 |`,
    "| --- | ---: |",
    `| cmap (what the renderer uses for Latin, Greek, Cyrillic, CJK, single emoji) | ${cmap.toFixed(3)} |`,
    `| HarfBuzz (with kerning) | ${harfbuzz.toFixed(3)} |`,
  ];
}

if (require.main === module) void shapingTable().then((lines) => console.log(lines.join("\n")));
