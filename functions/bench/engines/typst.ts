// Typst (typst-ts-node-compiler: the Typst compiler in Rust, as a Node-API addon, prebuilt per
// platform): the same content as Typst markup, compiled to PDF in process. The markup mirrors the HTML
// (html.ts): A4, 50 pt side margins, Noto 8-17 pt, label/value rows, section headings kept with what
// follows, paragraphs, tables whose header row repeats on every page (table.header), a running header
// from page 2 and a footer with the instance id, the generation time and "Page X of Y".
// Fonts: exactly our renderer's Noto files (FONT_FILES), given to the compiler as font paths, and
// `fallback: false`, so no other font prints anything (the addon also loads its embedded fonts and the
// system's: its API cannot turn those off). A right-to-left document gets `dir: rtl` and its language.
// Memoization: Typst caches the results of its functions (parsing, evaluation, layout, shaping) across
// compilations, so the same document compiled twice is mostly answered from that cache (0.7 ms instead
// of 8 for the one-page case). Each render here compiles new content (a render number in the
// document's keywords: that alone still leaves every unchanged paragraph's layout to the cache) and,
// before it, the worker has the whole cache evicted (forget(), outside the timing), so every render
// does the work of a new document. Fonts stay loaded (they are not part of that cache), as in a server.
// `warm` (the engine typst-warm) evicts nothing: what a Typst server answers a stream of documents
// with, each new but most of its content met before.
// Tagged PDF off (`pdfTags: false`), like ours and the "chromium" engine.

import type { NodeCompiler } from "@myriaddreamin/typst-ts-node-compiler";
import { join } from "node:path";
import { bytesOf } from "../cases";
import { fontList, notoFiles, type ListedFont } from "./fonts";
import { buildModel, EMPTY, type Block, type DocModel } from "./model";
import type { Engine } from "./types";

export const TYPST_PACKAGE = "@myriaddreamin/typst-ts-node-compiler";

/** A Typst string literal. */
export const str = (s: string): string =>
  `"${s.replace(/[\\"\n\r\t]/g, (c) => (c === "\n" ? "\\n" : c === "\r" ? "\\r" : c === "\t" ? "\\t" : `\\${c}`))}"`;
const strs = (xs: readonly string[]): string => `(${xs.map(str).join(", ")}${xs.length === 1 ? "," : ""})`;

/**
 * Helpers every document starts with: R (label/value rows), S (section heading), P (paragraphs), T
 * (table). `end`: the physical side where a line ends (insets have no start/end), right or left.
 */
const preamble = (end: "left" | "right"): string => `
#let ink = rgb("#1a1a1a")
#let label-ink = rgb("#4d4d4d")
#let muted = rgb("#808080")
#let accent = rgb("#1c4073")
#let rule = rgb("#cccccc")
#let grid-ink = rgb("#b8b8b8")
#let header-fill = rgb("#ebedf2")
#let E = text(fill: muted, ${str(EMPTY)})
#let L(s) = text(size: 8.5pt, weight: "bold", fill: label-ink, s)
#let R(ruled: true, ..pairs) = grid(
  columns: (165pt, 1fr),
  inset: (x, _) => if x == 0 { (top: 3.5pt, bottom: 3pt, ${end}: 12pt) } else { (top: 3.5pt, bottom: 3pt) },
  stroke: if ruled { (bottom: 0.5pt + rule) } else { none },
  ..pairs.pos().map(((l, v)) => (L(l), if v == none { E } else { v })).flatten(),
)
#let S(title) = block(above: 14pt, below: 1pt, width: 100%, inset: (bottom: 4pt), stroke: (bottom: 0.8pt + accent), sticky: true,
  text(size: 12pt, weight: "bold", fill: accent, title))
#let P(label, body) = {
  block(above: 3.5pt, below: 1.5pt, sticky: true, L(label))
  block(width: 100%, inset: (bottom: 3.5pt), stroke: (bottom: 0.5pt + rule), par(leading: 0.5pt, body))
}
#let T(label, align, header, ..cells) = {
  block(above: 3.5pt, below: 3pt, sticky: true, L(label))
  block(below: 8pt, {
    set text(size: 8pt)
    table(
      columns: header.len(),
      align: align,
      stroke: 0.5pt + grid-ink,
      inset: (x: 3.5pt, y: 3pt),
      fill: (_, y) => if y == 0 { header-fill },
      table.header(..header.map(h => text(weight: "bold", h))),
      ..cells.pos().map(c => if c == none { E } else { c }),
    )
  })
}
`;

