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
  close(): Promise<void>;
}

export type EngineName = "ours" | "chromium" | "chromium-tagged" | "pdfmake";
/** Run by default. */
export const ENGINES: readonly EngineName[] = ["ours", "chromium", "pdfmake"];
/** Every engine --engines accepts. */
export const ALL_ENGINES: readonly EngineName[] = ["ours", "chromium", "chromium-tagged", "pdfmake"];

export const ENGINE_LABEL: Record<EngineName, string> = {
  ours: "ours (lib/print/render)",
  chromium: "Chromium (puppeteer-core)",
  "chromium-tagged": "Chromium, tagged PDF (puppeteer's default)",
  pdfmake: "pdfmake",
};

/** The peer an engine needs installed (its reason when unavailable). */
export const PEER_OF: Record<EngineName, "chromium" | "pdfmake" | undefined> = {
  ours: undefined,
  chromium: "chromium",
  "chromium-tagged": "chromium",
  pdfmake: "pdfmake",
};
