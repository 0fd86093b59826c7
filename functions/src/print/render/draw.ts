// The drawing stage: boxes the layout placed, as PDF operators on their pages, and the structure's
// marked content. Text and pictures are content, each marked for its structure element when tagged;
// rules and fills are artifacts, drawn first under the content as one artifact sequence (a sequence
// per rule or fill took a fifth of a tagged page's marking bytes, measured: 30 rules on the one-page
// case). Only text and pictures are drawn over rules and fills, so pages look as they did in drawing
// order (ARCHITECTURE.md).
//
// The layout hands each box over as it places it, so glyphs get their codes (fontUse.ts) in the
// order they are placed; what it takes back (a heading kept with what follows) is cut from the page.

import { lineOperators, num as n, type MarkOpener } from "./content";
import type { DocumentFonts } from "./fontUse";
import type { DocumentImages } from "./pdf";
import type { TextStyle } from "./style";
import type { Structure } from "./tags";
import type { Line } from "./text";
import type { PreparedImage } from "./types";

/** A page's operators: its artifacts and its content, in the order drawn. */
interface PageOps {
  artifacts: string[];
  content: string[];
}

/** What a page had drawn at one moment, for taking back what was drawn after it (Pages.takeBack). */
export interface DrawnSoFar {
  page: number;
  ops: number;
  artifacts: number;
  marks: number;
  /** Kids of the element whose content was drawn after (its marks). */
  element: number;
  kids: number;
}

/**
 * Does a glyph of the line sit 0.75 em or more above or below it? Only stacks of marks do (Arabic's
 * three reach 0.7 em, Vietnamese's two 0.25 em): such a line is clipped to its own band, so that it
 * cannot draw over the lines around it or off the page.
 */
function towers(line: Line): boolean {
  for (const piece of line.pieces) for (const g of piece.glyphs) if (g.dy >= 750 || g.dy <= -750) return true;
  return false;
}

/** A line of text in the box [left, left + width] as drawn, at its left edge or right-aligned. */
export function showLine(fonts: DocumentFonts, style: TextStyle, left: number, width: number, baseline: number, line: Line, right: boolean, mark?: MarkOpener): string {
  if (line.pieces.length === 0) return "";
  const x = right ? left + width - (line.width * style.size) / 1000 : left;
  return `${style.color} rg BT ${n(x)} ${n(baseline)} Td ${lineOperators(fonts, line, style.size, mark)}ET`;
}

export class Pages {
  readonly pages: PageOps[] = [];
  private ops: string[] = [];
  private artifacts: string[] = [];

  constructor(
    readonly fonts: DocumentFonts,
    readonly images: DocumentImages,
    /** The logical structure: text and pictures are marked for its elements, everything else is an artifact. */
    readonly structure: Structure,
  ) {
    this.pages.push({ artifacts: this.artifacts, content: this.ops });
  }

  /** The page drawn on now (0: the first). */
  get page(): number {
    return this.pages.length - 1;
  }

  /** Starts a new page, its content opened with `first` (the running header). */
  newPage(first: string): void {
    this.ops = [];
    this.artifacts = [];
    this.pages.push({ artifacts: this.artifacts, content: this.ops });
    this.ops.push(first);
  }

  /** What this page has drawn so far, and the kids of `element` (whose content may be drawn next). */
  drawnSoFar(element: number): DrawnSoFar {
    const page = this.page;
    return { page, ops: this.ops.length, artifacts: this.artifacts.length, marks: this.structure.marks[page]?.length ?? 0, element, kids: this.structure.kidCounts[element] };
  }

  /** Has nothing been drawn on this page since `at`? */
  nothingSince(at: DrawnSoFar): boolean {
    return at.page === this.page && at.ops === this.ops.length && at.artifacts === this.artifacts.length;
  }

  /** Takes back what was drawn on this page since `from` (its operators and marked content). */
  takeBack(from: DrawnSoFar): void {
    this.ops.length = from.ops;
    this.artifacts.length = from.artifacts;
    this.structure.unmark(from.element, from.page, from.marks, from.kids);
  }

