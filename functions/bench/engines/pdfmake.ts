// pdfmake (server side, pdfkit underneath): an equivalent document definition, Noto Sans TTF embedded
// (subset by pdfkit), tables with a repeated header row (headerRows: 1), rows never split
// (dontBreakRows), a running header from page 2 and a "Page X of Y" footer. Not run on the world-scripts
// cases (types.ts, cannotPrint).

import { dirname } from "node:path";
import { buildModel, EMPTY, type Block, type DocModel } from "./model";
import { NOTO_BOLD, NOTO_REGULAR } from "./fonts";
import type { Engine } from "./types";

const INK = "#1a1a1a";
const LABEL = "#4d4d4d";
const MUTED = "#808080";
const ACCENT = "#1c4073";
const RULE = "#cccccc";
const GRID = "#b8b8b8";
const HEADER_FILL = "#ebedf2";
const CONTENT_WIDTH = 595.28 - 100;

type Node = Record<string, unknown>;

const line = (width: number, color: string, margin: number[]): Node => ({
  canvas: [{ type: "line", x1: 0, y1: 0, x2: CONTENT_WIDTH, y2: 0, lineWidth: width, lineColor: color }],
  margin,
});

const rowsLayout = {
  hLineWidth: (i: number) => (i === 0 ? 0 : 0.5),
  vLineWidth: () => 0,
  hLineColor: () => RULE,
  paddingLeft: (i: number) => (i === 0 ? 0 : 12),
  paddingRight: () => 0,
  paddingTop: () => 3.5,
  paddingBottom: () => 3, // + the 0.5 pt rule: 20 pt a row, as ours
};

const gridLayout = {
  hLineWidth: () => 0.5,
  vLineWidth: () => 0.5,
  hLineColor: () => GRID,
  vLineColor: () => GRID,
  paddingLeft: () => 3.5,
  paddingRight: () => 3.5,
  paddingTop: () => 3,
  paddingBottom: () => 3,
};

const labelCell = (label: string): Node => ({ text: label, bold: true, fontSize: 8.5, color: LABEL });
const valueCell = (value: string | undefined): Node => (value === undefined ? { text: EMPTY, color: MUTED } : { text: value });

function rowsTable(rows: [string, string | undefined][], ruled = true): Node {
  return {
    table: { widths: [165, "*"], dontBreakRows: true, body: rows.map(([l, v]) => [labelCell(l), valueCell(v)]) },
    layout: ruled ? rowsLayout : { ...rowsLayout, hLineWidth: () => 0 },
  };
}

function block(b: Exclude<Block, { kind: "row" }>): Node[] {
  if (b.kind === "image") {
    const value: Node[] = [{ image: `data:${b.picture.contentType};base64,${b.picture.base64}`, width: b.width, height: b.height }];
    if (b.signature) value.push({ canvas: [{ type: "line", x1: 0, y1: 0, x2: Math.max(b.width, 120), y2: 0, lineWidth: 0.6, lineColor: INK }], margin: [0, 2, 0, 0] });
    if (b.caption) value.push({ text: b.caption, color: MUTED });
    return [{ table: { widths: [165, "*"], dontBreakRows: true, body: [[labelCell(b.label), { stack: value }]] }, layout: rowsLayout }];
  }
  const label: Node = { text: b.label, bold: true, fontSize: 8.5, color: LABEL, margin: [0, 3.5, 0, 1.5] };
  if (b.kind === "paragraphs") return [label, { text: b.text, lineHeight: 1.05, margin: [0, 0, 0, 3.5] }, line(0.5, RULE, [0, 0, 0, 0])];
  const head = b.columns.map((c, i) => ({ text: c, bold: true, fillColor: HEADER_FILL, alignment: b.numeric[i] ? "right" : "left" }));
  const body = b.rows.map((r) => r.map((c, i) => (c === "" ? { text: EMPTY, color: MUTED } : { text: c, alignment: b.numeric[i] ? "right" : "left" })));
  return [
    label,
    {
      table: { headerRows: 1, dontBreakRows: true, widths: b.columns.map(() => "auto"), body: [head, ...body] },
      layout: gridLayout,
      fontSize: 8,
      margin: [0, 1.5, 0, 8],
    },
  ];
}

function content(m: DocModel): Node[] {
  const out: Node[] = [
    { text: m.title, fontSize: 17, bold: true, color: ACCENT, margin: [0, 0, 0, 6] },
    rowsTable([["Object type", m.objectTypeName], ["Target", m.targetName]], false),
    line(1.2, ACCENT, [0, 4, 0, 6]),
  ];
  for (const s of m.sections) {
    out.push({ text: s.title, fontSize: 12, bold: true, color: ACCENT, margin: [0, 14, 0, 4] }, line(0.8, ACCENT, [0, 0, 0, 1]));
    if (s.blocks.length === 0) out.push(rowsTable([["No fields", undefined]]));
    let rows: [string, string | undefined][] = [];
    for (const b of s.blocks) {
      if (b.kind === "row") {
        rows.push([b.label, b.value]);
        continue;
      }
      if (rows.length) out.push(rowsTable(rows));
      rows = [];
      out.push(...block(b));
    }
    if (rows.length) out.push(rowsTable(rows));
  }
  return out;
}

export function docDefinition(m: DocModel, instanceId: string, generatedAt: Date): Record<string, unknown> {
  return {
    pageSize: "A4",
    pageMargins: [50, 50, 50, 60],
    info: { title: m.title, subject: `${m.objectTypeName} \u2014 ${m.targetName}`, keywords: instanceId, creationDate: generatedAt },
    defaultStyle: { font: "NotoSans", fontSize: 9.5, color: INK },
    header: (currentPage: number) =>
      currentPage > 1 ? { stack: [{ text: m.title, fontSize: 7.5, color: MUTED }, line(0.5, RULE, [0, 2, 0, 0])], margin: [50, 24, 50, 0] } : null,
    footer: (currentPage: number, pageCount: number) => ({
      margin: [50, 14, 50, 0],
      stack: [
        line(0.5, RULE, [0, 0, 0, 4]),
        { columns: [{ text: m.footerLeft, width: "*" }, { text: `Page ${currentPage} of ${pageCount}`, width: "auto" }], fontSize: 7.5, color: MUTED },
      ],
    }),
    content: content(m),
  };
}

export async function createPdfmake(): Promise<Engine> {
  const pdfmake = require("pdfmake") as typeof import("pdfmake");
  pdfmake.setUrlAccessPolicy(() => false);
  const dirs = [dirname(NOTO_REGULAR), dirname(NOTO_BOLD)];
  pdfmake.setLocalAccessPolicy((path) => dirs.some((d) => path.startsWith(d)));
  pdfmake.addFonts({ NotoSans: { normal: NOTO_REGULAR, bold: NOTO_BOLD, italics: NOTO_REGULAR, bolditalics: NOTO_BOLD } });
  return {
    async render(c) {
      const def = docDefinition(buildModel(c), c.instanceId, new Date(c.generatedAt));
      return { bytes: await pdfmake.createPdf(def).getBuffer() };
    },
    async close() {},
  };
}
