// What a rendering engine looks like to the benchmark worker (renderWorker.ts).

import type { BenchCase } from "../cases";

export interface EngineOutput {
  bytes: Uint8Array;
  /** When the engine knows it; otherwise counted in the PDF. */
  pageCount?: number;
}

export interface Engine {
  /** Renders one case to a PDF, all the work a request would do (content to bytes). */
  render(c: BenchCase): Promise<EngineOutput>;
  /** CPU time (ms) used by helper processes (the browser's), cumulative since they started. */
  helperCpuMs?(): number;
  /** Memory (bytes, proportional set size) of helper processes now. */
  helperMemoryBytes?(): number;
  /**
   * Drops what the engine cached from earlier renders (Typst's memoized layout), so that the next render
   * does the work a new document would. The worker calls it before every render, outside the timing and
   * with its CPU time left out: it is a benchmark artefact, not work a request does.
   */
  forget?(): void;
  close(): Promise<void>;
}

export type EngineName = "ours" | "ours-untagged" | "chromium" | "chromium-tagged" | "pdfmake" | "typst" | "typst-warm" | "typst-tagged";
/**
 * Every engine, all run by default: ours (tagged, as the service prints) and untagged (what tagging
 * costs), each peer untagged and tagged where it can tag, and Typst also warm (its cache kept, as a server keeps it).
 */
export const ENGINES: readonly EngineName[] = ["ours", "ours-untagged", "chromium", "chromium-tagged", "typst", "typst-warm", "typst-tagged", "pdfmake"];

export const ENGINE_LABEL: Record<EngineName, string> = {
  ours: "ours (lib/print/render), tagged (PDF/UA-1)",
  "ours-untagged": "ours, untagged (tagged: false, to measure tagging)",
  chromium: "Chromium (puppeteer-core)",
  "chromium-tagged": "Chromium, tagged PDF (puppeteer's default)",
  typst: "Typst (typst-ts-node-compiler), cache evicted before every render",
  "typst-warm": "Typst, warm: new content every render, nothing evicted",
  "typst-tagged": "Typst, tagged PDF (pdfTags: true, Typst's default)",
  pdfmake: "pdfmake",
};

/** A peer the benchmark installs or checks (setup.ts), named in its reason when unavailable. */
export type Peer = "chromium" | "pdfmake" | "typst";

/** The peer an engine needs installed (its reason when unavailable). */
export const PEER_OF: Record<EngineName, Peer | undefined> = {
  ours: undefined,
  "ours-untagged": undefined,
  "typst-tagged": "typst",
  "typst-warm": "typst",
  chromium: "chromium",
  "chromium-tagged": "chromium",
  typst: "typst",
  pdfmake: "pdfmake",
};

/** The variants that measure tagging (ours untagged, the peers tagged) and the cases their targets use. */
const TAGGING_VARIANTS: readonly EngineName[] = ["ours-untagged", "chromium-tagged", "typst-tagged"];
export const TAGGING_CASES: readonly string[] = ["one-page", "table-2000"];

/** Why an engine cannot print a case at all, or is not run on it (then the table says why). */
export function cannotPrint(engine: EngineName, c: BenchCase): string | undefined {
  // A print template is this service's own data: only our renderer reads it (tagged, as the service prints).
  if (c.template && engine !== "ours") return "a print template (issue 35) is this renderer's own";
  if (TAGGING_VARIANTS.includes(engine) && !TAGGING_CASES.includes(c.key)) {
    return `the tagging variants run on the cases of the tagging targets (${TAGGING_CASES.join(", ")})`;
  }
  if (engine === "pdfmake" && c.worldScripts) {
    // pdfkit shapes a run with fontkit, but has no bidi (Arabic mixed with numbers or Latin comes out
    // in the wrong order) and no font fallback (one font per text run: mixed scripts print as boxes).
    return "pdfmake cannot lay out mixed scripts: no bidi reordering, no font fallback per script (one font per text run)";
  }
  return undefined;
}
