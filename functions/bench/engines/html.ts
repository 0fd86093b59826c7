// The HTML a project would send to headless Chromium for the same content: a header block, section
// headings, label/value rows, paragraphs, tables whose header row repeats on every page (thead), and
// a footer with the instance id, the generation time and "Page X of Y" (Chromium's footer template).
// Same page geometry and type sizes as our renderer: A4, 50 pt side margins, Noto 8-17 pt.
// Fonts: every Noto family of our renderer, Noto Sans first (fonts.ts, fontList); the document's
// language in `lang` and, for a right-to-left document, dir="rtl" (alignment by start/end, so the
// same CSS mirrors).

import { fontList, type ListedFont } from "./fonts";
import type { Block, DocModel } from "./model";
import { EMPTY } from "./model";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

const hex = (n: number): string => n.toString(16).toUpperCase();

/** The code points a listed family may print, as a CSS unicode-range: all but its exceptions. */
function unicodeRange(except: ListedFont["except"] = []): string {
  const out: string[] = [];
  let from = 0;
  for (const [a, b] of [...except].sort((x, y) => x[0] - y[0])) {
    if (a > from) out.push(`U+${hex(from)}-${hex(a - 1)}`);
    from = b + 1;
  }
  out.push(`U+${hex(from)}-10FFFF`);
  return out.join(", ");
}

/** A family with exceptions is used through an alias: the same local font with a unicode-range. */
const alias = (f: ListedFont): string => (f.except ? `${f.name} (bench)` : f.name);

/** The @font-face rules of those aliases (regular and bold, by full or PostScript name). */
const fontFaces = (m: DocModel): string =>
  fontList(m.han)
    .filter((f) => f.except)
    .flatMap((f) =>
      (["Regular", "Bold"] as const).map(
        (w) =>
          `@font-face { font-family: "${alias(f)}"; font-weight: ${w === "Bold" ? 700 : 400}; ` +
          `src: local("${f.name} ${w}"), local("${f.name.replace(/ /g, "")}-${w}"); unicode-range: ${unicodeRange(f.except)}; }`,
      ),
    )
    .join("\n");

/** The CSS font-family list: the Noto families in our renderer's order for the document's Han forms. */
const fontFamily = (m: DocModel): string => [...fontList(m.han).map((f) => `"${alias(f)}"`), "sans-serif"].join(", ");

const css = (m: DocModel): string => `
${fontFaces(m)}
@page { size: A4; }
* { box-sizing: border-box; }
html, body { margin: 0; padding: 0; }
body { font-family: ${fontFamily(m)}; font-size: 9.5pt; line-height: 13pt; color: #1a1a1a; }
h1 { font-size: 17pt; line-height: 21pt; color: #1c4073; margin: 0 0 6pt; }
.meta { border-bottom: 1.2pt solid #1c4073; padding-bottom: 4pt; margin-bottom: 6pt; }
h2 { font-size: 12pt; line-height: 16pt; color: #1c4073; margin: 14pt 0 1pt; padding-bottom: 4pt;
     border-bottom: 0.8pt solid #1c4073; break-after: avoid; }
table.rows { width: 100%; border-collapse: collapse; }
table.rows tr { break-inside: avoid; }
table.rows th { width: 165pt; padding: 3.5pt 0; padding-inline-end: 12pt; text-align: start; vertical-align: top;
     font-size: 8.5pt; color: #4d4d4d; }
table.rows td { padding: 3.5pt 0; white-space: pre-line; vertical-align: top; }
table.rows tr.ruled th, table.rows tr.ruled td { border-bottom: 0.5pt solid #ccc; padding-bottom: 3pt; }
.empty { color: #808080; }
.label { font-weight: bold; font-size: 8.5pt; color: #4d4d4d; padding-top: 3.5pt; break-after: avoid; }
.para { white-space: pre-wrap; line-height: 13.5pt; padding: 1.5pt 0 3.5pt; border-bottom: 0.5pt solid #ccc; }
table.grid { width: 100%; border-collapse: collapse; font-size: 8pt; line-height: 10.5pt; margin: 3pt 0 8pt; }
table.grid thead { display: table-header-group; }
table.grid tr { break-inside: avoid; }
table.grid th, table.grid td { border: 0.5pt solid #b8b8b8; padding: 3pt 3.5pt; vertical-align: top; white-space: pre-line; }
table.grid th { background: #ebedf2; text-align: start; }
table.grid .num { text-align: end; }
`;

