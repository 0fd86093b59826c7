// The names of a job's PDFs in its archive.

import { safeFileName } from "../documents";
import type { JobFile } from "./model";

/** Names in the archive: "{id} {title}.pdf", made unique without regard to case (macOS and Windows unpack A1 and a1 into one file). */
export function archiveNames(files: readonly Pick<JobFile, "objectInstanceId" | "title">[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const file of files) {
    // safeFileName keeps 80 characters: the stem is cut first so that " (n)" survives.
    const stem = safeFileName(`${file.objectInstanceId} ${file.title}`.trim()).slice(0, -4);
    let name = `${stem}.pdf`;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${stem.slice(0, 70)} (${n}).pdf`;
    taken.add(name.toLowerCase());
    names.set(file.objectInstanceId, name);
  }
  return names;
}