  /**
   * A line of text in the box [left, left + width] as drawn, right-aligned when `right`. Marked as
   * content of `element`, or an artifact without one. A line wider than its box (a cluster wider
   * than a narrow table column) is cut at the box; one with towering marks at its band. The band
   * holds any script's ink (Vietnamese capitals with two marks, Arabic with three).
   */
  text(style: TextStyle, left: number, width: number, baseline: number, line: Line, element: number | undefined, right: boolean): void {
    const tall = towers(line);
    const wide = (line.width * style.size) / 1000 > width + 0.01;
    const clip =
      tall || wide
        ? `${n(wide ? left : left - style.size / 4)} ${n(baseline - 0.45 * style.size)} ${n(wide ? width : width + style.size / 2)} ${n(1.6 * style.size)} re W n`
        : "";
    if (element === undefined || !this.structure.tagged) {
      const ops = showLine(this.fonts, style, left, width, baseline, line, right);
      this.marked(element, clip ? `q ${clip} ${ops} Q` : ops);
      return;
    }
    // Content of the element: one marked-content sequence or more per line (lineOperators), each with an MCID of this page.
    this.markedElement = element;
    const ops = showLine(this.fonts, style, left, width, baseline, line, right, this.openMarkOfElement);
    this.ops.push(clip ? `q /Artifact BMC ${clip} EMC ${ops} Q` : ops);
  }

  /** The element whose line `text` is drawing, for openMarkOfElement: one opener for every line (a closure per line cost 5 µs a page, measured). */
  private markedElement = 0;
  private readonly openMarkOfElement: MarkOpener = (properties, span) => this.openMark(this.markedElement, properties, span);

  /** Opens a marked-content sequence of `element` with the page's next MCID (tagged `/Span` when asked: see lineOperators). */
  private openMark(element: number, properties = "", span = false): string {
    const mcid = this.structure.mark(element, this.page);
    return `/${span ? "Span" : this.structure.types[element]} <</MCID ${mcid}${properties}>> BDC`;
  }

  /** Operators of the content, marked for a structure element (with the page's next MCID) when tagged; an artifact without one. */
  private marked(element: number | undefined, ops: string): void {
    if (element === undefined) this.artifacts.push(ops);
    else this.ops.push(this.structure.tagged ? `${this.openMark(element)} ${ops} EMC` : ops);
  }

  /** A prepared picture drawn into the box at (x, y), `width` x `height` as drawn, as content of `element`. */
  image(element: number, image: PreparedImage, x: number, y: number, width: number, height: number): void {
    this.marked(element, `q ${n(width)} 0 0 ${n(height)} ${n(x)} ${n(y)} cm /${this.images.use(image)} Do Q`);
  }

  /** A straight line from (x1, y1) to (x2, y2). */
  line(x1: number, y1: number, x2: number, y2: number, width: number, color: string): void {
    this.marked(undefined, `${color} RG ${n(width)} w ${n(x1)} ${n(y1)} m ${n(x2)} ${n(y2)} l S`);
  }

  fill(x: number, y: number, w: number, h: number, color: string): void {
    this.marked(undefined, `${color} rg ${n(x)} ${n(y)} ${n(w)} ${n(h)} re f`);
  }

  /** Operators appended to page `i`'s content as they are (the footer). */
  append(i: number, ...ops: string[]): void {
    this.pages[i].content.push(...ops);
  }

  /** Page `i`'s content stream: its artifacts first, under its content, as one sequence when tagged. */
  contentOf(i: number): string {
    const { artifacts, content } = this.pages[i];
    const under = artifacts.length === 0 ? "" : this.structure.tagged ? `/Artifact BMC\n${artifacts.join("\n")}\nEMC\n` : `${artifacts.join("\n")}\n`;
    return under + content.join("\n");
  }
}