const row = (label: string, value: string | undefined): string =>
  `<tr class="ruled"><th>${esc(label)}</th>${value === undefined ? `<td class="empty">${EMPTY}</td>` : `<td>${esc(value)}</td>`}</tr>`;

/** A picture inline, as a server hands Chromium the files it downloaded: a data URL. */
const dataUrl = (b: Extract<Block, { kind: "image" }>): string => `data:${b.picture.contentType};base64,${b.picture.base64}`;

function block(b: Exclude<Block, { kind: "row" }>): string {
  switch (b.kind) {
    case "image": {
      const rule = b.signature ? `<div style="border-top: 0.6pt solid #1a1a1a; width: ${Math.max(b.width, 120)}pt; margin-top: 2pt;"></div>` : "";
      const caption = b.caption ? `<div class="empty">${esc(b.caption)}</div>` : "";
      return `<table class="rows"><tr class="ruled"><th>${esc(b.label)}</th><td><img src="${dataUrl(b)}" style="display: block; width: ${b.width}pt; height: ${b.height}pt;">${rule}${caption}</td></tr></table>`;
    }
    case "paragraphs":
      return `<div class="label">${esc(b.label)}</div><div class="para">${esc(b.text)}</div>`;
    case "table": {
      const head = b.columns.map((c, i) => `<th${b.numeric[i] ? ' class="num"' : ""}>${esc(c)}</th>`).join("");
      const rows = b.rows
        .map((r) => `<tr>${r.map((c, i) => (c === "" ? `<td class="empty">${EMPTY}</td>` : `<td${b.numeric[i] ? ' class="num"' : ""}>${esc(c)}</td>`)).join("")}</tr>`)
        .join("");
      return `<div class="label">${esc(b.label)}</div><table class="grid"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`;
    }
  }
}

/** A section's blocks; consecutive label/value rows share one table. */
function blocks(list: Block[]): string {
  if (list.length === 0) return `<table class="rows">${row("No fields", undefined)}</table>`;
  let out = "";
  let rows = "";
  for (const b of list) {
    if (b.kind === "row") {
      rows += row(b.label, b.value);
      continue;
    }
    if (rows) out += `<table class="rows">${rows}</table>`;
    rows = "";
    out += block(b);
  }
  if (rows) out += `<table class="rows">${rows}</table>`;
  return out;
}

/** The document's language and, when right to left, its direction (attributes of <html> and of the templates). */
const langDir = (m: DocModel): string => `lang="${esc(m.language)}"${m.rtl ? ' dir="rtl"' : ""}`;

export function buildHtml(m: DocModel): string {
  const sections = m.sections.map((s) => `<h2>${esc(s.title)}</h2>${blocks(s.blocks)}`).join("");
  return (
    `<!doctype html><html ${langDir(m)}><head><meta charset="utf-8"><title>${esc(m.title)}</title><style>${css(m)}</style></head><body>` +
    `<h1>${esc(m.title)}</h1><div class="meta"><table class="rows"><tr><th>Object type</th><td>${esc(m.objectTypeName)}</td></tr>` +
    `<tr><th>Target</th><td>${esc(m.targetName)}</td></tr></table></div>${sections}</body></html>`
  );
}

const small = (m: DocModel): string => `font-family: ${fontFamily(m).replace(/"/g, "'")}; font-size: 7.5pt; color: #808080; margin: 0 50pt; width: 100%;`;

/** Running header (every page: Chromium's templates cannot skip the first) and footer. */
export function headerTemplate(m: DocModel): string {
  return `<style>${fontFaces(m)}</style><div ${langDir(m)} style="${small(m)} border-bottom: 0.5pt solid #ccc; padding-bottom: 2pt;">${esc(m.title)}</div>`;
}

export function footerTemplate(m: DocModel): string {
  return `<style>${fontFaces(m)}</style><div ${langDir(m)} style="${small(m)} display: flex; justify-content: space-between; border-top: 0.5pt solid #ccc; padding-top: 3pt;"><span>${esc(m.footerLeft)}</span><span>Page <span class="pageNumber"></span> of <span class="totalPages"></span></span></div>`;
}
