// The names of a job's PDFs in its archive.

import type { JobFile } from "./model";

/** Characters a name keeps: letters (with their marks) and digits of every script, spaces, dots, hyphens, underscores. */
const NOT_KEPT = /[^\p{L}\p{M}\p{N} ._-]+/gu;
/** Made on first use: a segmenter's first construction loads ICU's data (about 9 ms), which an instance's start need not pay. */
let graphemes: Intl.Segmenter | undefined;

/** The first `max` characters of `text` as a reader counts them (a letter with its marks is one, never cut apart). */
function firstCharacters(text: string, max: number): string {
  let out = "";
  let count = 0;
  graphemes ??= new Intl.Segmenter("en", { granularity: "grapheme" });
  for (const { segment } of graphemes.segment(text)) {
    if (++count > max) break;
    out += segment;
  }
  return out;
}

/**
 * A name in the archive: the title's letters in its own script, as ZIP records names in UTF-8 (yazl
 * sets the flag that says so; unzip, macOS and Windows read it); a slash, a control or bidi character
 * and any symbol a file system may refuse become "_"; at most 80 characters.
 */
function archiveStem(name: string): string {
  const kept = name.normalize("NFC").replace(NOT_KEPT, "_").replace(/_+/g, "_").replace(/^[ ._]+|[ ._]+$/g, "");
  return firstCharacters(kept, 80).replace(/[ ._]+$/, "") || "document";
}

/** Names in the archive: "{id} {title}.pdf", made unique without regard to case (macOS and Windows unpack A1 and a1 into one file). */
export function archiveNames(files: readonly Pick<JobFile, "objectInstanceId" | "title">[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const file of files) {
    // The stem is cut first so that " (n)" survives.
    const stem = archiveStem(`${file.objectInstanceId} ${file.title}`.trim());
    let name = `${stem}.pdf`;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${firstCharacters(stem, 70)} (${n}).pdf`;
    taken.add(name.toLowerCase());
    names.set(file.objectInstanceId, name);
  }
  return names;
}