/** A family of the font list; one with exceptions covers every character but those (a regex of one character). */
function typstFont(f: ListedFont): string {
  if (!f.except) return str(f.name);
  const ranges = f.except.map(([a, b]) => `\\x{${a.toString(16)}}-\\x{${b.toString(16)}}`).join("");
  return `(name: ${str(f.name)}, covers: regex(${str(`[^${ranges}]`)}))`;
}

/** A Typst datetime of a UTC instant (Typst datetimes carry no zone; the footer text says UTC). */
function datetime(d: Date): string {
  return `datetime(year: ${d.getUTCFullYear()}, month: ${d.getUTCMonth() + 1}, day: ${d.getUTCDate()}, hour: ${d.getUTCHours()}, minute: ${d.getUTCMinutes()}, second: ${d.getUTCSeconds()})`;
}

function rows(list: [string, string | undefined][], ruled = true): string {
  const pairs = list.map(([l, v]) => `(${str(l)}, ${v === undefined ? "none" : str(v)})`).join(", ");
  return `#R(${ruled ? "" : "ruled: false, "}${pairs})\n`;
}

/** Where a picture is in the compiler's virtual files (mapShadow, under its root: the working directory), one path per storage path. */
export const picturePath = (storagePath: string): string => `/pictures/${Buffer.from(storagePath).toString("hex")}`;

function block(b: Exclude<Block, { kind: "row" }>): string {
  if (b.kind === "paragraphs") return `#P(${str(b.label)}, ${str(b.text)})\n`;
  if (b.kind === "image") {
    const parts = [`image(${str(picturePath(b.path))}, width: ${b.width}pt, height: ${b.height}pt)`];
    if (b.signature) parts.push(`line(length: ${Math.max(b.width, 120)}pt, stroke: 0.6pt + ink)`);
    if (b.caption) parts.push(`text(fill: muted, ${str(b.caption)})`);
    return `#R((${str(b.label)}, stack(spacing: 3pt, ${parts.join(", ")})))\n`;
  }
  const align = `(${b.numeric.map((x) => (x ? "end" : "start")).join(", ")}${b.numeric.length === 1 ? "," : ""})`;
  const cells = b.rows.map((r) => r.map((c) => (c === "" ? "none" : str(c))).join(", ")).join(",\n  ");
  return `#T(${str(b.label)}, ${align}, ${strs(b.columns)},\n  ${cells})\n`;
}

/** The document as Typst markup. `keywords` go to the PDF's metadata (the render number makes each source new). */
export function buildTypst(m: DocModel, keywords: string[], generatedAt: Date): string {
  const locale = new Intl.Locale(m.language);
  const out: string[] = [preamble(m.rtl ? "left" : "right")];
  out.push(`#set document(title: ${str(m.title)}, keywords: ${strs(keywords)}, date: ${datetime(generatedAt)})\n`);
  out.push(
    `#set text(font: (${fontList(m.han).map(typstFont).join(", ")}), fallback: false, size: 9.5pt, fill: ink, lang: ${str(locale.language)}` +
      `${locale.region ? `, region: ${str(locale.region)}` : ""}, dir: ${m.rtl ? "rtl" : "ltr"}, top-edge: 0.95em, bottom-edge: -0.42em)\n`,
  );
  out.push("#set par(leading: 0pt, spacing: 0pt)\n#set block(spacing: 0pt)\n");
  out.push(
    "#set page(paper: \"a4\", margin: (x: 50pt, top: 50pt, bottom: 60pt),\n" +
      `  header: context if here().page() > 1 { set text(size: 7.5pt, fill: muted); block(width: 100%, inset: (bottom: 2pt), stroke: (bottom: 0.5pt + rule), ${str(m.title)}) },\n` +
      `  footer: context { set text(size: 7.5pt, fill: muted); block(width: 100%, inset: (top: 3pt), stroke: (top: 0.5pt + rule), ` +
      `grid(columns: (1fr, auto), column-gutter: 16pt, ${str(m.footerLeft)}, [Page #counter(page).display() of #counter(page).final().first()])) })\n`,
  );
  out.push(`#block(below: 6pt, text(size: 17pt, weight: "bold", fill: accent, ${str(m.title)}))\n`);
  out.push(rows([["Object type", m.objectTypeName], ["Target", m.targetName]], false));
  out.push("#block(above: 4pt, below: 6pt, line(length: 100%, stroke: 1.2pt + accent))\n");
  for (const s of m.sections) {
    out.push(`#S(${str(s.title)})\n`);
    if (s.blocks.length === 0) out.push(rows([["No fields", undefined]]));
    let pending: [string, string | undefined][] = [];
    for (const b of s.blocks) {
      if (b.kind === "row") {
        pending.push([b.label, b.value]);
        continue;
      }
      if (pending.length) out.push(rows(pending));
      pending = [];
      out.push(block(b));
    }
    if (pending.length) out.push(rows(pending));
  }
  return out.join("");
}

