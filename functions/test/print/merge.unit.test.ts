// The merged output of print jobs (src/print/render/merge.ts) on the renderer's own PDFs of the demo
// instances, read back as a reader sees it: qpdf (--check, the objects), poppler (pages, text, the
// structure tree), and the ParentTree followed from every MCID of every page to its element.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { renderInstancePdf, type PrintableInstance, type RenderOptions } from "../../src/print/render";
import { CrossReferences, FileBytes, PDF_HEADER } from "../../src/print/render/file";
import { mergedPdfStream, mergePdfs, type MergeDocument, type MergeOptions } from "../../src/print/render/merge";
import { renumberInto, WrittenPdf } from "../../src/print/render/written";
import { catalogOf, pageContents, pdfInfo, qpdfCheck, qpdfObjects, resolve, streamText, structText } from "./pdfChecks";
import { popplerLines, popplerWarnings } from "./popplerText";

const demo = JSON.parse(readFileSync(resolvePath(__dirname, "../../../emulator-data/demo.json"), "utf8")) as { documents: Record<string, PrintableInstance> };
/** A demo instance, or "readings": a table over several pages (the demo's audit-long takes poppler's structure reader seconds a page). */
const instance = (id: string): PrintableInstance =>
  id === "readings"
    ? { title: "Meter readings", objectTypeName: "Log", sections: [{ title: "Readings", fields: [{ label: "Readings", type: "table", value: { columns: ["#", "Meter", "Value"], rows: Array.from({ length: 150 }, (_, i) => ({ cells: [i + 1, `M-${i + 1}`, `v${i + 1}`] })) } }] }] }
    : demo.documents[`tenants/acme-north/objectInstances/${id}`];
const AT = new Date("2026-05-04T16:12:05Z");
const renderOptions = (instanceId: string, more: Partial<RenderOptions> = {}): RenderOptions => ({ instanceId, targetName: "Acme North", generatedAt: AT, ...more });
const OPTIONS: MergeOptions = { title: "Acme North", subject: "Print job j1: 4 documents", keywords: ["j1"], date: AT };

/** The merged bytes, all of them. */
async function merged(documents: Iterable<MergeDocument> | AsyncIterable<MergeDocument>, options: MergeOptions = OPTIONS): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of mergePdfs(documents, options)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

type Json = Record<string, any>;

/** The page objects' references in page order (the page tree walked from the catalog). */
function pagesOf(objects: Record<string, Json>): string[] {
  const walk = (ref: string): string[] => {
    const node = resolve(objects, ref);
    return node["/Type"] === "/Pages" ? (node["/Kids"] as string[]).flatMap(walk) : [ref];
  };
  return walk(catalogOf(objects).catalog["/Pages"]);
}

/** The top-level outline items: title and destination page. */
function outlineOf(objects: Record<string, Json>): { title: string; page: string }[] {
  const items = [];
  for (let ref = resolve(objects, catalogOf(objects).catalog["/Outlines"])["/First"]; ref; ref = resolve(objects, ref)["/Next"]) {
    const item = resolve(objects, ref);
    items.push({ title: String(item["/Title"]).replace(/^u:/, ""), page: item["/Dest"][0] as string });
  }
  return items;
}

/** A number tree's entries (its kids' leaves, in order). */
function numberTree(objects: Record<string, Json>, ref: string): Map<number, string[]> {
  const node = resolve(objects, ref);
  const entries = new Map<number, string[]>();
  for (const kid of (node["/Kids"] as string[] | undefined) ?? []) for (const [key, value] of numberTree(objects, kid)) entries.set(key, value);
  const nums = (node["/Nums"] as unknown[] | undefined) ?? [];
  for (let i = 0; i < nums.length; i += 2) entries.set(nums[i] as number, nums[i + 1] as string[]);
  return entries;
}

