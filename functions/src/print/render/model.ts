// The document model: what an instance prints, as blocks of text, before anything is measured. Every
// value is already text (format.ts: the locale's numbers, dates and words), every string that is
// missing or of a wrong shape already its fallback, and a picture either prepared or the row that
// says it is unavailable. The layout (layout.ts, blocks.ts, table.ts) places these blocks on pages.

import { displayValue, EMPTY_MARKER, genericText, type DisplayValue, type Formatter } from "./format";
import type { PreparedImage } from "./types";

/** A field as the document shows it. */
export type Block =
  /** A label and its value beside it (undefined: empty, printed as the empty marker). */
  | { kind: "row"; label: string; value: string | undefined }
  /** A label above wrapped paragraphs across the page; line breaks are the author's. */
  | { kind: "paragraphs"; label: string; text: string }
  /** A label above a grid whose header row repeats on every page it continues on. */
  | { kind: "table"; label: string; columns: string[]; rows: string[][]; numeric: boolean[] }
  /** A picture in the value column beside its label, a signature standing on a rule, the caption under it. */
  | { kind: "picture"; label: string; image: PreparedImage; caption: string; signature: boolean };

export interface Section {
  title: string;
  /** Its fields (a section without any shows the locale's "no fields" row). */
  blocks: Block[];
}

export interface DocumentModel {
  title: string;
  objectTypeName: string;
  /** The target's display name (the head of the first page). */
  targetName: string;
  sections: Section[];
}

export function displayText(value: unknown, fallback: string, fmt: Formatter): string {
  const text = typeof value === "string" ? value : genericText(value, fmt);
  return text.trim() === "" ? fallback : text;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function read(obj: unknown, key: string): unknown {
  if (typeof obj !== "object" || obj === null) return undefined;
  try {
    return (obj as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** A field of any shape as its block; its picture from `pictures` (by storage path), else "image unavailable". */
function block(rawField: unknown, fmt: Formatter, pictures: ReadonlyMap<string, PreparedImage>): Block {
  const f = (typeof rawField === "object" && rawField !== null ? rawField : { value: rawField }) as Record<string, unknown>;
  let label: string;
  let display: DisplayValue;
  try {
    label = displayText(f.label, EMPTY_MARKER, fmt);
    display = displayValue(f.type, f.value, fmt);
  } catch {
    label = EMPTY_MARKER;
    display = { kind: "inline", text: "(unreadable value)" };
  }
  switch (display.kind) {
    case "empty":
      return { kind: "row", label, value: undefined };
    case "inline":
      return { kind: "row", label, value: display.text };
    case "paragraphs":
      return { kind: "paragraphs", label, text: display.text };
    case "table":
      return { kind: "table", label, columns: display.columns, rows: display.rows, numeric: display.numeric };
    case "image": {
      const image = pictures.get(display.storagePath);
      if (image) return { kind: "picture", label, image, caption: display.caption, signature: display.signature };
      // A picture the caller did not prepare (outside the target's folder, missing, unreadable).
      return { kind: "row", label, value: `[${fmt.words.imageUnavailable}]${display.caption ? ` ${display.caption}` : ""}` };
    }
  }
}

/** The instance (of any shape: data written by other systems) as the blocks it prints. */
export function documentModel(instance: unknown, targetName: string, fmt: Formatter, pictures: ReadonlyMap<string, PreparedImage>): DocumentModel {
  return {
    title: displayText(read(instance, "title"), fmt.words.untitled, fmt),
    objectTypeName: displayText(read(instance, "objectTypeName"), EMPTY_MARKER, fmt),
    targetName,
    sections: asArray(read(instance, "sections")).map((section, index) => {
      const fields = asArray(read(section, "fields"));
      return {
        title: displayText(read(section, "title"), fmt.words.section(index + 1), fmt),
        blocks: fields.length === 0 ? [{ kind: "row", label: fmt.words.noFields, value: undefined }] : fields.map((f) => block(f, fmt, pictures)),
      };
    }),
  };
}
