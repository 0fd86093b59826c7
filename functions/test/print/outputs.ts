// The documents the renderer's output is pinned on (outputs.unit.test.ts): every benchmark case and
// every demo instance, under the settings a print can take, and a few documents that reach the
// layout's corners. A change of the renderer that should not change what it prints (a new structure
// of its code, a faster writer) must leave every one of these PDFs byte for byte as it was.

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { File } from "@google-cloud/storage";
import { buildCases, bytesOf, renderOptions, type RendererModule } from "../../bench/cases";
import { preparePictures } from "../../src/print/pictures";
import * as renderer from "../../src/print/render";
import type { PreparedImage, PrintableInstance, RenderOptions } from "../../src/print/render";
import * as scripts from "../../src/print/render/text/scripts";

export interface OutputCase {
  name: string;
  instance: PrintableInstance;
  options: RenderOptions;
}

const AT = new Date("2026-05-04T16:12:05Z");

/** A 60 x 20 logo of pixels with a transparent edge (the logo's pixels-and-alpha path). */
function logo(): PreparedImage {
  const width = 60;
  const height = 20;
  const pixels = new Uint8Array(width * height * 3);
  const alpha = new Uint8Array(width * height);
  for (let i = 0; i < width * height; i++) {
    pixels[3 * i] = (i * 7) & 255;
    pixels[3 * i + 1] = 40;
    pixels[3 * i + 2] = 200 - (i % width);
    alpha[i] = i % width < 4 ? 0 : 255;
  }
  return { format: "pixels", pixels, alpha, width, height, channels: 3 };
}

/** The settings every demo instance is printed under: the defaults, untagged, archival, other paper, locale and colours, a logo. */
const VARIANTS: [string, Partial<RenderOptions>][] = [
  ["default", {}],
  ["untagged", { tagged: false }],
  ["pdfa", { conformance: "PDF/A-2u" }],
  ["letter-de", { paperSize: "Letter", locale: "de-DE", timeZone: "Europe/Berlin", accentColor: "#8a1c1c", footerText: "Vertraulich\nnur intern" }],
  ["legal-ar-logo", { paperSize: "Legal", locale: "ar", logo: logo() }],
];

/** An instance of every wrong shape data written by other systems could have (the renderer prints it all as text). */
export function malformedInstance(): PrintableInstance {
  const cyclic: Record<string, unknown> = { name: "loop" };
  cyclic.self = cyclic;
  return {
    title: 42,
    objectTypeName: null,
    sections: [
      {
        title: "",
        fields: [
          { label: "Number as text", type: "number", value: "12 kg" },
          { label: "Boolean as text", type: "boolean", value: "yes" },
          { label: "Impossible date", type: "date", value: "2026-02-30" },
          { label: "Timestamp", type: "datetime", value: { seconds: 1777900000, nanoseconds: 0 } },
          { label: "Object", type: "text", value: { a: 1, b: [true, null], c: cyclic } },
          { label: "Big", type: "number", value: 12345678901234567890n },
          { label: "Table as string", type: "table", value: "not a table" },
          { label: "Table of arrays", type: "table", value: [["a", 1], ["b"]] },
          { label: "Choices", type: "multichoice", value: ["one", 2, { three: 3 }] },
          { label: "Unknown type", type: "signature", value: "S. Igned" },
          { label: ["weird", "label"], type: "text", value: "ok" },
          { label: "Controls and emoji", type: "text", value: "tab\there\u0007bell 😀 \ud800 end" },
          null,
          "just a string",
        ],
      },
      { title: "Not an array", fields: "nope" },
      null,
    ],
  } as unknown as PrintableInstance;
}

/** One value taller than a page three ways: text of `words` words w0, w1, ..., a table cell of them, an unbreakable word of `letters` x's. */
export function hugeInstance(words: number, letters: number): PrintableInstance {
  const long = Array.from({ length: words }, (_, i) => `w${i}`).join(" ");
  return {
    title: "Huge",
    objectTypeName: "T",
    sections: [
      {
        title: "S",
        fields: [
          { label: "Huge text", type: "text", value: long },
          { label: "Huge table", type: "table", value: { columns: ["a", "b"], rows: [{ cells: ["x", long] }] } },
          { label: "One unbreakable word", type: "url", value: "x".repeat(letters) },
        ],
      },
    ],
  };
}

