// The layout stage's pagination: boxes placed top to bottom in one linear pass, each handed to the
// drawing stage (draw.ts) as it is placed. A row (label/value row, table row) that does not fit in
// what is left of a page moves whole to the next page; only a row taller than a whole page is split,
// between its lines. A section heading is kept with what follows it (keepWithNext). A right-to-left
// document mirrors every box: labels on the right, tables from right to left, the footer swapped.
// The blocks themselves are laid out in blocks.ts and table.ts.

import { type Pages, type DrawnSoFar } from "./draw";
import type { Formatter } from "./format";
import { LayoutLimitExceeded } from "./layoutLimit";
import type { DocumentStyle, TextStyle } from "./style";
import type { DocumentText, Line } from "./text";
import type { PreparedImage } from "./types";

/** Tolerance for comparing heights (sums of floating-point leadings). */
const EPSILON = 0.01;

/** Baseline offset below a line box's top that centres capitals in it. */
export const baselineIn = (leading: number, size: number): number => leading / 2 + 0.357 * size;

/** A cell of a row: lines already wrapped, drawn in the box [x, x + width] (mirrored in a right-to-left document). */
export interface RowCell {
  x: number;
  width: number;
  lines: readonly Line[];
  style: TextStyle;
  /** Numbers: aligned to the box's end, whatever their direction. */
  alignEnd?: boolean;
  /** The structure element its text belongs to (none: an artifact, such as a repeated table header). */
  element?: number;
}

export interface RowSpec {
  cells: RowCell[];
  leading: number;
  padTop: number;
  padBottom: number;
  /** Background and rules of (a part of) the row, drawn before its text. */
  frame?: (top: number, bottom: number) => void;
  /** What a page started for this row carries first (a table's repeated header), and its height. */
  onNewPage?: () => void;
  newPageHeight?: number;
}

export class Layout {
  /** Lines of text drawn so far (limits.lines). */
  private lines = 0;
  /** Where the next box goes: its top. */
  y: number;

  constructor(
    readonly style: DocumentStyle,
    readonly docText: DocumentText,
    readonly fmt: Formatter,
    /** The drawing stage: every box placed is drawn there at once. */
    readonly draw: Pages,
    /** Right-to-left document: every box is mirrored (labels on the right, tables right to left). */
    readonly mirror: boolean,
    private readonly limits: { pages: number; lines: number },
    /** The running header of a page after the first (its operators). */
    private readonly runningHeader: () => Uint8Array,
  ) {
    this.y = style.page.firstTop;
  }

  /** The left edge of a box as drawn: mirrored in a right-to-left document. */
  left(x: number, width: number): number {
    return this.mirror ? this.style.page.width - x - width : x;
  }

  get remaining(): number {
    return this.y - this.style.page.contentBottom;
  }

  newPage(): void {
    // Checked while laying out: narrow columns of wrapped cells can make a small document thousands of pages long.
    if (this.draw.pages.length >= this.limits.pages) throw new LayoutLimitExceeded("pages", this.limits.pages);
    // A heading with nothing drawn after it on this page goes to the new page with what follows it.
    const heading = this.heading && this.draw.nothingSince(this.heading.drawnTo) ? this.heading : undefined;
    this.heading = undefined;
    if (heading) this.draw.takeBack(heading.before);
    this.draw.newPage(this.runningHeader());
    this.y = this.style.page.continuationTop;
    heading?.place();
  }

  /**
   * Places a heading (`place`, content of `element`) kept with what follows: should the next thing
   * placed start a new page, the heading moves there with it rather than stay alone at the foot of this one.
   */
  keepWithNext(element: number, place: () => void): void {
    const before = this.draw.drawnSoFar(element);
    place();
    // A heading that started a page itself stays there (moving it again could not help).
    if (this.draw.page === before.page) this.heading = { before, place, drawnTo: this.draw.drawnSoFar(element) };
  }
  private heading?: { before: DrawnSoFar; place: () => void; drawnTo: DrawnSoFar };

  /** Starts a new page unless `height` fits (or could not fit on a new page either). */
  ensure(height: number): void {
    if (height > this.remaining && this.remaining < this.style.page.freshCapacity - EPSILON) this.newPage();
  }

  /** Text wrapped to a width in points for a style. */
  wrap(style: TextStyle, text: string, width: number): Line[] {
    return this.docText.wrap(text, style.bold, (Math.max(width, 1) * 1000) / style.size);
  }

