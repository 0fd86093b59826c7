// The file's objects (src/print/render/objects.ts) are written as pdf-lib 1.17 wrote them: the form
// of every PDF the renderer made while pdf-lib built its files, which readers of ours (a print job's
// merged output) parse.

import { PDFContext, PDFHexString, PDFName, PDFNumber, PDFRef, PDFString } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { Hex, Literal, Ref, serialize, Serialized } from "../../src/print/render/objects";

describe("serialize", () => {
  it("writes a value serialized before as the value itself (a subset's widths kept across documents)", () => {
    const widths = [0, [500, 612.5, 0, 1000]];
    const dict = { Type: "Font", W: widths, DW: 1000 };
    expect(serialize({ ...dict, W: new Serialized(serialize(widths)) })).toBe(serialize(dict));
  });

  it("writes numbers, names, strings, arrays and dictionaries as pdf-lib does", () => {
    const numbers = [0, 1, -1, 595.28, 841.89, 0.5, -0.25, 1e-7, -3.5e-9, 123456789012, 1e21, 2.5e25, -1.5e30, 262148];
    for (const n of numbers) expect(serialize(n), String(n)).toBe(PDFNumber.of(n).toString());
    for (const name of ["Type", "NotoSans-Bold", "ABCDEF+NotoSansJP-Regular", "a b", "x/y#(z)", "é", "F10"]) expect(serialize(name), name).toBe(PDFName.of(name).toString());
    for (const text of ["Title", "Ümlaut — 😀", "\ud800 lone"]) expect(serialize(Hex.ofText(text))).toBe(PDFHexString.fromText(text).toString());
    expect(serialize(new Literal("D:20260504162000Z"))).toBe(PDFString.of("D:20260504162000Z").toString());

    const context = PDFContext.create();
    const ours = { Type: "Font", W: [0, [600, 549.5]], CIDSystemInfo: { Registry: new Literal("Adobe"), Supplement: 0 }, Kids: [new Ref(6), new Ref(8)], Marked: true, Empty: [], Left: undefined };
    const theirs = context.obj({ Type: "Font", W: [0, [600, 549.5]], CIDSystemInfo: { Registry: PDFString.of("Adobe"), Supplement: 0 }, Kids: [PDFRef.of(6), PDFRef.of(8)], Marked: true, Empty: [] });
    expect(serialize(ours)).toBe(theirs.toString());
  });
});
