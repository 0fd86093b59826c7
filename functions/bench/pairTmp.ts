import { readFileSync } from "node:fs";
import type { BenchCase } from "./cases";
import { createEngine, type EngineName } from "./engines";
async function main(): Promise<void> {
  const [a, b, casesFile, key, ms] = process.argv.slice(2);
  const c = (JSON.parse(readFileSync(casesFile, "utf8")) as BenchCase[]).find((x) => x.key === key)!;
  const E = [await createEngine(a as EngineName), await createEngine(b as EngineName)];
  for (let i = 0; i < 5; i++) for (const e of E) { e.forget?.(); await e.render(c); }
  const t: number[][] = [[], []]; const r: number[] = []; const end = Date.now() + Number(ms ?? 5000); let i = 0;
  while (Date.now() < end) {
    const order = i++ % 2 ? [1, 0] : [0, 1]; const d = [0, 0];
    for (const k of order) { E[k].forget?.(); const s = process.hrtime.bigint(); await E[k].render(c); d[k] = Number(process.hrtime.bigint() - s) / 1e6; }
    t[0].push(d[0]); t[1].push(d[1]); r.push(d[1] / d[0]);
  }
  const med = (x: number[]): number => [...x].sort((p, q) => p - q)[x.length >> 1];
  console.log(a, b, "pairs", r.length, med(t[0]).toFixed(3), med(t[1]).toFixed(3), `share ${((med(t[1]) / med(t[0]) - 1) * 100).toFixed(1)}%`, `median ratio ${((med(r) - 1) * 100).toFixed(1)}%`);
  process.exit(0);
}
void main();
