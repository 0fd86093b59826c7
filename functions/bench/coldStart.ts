/**
 * Cold start: how long a fresh Node process takes to import each function's code, median of
 * RUNS processes, compared with importing firebase-functions' https module and express alone.
 * Run after `npm run build`:  npm run bench:cold-start
 */
import { execFileSync } from "node:child_process";
import { FUNCTIONS_DIR } from "../stack/config";

const RUNS = 10;

/** Each case is the list of modules one process requires, timed together. */
const CASES: Record<string, string[]> = {
  "base (firebase-functions/v2/https + express)": ["firebase-functions/v2/https", "express"],
  "api (lib/index.js + lib/api/app.js)": ["./lib/index.js", "./lib/api/app.js"],
  "print (lib/index.js + lib/print/app.js)": ["./lib/index.js", "./lib/print/app.js"],
};

function importMs(modules: string[]): number {
  const script = `const t=process.hrtime.bigint();${modules.map((m) => `require(${JSON.stringify(m)});`).join("")}console.log(Number(process.hrtime.bigint()-t)/1e6)`;
  return Number(execFileSync(process.execPath, ["-e", script], { cwd: FUNCTIONS_DIR, encoding: "utf8" }).trim());
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const results = Object.entries(CASES).map(([name, modules]) => {
  const times = Array.from({ length: RUNS }, () => importMs(modules));
  return { name, median: median(times), min: Math.min(...times), max: Math.max(...times) };
});
const base = results[0].median;
console.log(`Import time, median of ${RUNS} fresh processes (node ${process.version}):`);
for (const r of results) {
  console.log(`  ${r.name.padEnd(48)} ${r.median.toFixed(1).padStart(7)} ms  (min ${r.min.toFixed(1)}, max ${r.max.toFixed(1)})  ${(r.median / base).toFixed(2)}x base`);
}
