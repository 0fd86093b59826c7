// The document's logical structure (tagged PDF, PDF/UA-1): elements in reading order, each holding
// marked content of the pages (by MCID) and child elements. The layout adds elements as it places
// what they show and the drawing stage marks the content it draws for them; whatever is drawn for no
// element (rules, fills, running headers, footers, a table's repeated header row) is an artifact.
// structureTree.ts writes the elements as the StructTreeRoot and the ParentTree.
//
// Elements and their kids are kept in flat arrays of small integers rather than an object and an
// array per element: a page has a hundred elements, a long table tens of thousands, and the writer
// reads them once, late in the render, when what the layout allocated is no longer in cache.

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
  | "Figure"
  | "Form";

/** What a few elements carry besides their type and kids. */
export interface StructExtra {
  /** Alternative text of a figure. */
  alt?: string;
  /** The whole text of an element whose content shows it cut (a table header ending in an ellipsis). */
  actualText?: string;
  /** A header cell's scope. */
  scope?: "Column" | "Row";
}

/** Room for a page's elements (a page of fields has about a hundred) before the columns grow. */
const ELEMENTS_AT_FIRST = 128;

/** A column of `length` whose first value (the document's) is `first`. */
function column(length: number, first: number): Int32Array {
  const values = new Int32Array(length);
  values[0] = first;
  return values;
}

export class Structure {
  /** false: nothing is marked or written (RenderOptions.tagged). */
  constructor(readonly tagged = true) {}

  /** Per element (0: the document): its type, its parent (-1: the root). */
  readonly types: StructType[] = ["Document"];
  parents: Int32Array = column(ELEMENTS_AT_FIRST, -1);
  /** What a few elements carry besides their type and kids, by element. */
  readonly extras = new Map<number, Readonly<StructExtra>>();
  /**
   * Per element: how many kids it has, its first and last (indexes of kids; -1: none), the page of
   * its first marked content (-1: none). These columns and the kids' are typed arrays grown by
   * doubling (as arrays of numbers, a long table's tens of thousands of pushes were a fifth of what
   * its render allocated, copied by every scavenge): read an element's values below `count`, kids
   * by following firstKids and nextKids, and never hold a column across add or mark, which may
   * replace it with a longer one.
   */
  kidCounts: Int32Array = column(ELEMENTS_AT_FIRST, 0);
  firstKids: Int32Array = column(ELEMENTS_AT_FIRST, -1);
  private lastKids: Int32Array = column(ELEMENTS_AT_FIRST, -1);
  firstPages: Int32Array = column(ELEMENTS_AT_FIRST, -1);
  /**
   * Per kid, in the order added: a child element (its index, >= 0) or marked content (-1 - MCID, on
   * page kidPages[kid]), and the next kid of its element (-1: its last).
   */
  kids: Int32Array = new Int32Array(2 * ELEMENTS_AT_FIRST);
  kidPages: Int32Array = new Int32Array(2 * ELEMENTS_AT_FIRST);
  nextKids: Int32Array = new Int32Array(2 * ELEMENTS_AT_FIRST);
  private kidsAdded = 0;
  /** Per page: the element each MCID belongs to, by MCID. */
  readonly marks: number[][] = [];
  /**
   * Annotations in the structure (a form field's widget: PDF/UA-1 7.18.4), in the order added: the
   * element each belongs to, as its last kid (an object reference, OBJR), and its page. The writer
   * gives the i-th the ParentTree key after the pages' (the annotation's /StructParent).
   */
  readonly annotations: { element: number; page: number }[] = [];

  get count(): number {
    return this.types.length;
  }

  /** Adds an element as the last child of `parent` (default: the document); `extra` is kept as given, not copied. */
  add(type: StructType, parent = 0, extra?: Readonly<StructExtra>): number {
    const index = this.types.length;
    this.types.push(type);
    if (index === this.parents.length) {
      this.parents = grown(this.parents);
      this.kidCounts = grown(this.kidCounts);
      this.firstKids = grown(this.firstKids);
      this.lastKids = grown(this.lastKids);
      this.firstPages = grown(this.firstPages);
    }
    this.parents[index] = parent;
    if (extra) this.extras.set(index, extra);
    this.kidCounts[index] = 0;
    this.firstKids[index] = -1;
    this.lastKids[index] = -1;
    this.firstPages[index] = -1;
    this.addKid(parent, index, -1);
    return index;
  }

  /** A new MCID on `page` for content of `element`. */
  mark(element: number, page: number): number {
    while (this.marks.length <= page) this.marks.push([]);
    const mcid = this.marks[page].length;
    this.marks[page].push(element);
    this.addKid(element, -1 - mcid, page);
    if (this.firstPages[element] < 0) this.firstPages[element] = page;
    return mcid;
  }

  /** Adds an annotation of `page` as a kid of `element` (after its other kids); returns its index in `annotations`. */
  annotate(element: number, page: number): number {
    this.annotations.push({ element, page });
    return this.annotations.length - 1;
  }

  /** Takes back the MCIDs of `page` from the `marks`-th on and the kids of `element` from the `kids`-th on (content drawn again elsewhere). */
  unmark(element: number, page: number, marks: number, kids: number): void {
    if (this.marks[page]) this.marks[page].length = marks;
    if (kids >= this.kidCounts[element]) return;
    // The kids it keeps stay where they are; those dropped are left unlinked.
    let last = -1;
    let firstPage = -1;
    for (let k = 0, kid = this.firstKids[element]; k < kids; k++, kid = this.nextKids[kid]) {
      last = kid;
      if (firstPage < 0 && this.kids[kid] < 0) firstPage = this.kidPages[kid];
    }
    this.kidCounts[element] = kids;
    this.lastKids[element] = last;
    if (last < 0) this.firstKids[element] = -1;
    else this.nextKids[last] = -1;
    this.firstPages[element] = firstPage;
  }

  private addKid(element: number, value: number, page: number): void {
    const kid = this.kidsAdded++;
    if (kid === this.kids.length) {
      this.kids = grown(this.kids);
      this.kidPages = grown(this.kidPages);
      this.nextKids = grown(this.nextKids);
    }
    this.kids[kid] = value;
    this.kidPages[kid] = page;
    this.nextKids[kid] = -1;
    const last = this.lastKids[element];
    if (last < 0) this.firstKids[element] = kid;
    else this.nextKids[last] = kid;
    this.lastKids[element] = kid;
    this.kidCounts[element]++;
  }
}

/** A column twice as long, its values kept. */
function grown(column: Int32Array): Int32Array {
  const longer = new Int32Array(column.length * 2);
  longer.set(column);
  return longer;
}
