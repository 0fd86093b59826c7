// ==== END-TO-END OVER THE LOCAL STACK: TO BE WRITTEN ===========================================
// Requests per second and p50/p99 latency for `print` (first render and cached), `send-pdf` and each
// api route, at concurrency 1 and 20, over a local stack that is already running (this script must
// never start it). bench/run.ts calls runHttpBench() and puts its rows in the report as they are;
// until it measures something it returns `notRun` with the reason, and the report says so.
//
// Targets (issue 8): api routes p50 under 15 ms at concurrency 1; cached print under 25 ms; zero errors.

import type { Summary } from "./stats";

export interface HttpRow {
  /** e.g. "GET /api/tenant/acme-north/roles" or "POST /print/... (cached)". */
  route: string;
  concurrency: number;
  requests: number;
  errors: number;
  requestsPerSecond: number;
  /** Latency in ms: median with its spread over repeated runs. */
  p50: Summary;
  p99: Summary;
  /** Target for p50 at this concurrency, when there is one. */
  targetP50Ms?: number;
}

export interface HttpBenchResult {
  /** Why nothing was measured (then rows is empty). */
  notRun?: string;
  /** Where the stack was reached, for the report. */
  baseUrl?: string;
  rows: HttpRow[];
}

export async function runHttpBench(): Promise<HttpBenchResult> {
  return { notRun: "not built yet (bench/http.ts): the end-to-end figures over the local stack are to be added", rows: [] };
}
