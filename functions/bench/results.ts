// What the benchmark's parts measure, as the report (report.ts) reads it: the parts write these, the
// report only reads them (run.ts and render.ts hand them over).

import type { ColdStartRow } from "./coldStart";
import type { BenchCase } from "./cases";
import type { EngineName } from "./engines/types";
import type { FontLoadingRow } from "./fonts";
import type { HttpBenchResult } from "./http";
import type { Machine } from "./machine";
import type { PairedCost } from "./pairs";
import type { WhereTimeGoes } from "./profile";
import type { WorkerBudget } from "./renderWorker";
import type { Summary } from "./stats";

export interface RenderOptionsBench {
  /** Worker processes per (engine, case). */
  processes: number;
  budget: WorkerBudget;
  engines: readonly EngineName[];
  /** Case keys to run (default: all). */
  cases?: readonly string[];
}

export interface EngineCaseResult {
  engine: EngineName;
  caseKey: string;
  /** Why it did not run (then no figures). */
  unavailable?: string;
  pageCount?: number;
  /** Output size; sizeVaries when processes disagreed (dates in the file, for example). */
  sizeBytes?: number;
  sizeVaries?: boolean;
  /** Wall-clock ms per PDF, all measured renders of all processes pooled. */
  timeMs?: Summary;
  /** CPU ms per PDF, one figure per process. */
  cpuMs?: Summary;
  /** PDFs per second on one core (1000 / CPU ms per PDF), one figure per process. */
  perSecondOneCore?: Summary;
  peakMiB?: Summary;
  idleMiB?: Summary;
  renders?: number;
  outputFile?: string;
  /** The worker process before it loaded the engine (Node.js and tsx), MiB. */
  bareMiB?: number;
}

export interface RenderBenchResult {
  /** Our renderer's time by stage of its pipeline (profile.ts). */
  profiles: WhereTimeGoes[];
  /** What tagging (ours and Typst's), a template and signing add, base and variant alternating in one process (pairs.ts). */
  pairs: PairedCost[];
  cases: BenchCase[];
  results: EngineCaseResult[];
  setupNotes: string[];
  options: RenderOptionsBench;
  outDir: string;
}

export interface Report {
  machine: Machine;
  loadAtEnd: string;
  durationS: number;
  command: string;
  render?: RenderBenchResult;
  /** Font loading (fonts.ts: first renders in fresh processes) and the shaping paths (a Markdown table of shaping.ts). */
  fonts?: { loading: FontLoadingRow[]; shaping: string[] };
  coldStart?: ColdStartRow[];
  http?: HttpBenchResult;
  jobs?: import("./jobs").JobsBenchResult;
}