  /**
   * A line of text in a box [x, x + width] (before mirroring), right-aligned in a right-to-left
   * document and for a right-to-left paragraph in a left-to-right one; `alignEnd` (numbers) aligns
   * it to the box's end instead. Marked as content of `element`, or an artifact without one.
   */
  text(style: TextStyle, x: number, width: number, baseline: number, line: Line, element: number | undefined, alignEnd = false): void {
    if (line.pieces.length === 0) return;
    // Counted too: narrow table columns wrap long cells a character to a line, a line each costing as much as a whole one.
    if (++this.lines > this.limits.lines) throw new LayoutLimitExceeded("lines", this.limits.lines);
    this.draw.text(style, this.left(x, width), width, baseline, line, element, alignEnd ? !this.mirror : this.mirror || line.rtl);
  }

  /** A prepared picture in the box at (x, y), `width` x `height` (x mirrored by the caller), as content of `element`. */
  image(element: number, image: PreparedImage, x: number, y: number, width: number, height: number): void {
    this.draw.image(element, image, x, y, width, height);
  }

  hline(x1: number, x2: number, y: number, width: number, color: string): void {
    const [a, b] = this.mirror ? [this.style.page.width - x2, this.style.page.width - x1] : [x1, x2];
    this.draw.line(a, y, b, y, width, color);
  }

  /** Vertical lines at each x from y1 to y2. */
  vlines(xs: readonly number[], y1: number, y2: number, width: number, color: string): void {
    if (this.mirror && this.mirrored?.xs !== xs) this.mirrored = { xs, mirrored: xs.map((x) => this.style.page.width - x) };
    this.draw.vlines(this.mirror ? this.mirrored!.mirrored : xs, y1, y2, width, color);
  }
  /** The last xs vlines mirrored (a table's columns, the same for every row). */
  private mirrored?: { xs: readonly number[]; mirrored: readonly number[] };

  fill(x: number, y: number, w: number, h: number, color: string): void {
    this.draw.fill(this.left(x, w), y, w, h, color);
  }

  /**
   * Places a row: whole on this page if it fits, else whole on the next; only a row taller than a page
   * is split between its lines (as many as fit per page, at least one, so this always ends).
   */
  placeRow(row: RowSpec): void {
    let lineCount = 1;
    for (const cell of row.cells) lineCount = Math.max(lineCount, cell.lines.length);
    const pads = row.padTop + row.padBottom;
    const newPage = (): void => {
      this.newPage();
      row.onNewPage?.();
    };
    const capacity = this.style.page.freshCapacity - (row.newPageHeight ?? 0);
    let from = 0;
    for (;;) {
      const need = pads + (lineCount - from) * row.leading;
      if (need <= this.remaining + EPSILON) {
        this.drawRowPart(row, from, lineCount);
        return;
      }
      if (from === 0 && need <= capacity && this.remaining < capacity - EPSILON) {
        newPage();
        continue;
      }
      let fit = Math.floor((this.remaining - pads) / row.leading);
      if (fit < 1) {
        if (this.remaining < capacity - EPSILON) {
          newPage();
          continue;
        }
        fit = 1; // a page cannot hold even one line: draw it anyway rather than loop
      }
      this.drawRowPart(row, from, from + fit);
      from += fit;
      newPage();
    }
  }

  /** Lines [from, to) of a row at the current position, its frame first. */
  drawRowPart(row: RowSpec, from: number, to: number): void {
    const top = this.y;
    const bottom = top - row.padTop - (to - from) * row.leading - row.padBottom;
    row.frame?.(top, bottom);
    // One baseline per line across the row's cells, centred for the largest size.
    let size = 0;
    for (const cell of row.cells) size = Math.max(size, cell.style.size);
    const offset = baselineIn(row.leading, size);
    for (const cell of row.cells) {
      const end = Math.min(to, cell.lines.length);
      for (let i = from; i < end; i++) {
        const baseline = top - row.padTop - (i - from) * row.leading - offset;
        this.text(cell.style, cell.x, cell.width, baseline, cell.lines[i], cell.element, cell.alignEnd);
      }
    }
    this.y = bottom;
  }
}

/** A field of a list (`L`): its item, with the label (`Lbl`) and the body for its value (`LBody`). */
export function listItem(layout: Layout, list: number): { label: number; body: number } {
  const item = layout.draw.structure.add("LI", list);
  return { label: layout.draw.structure.add("Lbl", item), body: layout.draw.structure.add("LBody", item) };
}

/** A field label on a line of its own (above paragraphs and tables); an artifact without an element (a table's "continued" label). */
export function blockLabel(layout: Layout, lines: readonly Line[], element: number | undefined): void {
  const { page, text } = layout.style;
  layout.placeRow({
    cells: [{ x: page.marginX, width: page.contentWidth, lines, style: text.label, element }],
    leading: layout.style.leading.row,
    padTop: layout.style.rowPad,
    padBottom: 0,
  });
}
