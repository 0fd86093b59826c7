// Fonts load per script, on first use: a file of its own, so that no other test has loaded any.

import { describe, expect, it } from "vitest";
import { renderInstancePdf, type PrintableInstance } from "../../src/print/render";
import { loadedFamilies } from "../../src/print/render/text";

const doc = (value: string): PrintableInstance => ({ title: "Fonts", objectTypeName: "T", sections: [{ title: "S", fields: [{ label: "L", type: "text", value }] }] });
const options = { instanceId: "fonts", targetName: "Acme", generatedAt: new Date("2026-05-04T16:12:05Z") };

describe("font loading", () => {
  it("reads a script's font only when a document needs it: a Latin document never touches a CJK font", async () => {
    expect(loadedFamilies()).toEqual([]);
    await renderInstancePdf(doc("Zoë Ångström, Νίκος, Ольга — 48,250 m²"), options);
    expect(loadedFamilies()).toEqual(["latin"]);
    await renderInstancePdf(doc("مرحبا"), options);
    expect(loadedFamilies().sort()).toEqual(["arabic", "latin"]);
    await renderInstancePdf(doc("東京 かな"), options);
    expect(loadedFamilies().sort()).toEqual(["arabic", "japanese", "latin"]);
  });
});