describe("mergePdfs", () => {
  const ids = ["inspection-short", "readings", "multilingual", "script-rtl"];
  let documents: MergeDocument[];
  let pageCounts: number[];
  let bytes: Buffer;
  let objects: Record<string, Json>;
  beforeAll(async () => {
    const rendered = await Promise.all(ids.map((id) => renderInstancePdf(instance(id), renderOptions(id))));
    documents = ids.map((id, i) => ({ objectInstanceId: id, title: instance(id).title, bytes: rendered[i].bytes }));
    pageCounts = rendered.map((r) => r.pageCount);
    bytes = await merged(documents);
    objects = qpdfObjects(bytes);
  }, 60_000);

  it("is one valid tagged PDF of every document's pages, in order, each from a new page, reading as the documents read", () => {
    expect(qpdfCheck(bytes)).toContain("No syntax or stream encoding errors found");
    expect(popplerWarnings(bytes)).toBe("");
    const info = pdfInfo(bytes);
    expect(info.Tagged).toBe("yes");
    expect(Number(info.Pages)).toBe(pageCounts.reduce((a, b) => a + b));
    expect(pageCounts[1]).toBeGreaterThan(1);
    expect(info.Title).toBe("Acme North");
    // pdftotext ends every page with a form feed: the same text, page for page, as the documents one after another.
    expect(popplerLines(bytes).join("\n")).toBe(documents.map((d) => popplerLines(d.bytes).join("\n")).join(""));
  });

  it("has one bookmark per document, in order, at its first page, and no other", () => {
    const pages = pagesOf(objects);
    const firstPages = pageCounts.map((_, i) => pages[pageCounts.slice(0, i).reduce((a, b) => a + b, 0)]);
    expect(outlineOf(objects)).toEqual(documents.map((d, i) => ({ title: d.title, page: firstPages[i] })));
    const outlines = resolve(objects, catalogOf(objects).catalog["/Outlines"]);
    expect(outlines["/Count"]).toBe(documents.length);
    for (const { title } of outlineOf(objects)) expect(title).not.toBe("");
    // Top level only: no item has children.
    for (let ref = outlines["/First"]; ref; ref = resolve(objects, ref)["/Next"]) expect(resolve(objects, ref)["/First"]).toBeUndefined();
    expect(catalogOf(objects).catalog["/PageMode"]).toBe("/UseOutlines");
  });

  it("has one structure tree: a Document of one Part per document, each holding that document's elements, as poppler reads them", () => {
    const { catalog } = catalogOf(objects);
    expect(catalog).toMatchObject({ "/MarkInfo": { "/Marked": true }, "/Lang": "u:en-GB", "/ViewerPreferences": { "/DisplayDocTitle": true } });
    const root = resolve(objects, catalog["/StructTreeRoot"]);
    const document = resolve(objects, root["/K"]);
    expect(document).toMatchObject({ "/S": "/Document", "/P": catalog["/StructTreeRoot"] });
    const parts = (document["/K"] as string[]).map((ref) => resolve(objects, ref));
    expect(parts.map((p) => [p["/S"], p["/P"], String(p["/T"]).replace(/^u:/, "")])).toEqual(documents.map((d) => ["/Part", root["/K"], d.title]));
    // The right-to-left document's language is not the merged file's (the first document's): its Part says so.
    const languages = documents.map((d) => String(catalogOf(qpdfObjects(d.bytes)).catalog["/Lang"]).replace(/^u:/, ""));
    expect(languages[3]).not.toBe("en-GB");
    expect(parts.map((p) => p["/Lang"])).toEqual(languages.map((l) => (l === "en-GB" ? undefined : `u:${l}`)));
    // poppler: "Document", then per document "Part" and the document's own tree under it, its text included.
    const lines = (text: string) => text.split("\n").map((l) => l.trim()).filter(Boolean);
    const mergedLines = lines(structText(bytes));
    const expected = ["Document", ...documents.flatMap((d) => ["Part", ...lines(structText(d.bytes)).slice(1)])];
    expect(mergedLines.map((l) => (l.startsWith("Part") ? "Part" : l))).toEqual(expected);
  }, 30_000);

  it("maps every MCID of every page through the merged ParentTree to the element that holds it; each page's key its own", () => {
    const { catalog } = catalogOf(objects);
    const root = resolve(objects, catalog["/StructTreeRoot"]);
    const tree = numberTree(objects, root["/ParentTree"]);
    const pages = pagesOf(objects);
    const contents = pageContents(bytes);
    expect(root["/ParentTreeNextKey"]).toBe(pages.length);
    expect(new Set(pages.map((p) => resolve(objects, p)["/StructParents"])).size).toBe(pages.length);
    let checked = 0;
    pages.forEach((page, i) => {
      const dict = resolve(objects, page);
      expect(dict["/Tabs"]).toBe("/S");
      const elements = tree.get(dict["/StructParents"])!;
      const mcids = [...contents[i].matchAll(/\/MCID (\d+)/g)].map((m) => Number(m[1]));
      expect(elements).toHaveLength(mcids.length);
      for (const mcid of mcids) {
        const element = resolve(objects, elements[mcid]);
        const kids = ([] as unknown[]).concat(element["/K"]);
        const here = kids.some((k) => (k === mcid && element["/Pg"] === page) || (typeof k === "object" && k !== null && (k as Json)["/MCID"] === mcid && (k as Json)["/Pg"] === page));
        expect(here, `page ${i + 1} MCID ${mcid}`).toBe(true);
        checked++;
      }
    });
    expect(checked).toBeGreaterThan(500);
  }, 30_000);

  it("claims no PDF/A without the option, and PDF/A-2u with it: one output intent and one XMP packet, equal to the document information", async () => {
    expect(catalogOf(objects).catalog["/OutputIntents"]).toBeUndefined();
    expect(streamText(bytes, catalogOf(objects).catalog["/Metadata"])).not.toContain("pdfaid");
    const archival = await Promise.all(ids.slice(0, 2).map(async (id) => ({ objectInstanceId: id, title: instance(id).title, bytes: (await renderInstancePdf(instance(id), renderOptions(id, { conformance: "PDF/A-2u" }))).bytes })));
    const pdf = await merged(archival, { ...OPTIONS, title: "Acme & <North>", conformance: "PDF/A-2u" });
    expect(qpdfCheck(pdf)).toContain("No syntax or stream encoding errors found");
    const all = qpdfObjects(pdf);
    const { catalog, trailer } = catalogOf(all);
    expect(catalog["/OutputIntents"]).toHaveLength(1);
    expect(catalog["/OutputIntents"][0]).toMatchObject({ "/Type": "/OutputIntent", "/S": "/GTS_PDFA1", "/OutputConditionIdentifier": "u:sRGB IEC61966-2.1" });
    expect(resolve(all, catalog["/OutputIntents"][0]["/DestOutputProfile"])["/N"]).toBe(3);
    // The documents' own intents and packets are not carried over: one profile, one packet in the file.
    const streams = Object.values(all).map((o) => o.stream?.dict).filter(Boolean);
    expect(streams.filter((d) => d["/Type"] === "/Metadata")).toHaveLength(1);
    expect(streams.filter((d) => d["/N"] === 3 && !d["/Type"])).toHaveLength(1);
    expect(all[`obj:${catalog["/Metadata"]}`].stream.dict["/Filter"]).toBeUndefined();
    const xmp = Buffer.from(streamText(pdf, catalog["/Metadata"]), "latin1").toString("utf8");
    expect(xmp).toContain("<pdfaid:part>2</pdfaid:part><pdfaid:conformance>U</pdfaid:conformance>");
    expect(xmp).toContain("<pdfuaid:part>1</pdfuaid:part>");
    const info = resolve(all, trailer["/Info"]);
    expect(String(info["/Title"])).toBe("u:Acme & <North>");
    expect(xmp).toContain(`<rdf:li xml:lang="x-default">Acme &amp; &lt;North&gt;</rdf:li>`);
    expect(xmp).toContain("<xmp:CreateDate>2026-05-04T16:12:05Z</xmp:CreateDate>");
    expect(String(info["/CreationDate"])).toContain("20260504161205");
    expect(trailer["/ID"]).toHaveLength(2);
    expect(Buffer.from(pdf.subarray(0, 15)).toString("latin1")).toMatch(/^%PDF-1\.7\n%[\x80-\xff]{4}/);
  }, 30_000);

  it("streams: a document's bytes are handed on before the next document is asked for, and the bytes depend only on the input", async () => {
    const events: string[] = [];
    async function* source() {
      for (const document of documents) {
        events.push(`read ${document.objectInstanceId}`);
        yield document;
      }
    }
    const chunks: Buffer[] = [];
    for await (const chunk of mergePdfs(source(), OPTIONS)) {
      if (chunk.length > 0) events.push("bytes");
      chunks.push(chunk);
    }
    // The header, then each document's objects as soon as it is read, then the merged file's own.
    expect(events).toEqual(["bytes", ...documents.flatMap((d) => [`read ${d.objectInstanceId}`, "bytes"]), "bytes"]);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  it("as a stream into a slow upload, reads a document only when the ones before have gone", async () => {
    let pulled = 0;
    let written = 0;
    let ahead = 0;
    async function* source() {
      for (let i = 0; i < 30; i++) {
        pulled++;
        ahead = Math.max(ahead, pulled - written);
        yield { ...documents[0], objectInstanceId: `d${i}` };
      }
    }
    const upload = new Writable({ highWaterMark: 1, write: (_chunk, _encoding, done) => void setTimeout(() => (written++, done()), 2) });
    await pipeline(mergedPdfStream(source(), OPTIONS), upload);
    expect(written).toBe(32);
    expect(ahead).toBeLessThanOrEqual(3);
  });

  it("merges 150 documents into flat trees of as many kids, the same bytes each time", async () => {
    const small = documents[0];
    const many = Array.from({ length: 150 }, (_, i) => ({ ...small, objectInstanceId: `d${i}`, title: `Document ${i}` }));
    const pdf = await merged(many);
    expect(qpdfCheck(pdf)).toContain("No syntax or stream encoding errors found");
    expect(Number(pdfInfo(pdf).Pages)).toBe(150 * pageCounts[0]);
    const all = qpdfObjects(pdf);
    expect(outlineOf(all).map((i) => i.title)).toEqual(many.map((d) => d.title));
    expect(resolve(all, resolve(all, catalogOf(all).catalog["/StructTreeRoot"])["/K"])["/K"]).toHaveLength(150);
    const hash = (b: Buffer) => createHash("sha256").update(b).digest("hex");
    expect(hash(await merged(many))).toBe(hash(pdf));
  }, 60_000);

  it("refuses what it cannot merge whole, naming the document: an untagged PDF, bytes that are not the renderer's, no documents", async () => {
    const untagged = (await renderInstancePdf(instance("inspection-short"), renderOptions("plain", { tagged: false }))).bytes;
    await expect(merged([documents[0], { objectInstanceId: "plain", title: "Plain", bytes: untagged }])).rejects.toThrow(/document plain: not tagged/);
    await expect(merged([{ objectInstanceId: "junk", title: "", bytes: Buffer.from("%PDF-1.4\nnot a file of ours") }])).rejects.toThrow(/document junk: no startxref/);
    await expect(merged([])).rejects.toThrow(/no documents/);
  });
});

describe("written.ts and file.ts, the merge's reading and writing", () => {
  it("renumbers references and moves StructParent keys, byte for byte otherwise: strings, names with digits and other numbers untouched", () => {
    const source = Buffer.from("<</A 1 0 R/B (a 2 0 R \\) 3 0 R)/C <0001>/F1 4 0 R/StructParents 5/StructParent 6/N [7 0 R 8 9 10 0 R]/R 595.28/S 11\n0\nR/D <<\n/Parent 12 0 R\n>>>>", "latin1");
    const out = Buffer.alloc(source.length * 3);
    const end = renumberInto(source, 0, source.length, (n) => n + 1000, 50, out, 0);
    expect(out.subarray(0, end).toString("latin1")).toBe("<</A 1001 0 R/B (a 2 0 R \\) 3 0 R)/C <0001>/F1 1004 0 R/StructParents 55/StructParent 56/N [1007 0 R 8 9 1010 0 R]/R 595.28/S 1011\n0\nR/D <<\n/Parent 1012 0 R\n>>>>");
  });

  it("writes offsets past 4 GiB with wider cross-reference entries, which the reader reads back", () => {
    const file = new FileBytes();
    file.write(PDF_HEADER);
    const xref = new CrossReferences();
    xref.set(1, 1, 2 ** 32 + 7, 0);
    xref.write(file, 2, "/Root 1 0 R");
    const bytes = file.take();
    expect(bytes.toString("latin1")).toContain("/W [1 5 2]");
    const pdf = new WrittenPdf(bytes);
    expect(pdf.size).toBe(3);
    expect(() => pdf.locate(1)).toThrow(`no object at ${2 ** 32 + 7}`);
  });
});
