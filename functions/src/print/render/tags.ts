// The document's logical structure (tagged PDF, PDF/UA-1): elements in reading order, each holding
// marked content of the pages (by MCID) and child elements. The layout adds elements as it places
// what they show and marks the content it draws for them; whatever it draws for no element (rules,
// fills, running headers, footers, a table's repeated header row) is an artifact. pdf.ts writes the
// elements as the StructTreeRoot and the ParentTree.

/** The standard structure types the renderer uses (ISO 32000-1, 14.8.4). */
export type StructType =
  | "Document"
  | "Sect"
  | "H1"
  | "H2"
  | "P"
  | "L"
  | "LI"
  | "Lbl"
  | "LBody"
  | "Table"
  | "THead"
  | "TBody"
  | "TR"
  | "TH"
  | "TD"
  | "Figure";

export interface StructElement {
  readonly type: StructType;
  /** Index of the parent element (-1: the root). */
  readonly parent: number;
  /**
   * In reading order: a child element (its index, >= 0) or marked content of a page, encoded as
   * -1 - (page * MARKS_PER_PAGE + mcid).
   */
  readonly kids: number[];
  /** Alternative text of a figure. */
  alt?: string;
  /** The whole text of an element whose content shows it cut (a table header ending in an ellipsis). */
  actualText?: string;
  /** A header cell's scope. */
  scope?: "Column" | "Row";
}

/** Upper bound of MCIDs on one page (far above what a page holds: a few thousand cells). */
export const MARKS_PER_PAGE = 1 << 20;

export class Structure {
  /** false: nothing is marked or written (RenderOptions.tagged). */
  constructor(readonly tagged = true) {}
  readonly elements: StructElement[] = [{ type: "Document", parent: -1, kids: [], alt: undefined, actualText: undefined, scope: undefined }];
  /** Per page: the element each MCID belongs to, by MCID. */
  readonly marks: number[][] = [];

  /** Adds an element as the last child of `parent` (default: the document). */
  add(type: StructType, parent = 0, extra?: Pick<StructElement, "alt" | "actualText" | "scope">): number {
    const index = this.elements.length;
    // Every element of one shape (alt, actualText and scope present, maybe undefined): faster to write (pdf.ts).
    this.elements.push({ type, parent, kids: [], alt: extra?.alt, actualText: extra?.actualText, scope: extra?.scope });
    this.elements[parent].kids.push(index);
    return index;
  }

  /** Takes back the MCIDs of `page` from the `marks`-th on and the kids of `element` from the `kids`-th on (content drawn again elsewhere). */
  unmark(element: number, page: number, marks: number, kids: number): void {
    if (this.marks[page]) this.marks[page].length = marks;
    this.elements[element].kids.length = kids;
  }

  /** A new MCID on `page` for content of `element`. */
  mark(element: number, page: number): number {
    while (this.marks.length <= page) this.marks.push([]);
    const mcid = this.marks[page].length;
    this.marks[page].push(element);
    this.elements[element].kids.push(-1 - (page * MARKS_PER_PAGE + mcid));
    return mcid;
  }
}
