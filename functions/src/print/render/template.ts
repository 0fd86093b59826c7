// A print template as the renderer takes it: data a target stores (print/templates/schema.ts checks
// it) that changes what the document model holds (which sections and fields, in which order, under
// which names, two to a row, photos per row) and what the pages carry (header, footer, watermark, a
// code). No code and no expressions: placeholders in lines of text, and conditions on a field's value.

/** A field's stored value the condition compares with (a list value matches when it holds it). */
export type TemplateScalar = string | number | boolean;

/** A condition on the instance's first field of that label (in any section). */
export interface TemplateCondition {
  field: string;
  equals?: TemplateScalar;
  notEquals?: TemplateScalar;
  /** true: holds when the field is missing or empty; false: when it has a value. */
  isEmpty?: boolean;
}

export interface TemplateField {
  /** The stored field's label. */
  label: string;
  displayLabel?: string;
  /** "half": two consecutive half fields share a row (a field that is not a label/value row prints full). */
  width?: "full" | "half";
  when?: TemplateCondition;
}

export interface TemplateSection {
  /** The stored section's title. */
  title: string;
  displayTitle?: string;
  /** Its fields in this order (absent: all of them, in stored order). */
  fields?: TemplateField[];
  /** Pictures (image fields) side by side, 1 to 3 to a row. */
  photosPerRow?: 1 | 2 | 3;
  when?: TemplateCondition;
}

/** A line across the page's top or foot: three parts, each with placeholders. */
export interface TemplateLine {
  left?: string;
  center?: string;
  right?: string;
  /** Also on the first page (default: the header not, the footer yes). */
  firstPage?: boolean;
}

export const CODE_KINDS = ["qr", "code128", "datamatrix"] as const;
export const CODE_POSITIONS = ["header-right", "title-right", "footer-left"] as const;

export interface TemplateCode {
  kind: (typeof CODE_KINDS)[number];
  /** What it encodes, with placeholders. */
  value: string;
  /** header-right and footer-left: on every page; title-right: beside the title on the first page. */
  position: (typeof CODE_POSITIONS)[number];
  /** The symbol's height in millimetres, without its quiet zone (defaults: QR and Data Matrix 20, Code 128 12). */
  size?: number;
}

export interface DocumentTemplate {
  /** Part of the stored PDF's name: another version, another file. */
  id?: string;
  version?: number;
  header?: TemplateLine;
  footer?: TemplateLine;
  sections?: TemplateSection[];
  /** Sections and fields the template does not list: appended in stored order ("show", default) or left out. */
  others?: "show" | "hide";
  hideEmptyFields?: boolean;
  watermark?: { text: string; when?: TemplateCondition };
  code?: TemplateCode;
}

/** The placeholders a line may hold besides {field:<label>}. */
export const PLACEHOLDERS = ["title", "objectType", "target", "instanceId", "generatedAt", "page", "pages"] as const;
export type PlaceholderName = (typeof PLACEHOLDERS)[number];

/** A placeholder in a line: `{name}` or `{field:<label>}`; `{{` and `}}` are literal braces. */
export const PLACEHOLDER = /\{\{|\}\}|\{([^{}]*)\}/g;

/** Why a line of a template cannot be filled (an unknown placeholder, a lone brace), or undefined. */
export function lineProblem(line: string): string | undefined {
  for (const match of line.matchAll(PLACEHOLDER)) {
    const name = match[1];
    if (name === undefined) continue;
    if (name.startsWith("field:") ? name.length === 6 : !(PLACEHOLDERS as readonly string[]).includes(name)) {
      return `has an unknown placeholder {${name.slice(0, 40)}} (known: ${PLACEHOLDERS.map((p) => `{${p}}`).join(", ")}, {field:<label>}; {{ and }} for braces)`;
    }
  }
  const rest = line.replace(PLACEHOLDER, "");
  if (/[{}]/.test(rest)) return "has a brace that opens or closes no placeholder (write {{ or }} for a brace)";
  return undefined;
}

/**
 * A line with its placeholders filled: `values` for the named ones, `field` for {field:<label>}
 * (undefined: a field the instance lacks, which prints nothing and is reported by `unknown`).
 */
export function fillLine(line: string, values: Partial<Record<PlaceholderName, string>>, field: (label: string) => string | undefined, unknown: (placeholder: string) => void): string {
  return line.replace(PLACEHOLDER, (whole, name: string | undefined) => {
    if (name === undefined) return whole[0];
    if (name.startsWith("field:")) {
      const value = field(name.slice(6));
      if (value === undefined) unknown(whole);
      return value ?? "";
    }
    const value = values[name as PlaceholderName];
    if (value === undefined) unknown(whole);
    return value ?? "";
  });
}

/** What a condition sees of the instance: its first field of a label (its stored value, and whether the document shows it empty), or none. */
export type FieldLookup = (label: string) => { value: unknown; empty: boolean } | undefined;

/** Is the stored value `expected` (or, for a list, does it hold it)? */
const matches = (value: unknown, expected: TemplateScalar): boolean => (Array.isArray(value) ? value.includes(expected) : value === expected);

/** Does the condition hold for the instance (every comparison it gives)? No condition always holds. */
export function holds(condition: TemplateCondition | undefined, lookup: FieldLookup): boolean {
  if (!condition) return true;
  const field = lookup(condition.field);
  const value = field?.value;
  if (condition.isEmpty !== undefined && (field?.empty ?? true) !== condition.isEmpty) return false;
  if (condition.equals !== undefined && (!field || !matches(value, condition.equals))) return false;
  if (condition.notEquals !== undefined && (!field || matches(value, condition.notEquals))) return false;
  return true;
}
