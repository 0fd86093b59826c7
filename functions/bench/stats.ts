// Small statistics and formatting helpers shared by the benchmark scripts.

/** A sample's median and spread. p10/p90 by nearest rank (with few samples they are min/max). */
export interface Summary {
  n: number;
  median: number;
  p10: number;
  p90: number;
  min: number;
  max: number;
}

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

/** The q-quantile of an unsorted sample (nearest rank). */
export const percentile = (xs: readonly number[], q: number): number => quantile([...xs].sort((a, b) => a - b), q);

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export function summarize(xs: readonly number[]): Summary {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, median: median(s), p10: quantile(s, 0.1), p90: quantile(s, 0.9), min: s[0] ?? NaN, max: s[s.length - 1] ?? NaN };
}

/** A number with about three significant digits: 0.412, 4.12, 41.2, 412, 4120. */
export function fmt(v: number): string {
  if (!Number.isFinite(v)) return "n/a";
  const a = Math.abs(v);
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  if (a >= 1) return v.toFixed(2);
  return v.toFixed(3);
}

/** "4.12 (3.98–4.40)": median with its spread. */
export function fmtSpread(s: Pick<Summary, "median">, lo: number, hi: number): string {
  return `${fmt(s.median)} (${fmt(lo)}–${fmt(hi)})`;
}

export const kib = (bytes: number): string => `${fmt(bytes / 1024)} KiB`;
export const mib = (bytes: number): string => fmt(bytes / (1024 * 1024));

/** A ratio as "12.3x". */
export const ratio = (v: number): string => (Number.isFinite(v) ? `${fmt(v)}x` : "n/a");

/** A small deterministic generator (mulberry32: every bit of its output varies, unlike a linear congruential one's low bits): numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
