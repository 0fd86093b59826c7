import { describe, expect, it } from "vitest";
import { archiveNames } from "../../src/print/jobs/names";

const file = (objectInstanceId: string, title: string) => ({ objectInstanceId, title });

describe("archiveNames (a print job's file names in its ZIP)", () => {
  it("names each PDF by its instance id and title, in the title's own letters, safe everywhere", () => {
    expect([...archiveNames([file("inspection-short", "Boiler Inspection B-12"), file("x", "Prüfbericht: Kessel/Ofen")]).values()]).toEqual(["inspection-short Boiler Inspection B-12.pdf", "x Prüfbericht_ Kessel_Ofen.pdf"]);
    expect([...archiveNames([file("cjk", "安全点検報告書 — 第3工場"), file("rtl", "تقرير \u202Efdp.exe"), file("nfd", "Pru\u0308fung\u0000\n"), file("hi", "निरीक्षण रिपोर्ट")]).values()]).toEqual([
      "cjk 安全点検報告書 _ 第3工場.pdf",
      "rtl تقرير _fdp.exe.pdf",
      "nfd Prüfung.pdf", // composed, and its controls gone
      "hi निरीक्षण रिपोर्ट.pdf",
    ]);
  });

  it("cuts a long title between characters, never between a letter and its marks", () => {
    // "क्षि": a conjunct and a vowel sign, four code points, one character on screen.
    const [name] = archiveNames([file("t", "क्षि".repeat(100))]).values();
    expect(name).toBe(`t ${"क्षि".repeat(78)}.pdf`);
  });

  it("keeps names unique where cutting to 80 characters or case would make two one (and terminates)", () => {
    const long = "x".repeat(80);
    const names = archiveNames([file(`${long}1`, ""), file(`${long}2`, ""), file(`${long}3`, ""), file("A1", "T"), file("a1", "T"), file("Prüfung-1", "t".repeat(90)), file("Prufung-1", "t".repeat(90))]);
    const all = [...names.values()];
    expect(new Set(all.map((n) => n.toLowerCase())).size).toBe(all.length);
    for (const name of all) expect(name.length).toBeLessThanOrEqual(84);
    expect(names.get(`${long}2`)).toMatch(/ \(2\)\.pdf$/);
    expect(names.get("a1")).toBe("a1 T (2).pdf");
  });
});
