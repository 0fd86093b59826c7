// Reading tagged and archival PDFs back with third-party tools (no PDF/UA or PDF/A validator runs
// here): qpdf (--check, --json for the objects, --qdf for uncompressed content streams) and poppler's
// pdfinfo (-struct-text: the structure tree with its text).

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

function withFile<T>(bytes: Uint8Array, work: (file: string, dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "pdfcheck-"));
  try {
    writeFileSync(join(dir, "in.pdf"), bytes);
    return work(join(dir, "in.pdf"), dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `qpdf --check`: its output, or the error it exits with (warnings exit 3). */
export const qpdfCheck = (bytes: Uint8Array): string => withFile(bytes, (file) => execFileSync("qpdf", ["--check", file], { encoding: "utf8" }));

type Json = Record<string, any>;

/** Every object of the file as qpdf's JSON (v2) gives it: "obj:N 0 R" -> { value } or { stream: { dict } }, plus the trailer. */
export function qpdfObjects(bytes: Uint8Array): Record<string, Json> {
  const json = withFile(bytes, (file) => JSON.parse(execFileSync("qpdf", ["--json=2", "--json-key=qpdf", file], { encoding: "utf8", maxBuffer: 1 << 28 })) as Json);
  return json.qpdf[1] as Record<string, Json>;
}

/** An object's value (a dictionary's or a stream's dictionary), by reference ("12 0 R"). */
export function resolve(objects: Record<string, Json>, ref: unknown): Json {
  const entry = objects[`obj:${String(ref)}`];
  if (!entry) throw new Error(`no object ${String(ref)}`);
  return entry.value ?? entry.stream?.dict;
}

/** The document catalog and the trailer. */
export function catalogOf(objects: Record<string, Json>): { catalog: Json; trailer: Json } {
  const trailer = objects.trailer.value as Json;
  return { catalog: resolve(objects, trailer["/Root"]), trailer };
}

/** The stream data of an object, decoded (qpdf --show-object --filtered-stream-data). */
export const streamText = (bytes: Uint8Array, ref: string): string =>
  withFile(bytes, (file) => execFileSync("qpdf", [`--show-object=${ref.replace(/ 0 R$/, "")}`, "--filtered-stream-data", file], { encoding: "latin1", maxBuffer: 1 << 28 }));

/** Every page's content stream, decoded, in page order. */
export function pageContents(bytes: Uint8Array): string[] {
  return withFile(bytes, (file, dir) => {
    const out = join(dir, "qdf.pdf");
    execFileSync("qpdf", ["--qdf", "--object-streams=disable", file, out]);
    // In QDF form each page's content stream follows a "%% Contents for page N" comment (in the file's order of objects, not always the pages').
    const text = readFileSync(out, "latin1");
    const pages: string[] = [];
    for (const m of text.matchAll(/%% Contents for page (\d+)\n(?:%%[^\n]*\n)*\d+ 0 obj\n<<[^]*?>>\nstream\n([^]*?)\nendstream/g)) pages[Number(m[1]) - 1] = m[2];
    return pages;
  });
}

/**
 * Content drawn outside marked content: operators that paint or clip (text, images, paths) neither inside
 * a sequence with an MCID (content of a structure element) nor inside an artifact. PDF/UA-1 (7.1):
 * everything is one or the other. Returns the offending operators (empty: none).
 */
export function unmarkedContent(content: string): string[] {
  const stack: ("content" | "artifact" | "other")[] = [];
  const offending: string[] = [];
  // Strings and arrays hold no operators: drop them, then read operators token by token.
  const tokens = content
    .replace(/\((?:\\.|[^\\)])*\)/g, " ")
    .replace(/<[0-9A-Fa-f\s]*>/g, " ")
    .replace(/<<[^]*?>>/g, (dict) => (/\/MCID\s+\d+/.test(dict) ? " MCID " : " DICT "))
    .split(/[\s[\]]+/)
    .filter(Boolean);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token === "BDC") stack.push(tokens[i - 1] === "MCID" ? "content" : tokens[i - 2] === "/Artifact" ? "artifact" : "other");
    else if (token === "BMC") stack.push(tokens[i - 1] === "/Artifact" ? "artifact" : "other");
    else if (token === "EMC") stack.pop();
    else if (["TJ", "Tj", "'", '"', "Do", "S", "s", "f", "f*", "F", "B", "B*", "b", "b*", "n", "sh"].includes(token)) {
      if (!stack.includes("content") && !stack.includes("artifact")) offending.push(token);
    }
  }
  return offending;
}

/** poppler's structure tree with text (pdfinfo -struct-text). */
export const structText = (bytes: Uint8Array): string => withFile(bytes, (file) => execFileSync("pdfinfo", ["-struct-text", file], { encoding: "utf8", maxBuffer: 1 << 28 }));

/** `pdfinfo`'s fields (Tagged, Pages, Page size, ...). */
export function pdfInfo(bytes: Uint8Array): Record<string, string> {
  const out = withFile(bytes, (file) => execFileSync("pdfinfo", [file], { encoding: "utf8" }));
  return Object.fromEntries(out.split("\n").filter((l) => l.includes(":")).map((l) => [l.slice(0, l.indexOf(":")).trim(), l.slice(l.indexOf(":") + 1).trim()]));
}
