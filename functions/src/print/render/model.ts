// The document model: what an instance prints, as blocks of text, before anything is measured. Every
// value is already text (format.ts: the locale's numbers, dates and words), every string that is
// missing or of a wrong shape already its fallback, and a picture either prepared or the row that
// says it is unavailable. A template (template.ts) chooses, orders and renames the sections and fields
// here, before anything is laid out. The layout (layout.ts, blocks.ts, table.ts) places these blocks on pages.

import { displayValue, EMPTY_MARKER, genericText, type DisplayValue, type Formatter } from "./format";
import { holds, type DocumentTemplate, type FieldLookup, type TemplateCondition, type TemplateField } from "./template";
import type { PreparedImage } from "./types";

/** A field as the document shows it. */
export type Block =
  /** A label and its value beside it (undefined: empty, printed as the empty marker); `half`: two consecutive share a row. */
  | { kind: "row"; label: string; value: string | undefined; half?: boolean }
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
  /** Pictures side by side (1: each on its own row, beside its label). */
  photosPerRow: number;
}

export interface DocumentModel {
  title: string;
  objectTypeName: string;
  /** The target's display name (the head of the first page). */
  targetName: string;
  sections: Section[];
  /** The formatted value of the instance's first field of a label ({field:<label>}; undefined: none; null: a table or picture, which a line cannot show). */
  fieldText: (label: string) => string | null | undefined;
  /** The stored value of the instance's first field of a label (a template's conditions). */
  field: FieldLookup;
  /** Whether a template's condition holds; one on a field the instance lacks is also a warning (a typo would hide what it guards). */
  holds: (condition: TemplateCondition | undefined) => boolean;
  /** What a template names that the instance lacks (for the preview). */
  warnings: string[];
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

interface StoredSection {
  title: string;
  fields: unknown[];
}

const labelOf = (field: unknown, fmt: Formatter): string => displayText(read(field, "label"), EMPTY_MARKER, fmt);

/** A field without a value (missing, "", a list of blanks, a table without rows): printed as the empty marker. */
const isEmptyBlock = (b: Block): boolean => b.kind === "row" && b.value === undefined;

/** A block for a field a template lists: its label as the template prints it, half when asked (label/value rows only). */
function listed(rawField: unknown, spec: TemplateField | undefined, fmt: Formatter, pictures: ReadonlyMap<string, PreparedImage>): Block {
  const b = block(rawField, fmt, pictures);
  if (spec?.displayLabel) b.label = spec.displayLabel;
  if (spec?.width === "half" && b.kind === "row") b.half = true;
  return b;
}

/**
 * The sections a template prints: those it lists, in its order (each field it lists in its order,
 * the section's others after them in stored order unless `others: "hide"`), then the sections it
 * does not list, in stored order, unless hidden. A listed name the instance lacks is a warning.
 */
function templatedSections(stored: StoredSection[], template: DocumentTemplate, model: Pick<DocumentModel, "holds" | "warnings">, fmt: Formatter, pictures: ReadonlyMap<string, PreparedImage>): Section[] {
  const showOthers = template.others !== "hide";
  const out: Section[] = [];
  const emit = (title: string, blocks: Block[], storedEmpty: boolean, photosPerRow: number): void => {
    const kept = template.hideEmptyFields ? blocks.filter((b) => !isEmptyBlock(b)) : blocks;
    // A section whose fields the template left out goes with them; one stored without fields shows so, as by default.
    if (kept.length > 0) out.push({ title, blocks: kept, photosPerRow });
    else if (storedEmpty && !template.hideEmptyFields) out.push({ title, blocks: [{ kind: "row", label: fmt.words.noFields, value: undefined }], photosPerRow });
  };
  if (!template.sections) {
    for (const s of stored) emit(s.title, s.fields.map((f) => block(f, fmt, pictures)), s.fields.length === 0, 1);
    return out;
  }
  const usedSections = new Set<number>();
  for (const spec of template.sections) {
    const index = stored.findIndex((s, i) => !usedSections.has(i) && s.title === spec.title);
    if (index < 0) {
      // Listed again: each listing takes the next section of that title, and there is none left.
      const again = stored.some((s) => s.title === spec.title);
      model.warnings.push(again ? `section '${spec.title}' is listed more often than the instance has it` : `section '${spec.title}' is not in the instance`);
      continue;
    }
    usedSections.add(index);
    if (!model.holds(spec.when)) continue;
    const section = stored[index];
    let blocks: Block[];
    if (!spec.fields) blocks = section.fields.map((f) => block(f, fmt, pictures));
    else {
      blocks = [];
      const usedFields = new Set<number>();
      // Each label's fields in stored order, taken in turn: a lookup per listed field, not a scan of the section.
      const positions = new Map<string, number[]>();
      section.fields.forEach((f, i) => {
        const label = labelOf(f, fmt);
        const at = positions.get(label);
        if (at) at.push(i);
        else positions.set(label, [i]);
      });
      for (const fieldSpec of spec.fields) {
        const same = positions.get(fieldSpec.label);
        const at = same?.shift() ?? -1;
        if (at < 0) {
          model.warnings.push(same ? `field '${fieldSpec.label}' is listed more often than section '${spec.title}' has it` : `field '${fieldSpec.label}' is not in section '${spec.title}'`);
          continue;
        }
        usedFields.add(at);
        if (model.holds(fieldSpec.when)) blocks.push(listed(section.fields[at], fieldSpec, fmt, pictures));
      }
      if (showOthers) section.fields.forEach((f, i) => usedFields.has(i) || blocks.push(block(f, fmt, pictures)));
    }
    emit(spec.displayTitle || section.title, blocks, section.fields.length === 0, spec.photosPerRow ?? 1);
  }
  if (showOthers) stored.forEach((s, i) => usedSections.has(i) || emit(s.title, s.fields.map((f) => block(f, fmt, pictures)), s.fields.length === 0, 1));
  return out;
}

/** The instance (of any shape: data written by other systems) as the blocks it prints, as the template (if any) shapes them. */
export function documentModel(instance: unknown, targetName: string, fmt: Formatter, pictures: ReadonlyMap<string, PreparedImage>, template?: DocumentTemplate): DocumentModel {
  const stored: StoredSection[] = asArray(read(instance, "sections")).map((section, index) => ({
    title: displayText(read(section, "title"), fmt.words.section(index + 1), fmt),
    fields: asArray(read(section, "fields")),
  }));
  // The first field of each label and its block, found once (a template's conditions and placeholders ask for them by the thousand).
  let firstFields: Map<string, unknown> | undefined;
  const firstField = (label: string): unknown => {
    if (!firstFields) {
      firstFields = new Map();
      for (const s of stored)
        for (const f of s.fields) {
          const label = labelOf(f, fmt);
          if (!firstFields.has(label)) firstFields.set(label, f);
        }
    }
    return firstFields.get(label);
  };
  const blocks = new Map<string, Block | undefined>();
  const firstBlock = (label: string): Block | undefined => {
    if (!blocks.has(label)) {
      const f = firstField(label);
      blocks.set(label, f === undefined ? undefined : block(f, fmt, pictures));
    }
    return blocks.get(label);
  };
  /** Fields a condition looked at that the instance lacks, each warned once. */
  const warnedConditions = new Set<string>();
  const model: DocumentModel = {
    title: displayText(read(instance, "title"), fmt.words.untitled, fmt),
    objectTypeName: displayText(read(instance, "objectTypeName"), EMPTY_MARKER, fmt),
    targetName,
    sections: [],
    field: (label) => {
      const f = firstField(label);
      // Empty as the document shows it (a list of blanks, a table without rows): what hideEmptyFields leaves out.
      return f === undefined ? undefined : { value: read(f, "value"), empty: isEmptyBlock(firstBlock(label)!) };
    },
    fieldText: (label) => {
      const b = firstBlock(label);
      if (b === undefined) return undefined;
      return b.kind === "row" ? (b.value ?? "") : b.kind === "paragraphs" ? b.text : null;
    },
    holds: (condition) => {
      if (condition && !warnedConditions.has(condition.field) && model.field(condition.field) === undefined) {
        warnedConditions.add(condition.field);
        model.warnings.push(`a condition looks at field '${condition.field}', which is not in the instance (it counts as empty)`);
      }
      return holds(condition, model.field);
    },
    warnings: [],
  };
  model.sections = template
    ? templatedSections(stored, template, model, fmt, pictures)
    : stored.map((s) => ({
        title: s.title,
        blocks: s.fields.length === 0 ? [{ kind: "row", label: fmt.words.noFields, value: undefined }] : s.fields.map((f) => block(f, fmt, pictures)),
        photosPerRow: 1,
      }));
  return model;
}
