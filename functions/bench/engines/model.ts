// The printed content of an instance in the form the peers (HTML for Chromium, pdfmake's document
// definition) are built from. Values are formatted by our own format.ts (lib/), so every engine prints
// the same text: dates, numbers, Yes/No, "—" for empty, bullet lists for multichoice.

import type { BenchCase, BenchPicture, FormatModule, HanStyle } from "../cases";
import { FORMAT_MODULE } from "../cases";

export type Block =
  | { kind: "row"; label: string; value: string | undefined }
  | { kind: "paragraphs"; label: string; text: string }
  | { kind: "table"; label: string; columns: string[]; rows: string[][]; numeric: boolean[] }
  /** A photo or signature, drawn `width` x `height` points as ours draws it, the caption under it (a signature on a rule). */
  | { kind: "image"; label: string; path: string; picture: BenchPicture; width: number; height: number; caption: string; signature: boolean };

/** Our renderer's picture geometry (style.ts, blocks.ts): 150 ppi at most, into the value column, 190 pt high (a signature 70). */
const VALUE_WIDTH = 595.28 - 100 - 177;
const BOX = { width: 930, height: 530 }; // PICTURE_LIMITS.box
function drawnSize(p: BenchPicture, signature: boolean): { width: number; height: number } {
  const scaled = Math.min(1, BOX.width / p.width, BOX.height / p.height);
  const [w, h] = [((p.width * scaled) * 72) / 150, ((p.height * scaled) * 72) / 150];
  const fit = Math.min(1, VALUE_WIDTH / w, (signature ? 70 : 190) / h);
  return { width: w * fit, height: h * fit };
}

export interface DocModel {
  title: string;
  objectTypeName: string;
  targetName: string;
  /** Footer, left: instance id and generation time. */
  footerLeft: string;
  sections: { title: string; blocks: Block[] }[];
  /** BCP 47 language (as our renderer chose it), right to left or not, and the Han forms: see BenchCase. */
  language: string;
  rtl: boolean;
  han: HanStyle;
}

let format: FormatModule | undefined;

const text = (v: unknown, fallback: string): string => {
  const s = typeof v === "string" ? v : v === null || v === undefined ? "" : String(v);
  return s.trim() === "" ? fallback : s;
};

export function buildModel(c: BenchCase): DocModel {
  format ??= require(FORMAT_MODULE) as FormatModule;
  const f = format;
  const sections = c.instance.sections.map((s, i) => ({
    title: text(s.title, `Section ${i + 1}`),
    blocks: s.fields.map((field): Block => {
      const label = text(field.label, f.EMPTY_MARKER);
      const d = f.displayValue(field.type, field.value);
      switch (d.kind) {
        case "empty":
          return { kind: "row", label, value: undefined };
        case "inline":
          return { kind: "row", label, value: d.text };
        case "paragraphs":
          return { kind: "paragraphs", label, text: d.text };
        case "table":
          return { kind: "table", label, columns: d.columns, rows: d.rows, numeric: d.numeric };
        case "image": {
          const picture = c.pictures?.[d.storagePath];
          if (!picture) throw new Error(`${c.key}: the case has no file for ${d.storagePath}`);
          return { kind: "image", label, path: d.storagePath, picture, ...drawnSize(picture, d.signature), caption: d.caption, signature: d.signature };
        }
      }
    }),
  }));
  return {
    title: text(c.instance.title, "Untitled"),
    objectTypeName: text(c.instance.objectTypeName, f.EMPTY_MARKER),
    targetName: c.targetName,
    footerLeft: `Instance ${c.instanceId} \u00b7 Generated ${f.formatTimestamp(new Date(c.generatedAt))}`,
    sections,
    language: c.language,
    rtl: c.rtl,
    han: c.han,
  };
}

export const EMPTY = "\u2014";