/** Errors and warnings of a compilation as text (a warning such as an unknown font family fails the bench). */
function diagnostics(x: { shortDiagnostics: any[] } | null): string {
  return (x?.shortDiagnostics ?? []).map((d: { message?: string }) => d.message ?? JSON.stringify(d)).join("; ");
}

export function loadTypst(): typeof import("@myriaddreamin/typst-ts-node-compiler") {
  return require(TYPST_PACKAGE) as typeof import("@myriaddreamin/typst-ts-node-compiler");
}

/** A compiler that sees our renderer's Noto files (and, unavoidably, the addon's embedded fonts and the system's). */
export function typstCompiler(): NodeCompiler {
  return loadTypst().NodeCompiler.create({ fontArgs: [{ fontPaths: notoFiles() }] });
}

/** Compiles one source to PDF bytes; throws on any error or warning. */
export function compilePdf(compiler: NodeCompiler, source: string, tagged = false): { bytes: Uint8Array; pageCount: number } {
  const result = compiler.compile({ mainFileContent: source });
  const doc = result.result;
  const error = result.takeError();
  if (!doc || error) throw new Error(`typst: ${diagnostics(error) || "compilation failed"}`);
  const warnings = diagnostics(result.takeWarnings());
  if (warnings) throw new Error(`typst warned: ${warnings}`);
  const pdf = compiler.pdf(doc, { pdfTags: tagged });
  return { bytes: new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength), pageCount: doc.numOfPages };
}

/** The Typst version the addon compiles with (a one-line document that holds sys.version). */
export function typstVersion(compiler: NodeCompiler = loadTypst().NodeCompiler.create({})): string {
  const r = compiler.compile({ mainFileContent: "#metadata(str(sys.version)) <v>" });
  if (!r.result) throw new Error(`typst: ${diagnostics(r.takeError()) || "compilation failed"}`);
  const found = compiler.query(r.result, { selector: "<v>", field: "value" }) as unknown;
  return Array.isArray(found) ? String(found[0]) : String(found);
}

export async function createTypst({ tagged, warm = false }: { tagged: boolean; warm?: boolean }): Promise<Engine> {
  const compiler = typstCompiler();
  const mapped = new Set<string>();
  let renders = 0;
  return {
    async render(c) {
      // The case's files, as a server would hand the compiler what it downloaded (once: mapping them anew is not rendering).
      for (const [path, picture] of Object.entries(c.pictures ?? {})) {
        if (mapped.has(path)) continue;
        compiler.mapShadow(join(process.cwd(), picturePath(path)), bytesOf(picture));
        mapped.add(path);
      }
      const source = buildTypst(buildModel(c), [c.instanceId, `render ${++renders}`], new Date(c.generatedAt));
      return compilePdf(compiler, source, tagged);
    },
    forget: warm ? undefined : () => compiler.evictCache(0),
    async close() {},
  };
}
