// The content-stream writer (src/print/render/content.ts): numbers written digit by digit must read
// exactly as String() writes them, the form every PDF the renderer made so far has.

import { describe, expect, it } from "vitest";
import { ContentBytes, num } from "../../src/print/render/content";

/** Numbers of every size a page can hold, their halves, boundaries of rounding, and beyond. */
function samples(): number[] {
  const out = [0, -0, 0.005, -0.005, 0.004999, 0.015, 0.045, -0.05, 0.05, 0.95, 1e-9, -1e-9, 9.995, 99.995, 1e12 + 0.01, 1e13 - 0.01, 1e13, 5e14, 1e16, -1e16, 1e21, 1e300, Number.NaN, Infinity, -Infinity];
  // A deterministic spread: xorshift over [-2000, 2000) and over the magnitudes up to 10^15.
  let x = 20261126;
  const next = (): number => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
  for (let i = 0; i < 20000; i++) out.push((next() - 0.5) * 4000, (next() - 0.5) * 10 ** Math.floor(next() * 16), Math.round(next() * 1e6) / 200);
  return out;
}

describe("ContentBytes", () => {
  it("writes numbers with two decimals as num() does, and with one as String(Math.round(v * 10) / 10)", () => {
    for (const v of samples()) {
      const out = new ContentBytes(8);
      out.num(v).byte(0x20).tenths(v).byte(0x20).int(Math.abs(Math.trunc(v)) % 2 ** 31);
      expect(Buffer.from(out.view).toString("latin1"), String(v)).toBe(`${num(v)} ${String(Math.round(v * 10) / 10)} ${String(Math.abs(Math.trunc(v)) % 2 ** 31)}`);
    }
  });

  it("grows as it is written, and separates entries by line breaks", () => {
    const out = new ContentBytes(4);
    out.entry().text("0.5 w");
    out.entry().text("x".repeat(100)).code(0xbeef);
    out.entry();
    expect(Buffer.from(out.view).toString("latin1")).toBe(`0.5 w\n${"x".repeat(100)}\xbe\xef\n`);
    expect(out.entries).toBe(3);
  });

  it("writes a code's two bytes into a literal string, escaping what a literal string must (parentheses, backslash, line ends)", () => {
    const out = new ContentBytes(2);
    for (const code of [0x0041, 0x2829, 0x5c00, 0x0a0d, 0x00ff]) out.code(code);
    expect([...out.view]).toEqual([0x00, 0x41, 0x5c, 0x28, 0x5c, 0x29, 0x5c, 0x5c, 0x00, 0x5c, 0x6e, 0x5c, 0x72, 0x00, 0xff]);
    // Read back as a PDF reader reads a literal string, every code is what was written.
    const codes: number[] = [];
    const bytes = out.view;
    const read: number[] = [];
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] !== 0x5c) read.push(bytes[i]);
      else read.push({ 0x6e: 0x0a, 0x72: 0x0d }[bytes[++i]] ?? bytes[i]);
    }
    for (let i = 0; i < read.length; i += 2) codes.push((read[i] << 8) | read[i + 1]);
    expect(codes).toEqual([0x0041, 0x2829, 0x5c00, 0x0a0d, 0x00ff]);
  });
});