/** Documents that reach the layout's corners: malformed values, hostile text, tables too wide, a heading kept with its field, a value taller than a page. */
function corners(): [string, PrintableInstance][] {
  const hostile: PrintableInstance = {
    title: "Hostile \u202etext\u202c",
    objectTypeName: "T",
    sections: [
      {
        title: "Text",
        fields: [
          { label: "Controls", type: "text", value: "tab\there\u0007bell 😀 \ud800 end a\u200eb\u200fc\u202ad\u202ce\u2066f\u2069g" },
          { label: "Zalgo", type: "text", value: `Z${"\u0301\u0316\u0317".repeat(25)}algo${"\u0300".repeat(40)}` },
          { label: "Soft hyphens", type: "longtext", value: "Donau\u00addampf\u00adschiff\u00adfahrts\u00adgesell\u00adschaft\u00adskapitän ".repeat(12) },
          { label: "Emoji", type: "text", value: "👨‍👩‍👧👨‍👩‍👧👍🏽🇯🇵 ‍".repeat(5) + "👨‍👩‍👧".repeat(20) },
          { label: "Mixed", type: "longtext", value: "Price α = 12°, 500 MΩ; Москва 東京 שלום مرحبا 123 क्षत्रिय ที่ ខ្មែរ\n\n\nlast" },
        ],
      },
    ],
  };
  const grid = (columns: number, cell: string, header = (i: number) => `C${i}`): PrintableInstance => ({
    title: `Grid of ${columns}`,
    objectTypeName: "T",
    sections: [{ title: "S", fields: [{ label: "Grid", type: "table", value: { columns: Array.from({ length: columns }, (_, i) => header(i)), rows: [{ cells: Array.from({ length: columns }, () => cell) }, { cells: [] }] } }] }],
  });
  const tall = Array.from({ length: 14 }, (_, i) => `line ${i}`).join("\n");
  const keptHeadings = [18, 22, 26].map((rows): [string, PrintableInstance] => [
    `kept-heading-${rows}`,
    {
      title: "Orphans",
      objectTypeName: "T",
      sections: [
        { title: "First", fields: Array.from({ length: rows }, (_, i) => ({ label: `Row ${i}`, type: "text", value: `value ${i}` })) },
        { title: "Second heading", fields: [{ label: "Tall", type: "text", value: tall }] },
      ],
    },
  ]);
  return [
    ["malformed", malformedInstance()],
    ["hostile", hostile],
    ["grid-12", grid(12, "x".repeat(40))],
    ["grid-60", grid(60, "Wide")],
    ["grid-cut-headers", grid(9, "1.5", (i) => `A header long enough to be cut with an ellipsis number ${i}`)],
    ...keptHeadings,
    ["huge", hugeInstance(3000, 12000)],
    ["no-sections", { title: "", objectTypeName: "", sections: [] }],
  ];
}

/** Every document and its settings, named for the hashes' file. */
export async function outputCases(): Promise<OutputCase[]> {
  const out: OutputCase[] = [];
  const cases = await buildCases(renderer as RendererModule, scripts);
  for (const c of cases) {
    const images = c.pictures
      ? await preparePictures(
          Object.entries(c.pictures).map(([path, picture]) => {
            const bytes = bytesOf(picture);
            return { path, generation: "1", size: bytes.length, file: { download: async () => [bytes] } as unknown as File };
          }),
          (operation) => operation(),
        )
      : undefined;
    out.push({ name: `bench/${c.key}`, instance: c.instance, options: { ...renderOptions(c), images } });
    out.push({ name: `bench/${c.key}/untagged`, instance: c.instance, options: { ...renderOptions(c), images, tagged: false } });
  }
  const demo = JSON.parse(readFileSync(resolve(__dirname, "../../../emulator-data/demo.json"), "utf8")) as { documents: Record<string, Record<string, unknown>> };
  for (const [path, document] of Object.entries(demo.documents)) {
    if (!path.includes("/objectInstances/")) continue;
    const { updatedAt: _ignored, ...instance } = document;
    const id = path.split("/").at(-1)!;
    for (const [variant, options] of VARIANTS) {
      out.push({ name: `demo/${id}/${variant}`, instance: instance as unknown as PrintableInstance, options: { instanceId: id, targetName: "Acme North", generatedAt: AT, ...options } });
    }
  }
  for (const [name, instance] of corners()) out.push({ name: `corner/${name}`, instance, options: { instanceId: name, targetName: "Corners", generatedAt: AT } });
  return out;
}
