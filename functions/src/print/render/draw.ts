// The drawing stage: boxes the layout placed, as PDF operators on their pages, and the structure's
// marked content. Text and pictures are content, each marked for its structure element when tagged;
// rules and fills are artifacts, drawn first under the content as one artifact sequence (a sequence
// per rule or fill took a fifth of a tagged page's marking bytes, measured: 30 rules on the one-page
// case). Only text and pictures are drawn over rules and fills, so pages look as they did in drawing
// order (ARCHITECTURE.md); a table's vertical rules are written when its rows on the page end (vlines).
//
// The layout hands each box over as it places it, so glyphs get their codes (fontUse.ts) in the
// order they are placed; what it takes back (a heading kept with what follows) is cut from the page.

import { ContentBytes, lineOperators, type GraphicsState, type MarkOpener } from "./content";
import type { DocumentFonts } from "./fontUse";
import type { DocumentImages } from "./pdf";
import type { TextStyle } from "./style";
import type { Structure } from "./tags";
import type { Line } from "./text";
import type { PreparedImage } from "./types";

/** A page's operators: its artifacts and its content, in the order drawn. */
interface PageOps {
  artifacts: ContentBytes;
  content: ContentBytes;
}

/** What a page had drawn at one moment, for taking back what was drawn after it (Pages.takeBack). */
export interface DrawnSoFar {
  page: number;
  content: number;
  contentEntries: number;
  artifacts: number;
  artifactEntries: number;
  /** The graphics state each buffer left then (ContentBytes). */
  contentState: GraphicsState;
  artifactState: GraphicsState;
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
  for (const { glyphs, start, end } of line.pieces) {
    for (let g = start; g < end; g++) if (glyphs.dy[g] >= 750 || glyphs.dy[g] <= -750) return true;
  }
  return false;
}

/** Writes a line of text in the box [left, left + width] as drawn, at its left edge or right-aligned. */
export function showLine(out: ContentBytes, fonts: DocumentFonts, style: TextStyle, left: number, width: number, baseline: number, line: Line, right: boolean, mark?: MarkOpener): void {
  if (line.pieces.length === 0) return;
  const x = right ? left + width - (line.width * style.size) / 1000 : left;
  if (out.state.fillColor !== style.color) out.text(style.color).text(" rg ");
  out.state.fillColor = style.color;
  out.text("BT ").num(x).byte(0x20).num(baseline).text(" Td ");
  lineOperators(out, fonts, line, style.size, mark);
  out.text("ET");
}

export class Pages {
  readonly pages: PageOps[] = [];
  private content!: ContentBytes;
  private artifacts!: ContentBytes;

  constructor(
    readonly fonts: DocumentFonts,
    readonly images: DocumentImages,
    /** The logical structure: text and pictures are marked for its elements, everything else is an artifact. */
    readonly structure: Structure,
  ) {
    this.startPage();
  }

  private startPage(): void {
    // As large as the page before's: a document's pages are alike (growing a long table's pages
    // from a few KB took four copies each).
    const before = this.pages.at(-1);
    this.content = new ContentBytes(Math.max(4096, before?.content.length ?? 0));
    this.artifacts = new ContentBytes(Math.max(1024, before?.artifacts.length ?? 0));
    this.pages.push({ artifacts: this.artifacts, content: this.content });
  }

  /** The page drawn on now (0: the first). */
  get page(): number {
    return this.pages.length - 1;
  }

  /** Starts a new page, its content opened with `first` (the running header's operators). */
  newPage(first: Uint8Array): void {
    this.writeRules();
    this.startPage();
    this.content.entry().copy(first);
  }

  /** What this page has drawn so far (vlines' rules written first), and the kids of `element` (whose content may be drawn next). */
  drawnSoFar(element: number): DrawnSoFar {
    this.writeRules();
    const page = this.page;
    const { content, artifacts } = this;
    return {
      page,
      content: content.length,
      contentEntries: content.entries,
      artifacts: artifacts.length,
      artifactEntries: artifacts.entries,
      contentState: { ...content.state },
      artifactState: { ...artifacts.state },
      marks: this.structure.marks[page]?.length ?? 0,
      element,
      kids: this.structure.kidCounts[element],
    };
  }

  /** Has nothing been drawn on this page since `at`? (Rules not yet written were drawn since: drawnSoFar wrote those before.) */
  nothingSince(at: DrawnSoFar): boolean {
    return at.page === this.page && !this.rules && at.contentEntries === this.content.entries && at.artifactEntries === this.artifacts.entries;
  }

  /** Takes back what was drawn on this page since `from` (its operators and marked content). */
  takeBack(from: DrawnSoFar): void {
    this.rules = undefined; // drawn since `from` (drawnSoFar wrote those before)
    this.content.length = from.content;
    this.content.entries = from.contentEntries;
    this.artifacts.length = from.artifacts;
    this.artifacts.entries = from.artifactEntries;
    this.content.state = { ...from.contentState };
    this.artifacts.state = { ...from.artifactState };
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
    const tagged = element !== undefined && this.structure.tagged;
    const out = (element === undefined ? this.artifacts : this.content).entry();
    // What a clipped line sets is undone by its Q.
    const before = tall || wide ? { ...out.state } : undefined;
    if (tall || wide) {
      out.text(tagged ? "q /Artifact BMC " : "q ");
      out.num(wide ? left : left - style.size / 4).byte(0x20).num(baseline - 0.45 * style.size).byte(0x20);
      out.num(wide ? width : width + style.size / 2).byte(0x20).num(1.6 * style.size).text(tagged ? " re W n EMC " : " re W n ");
    }
    if (tagged) {
      // Content of the element: one marked-content sequence or more per line (lineOperators), each with an MCID of this page.
      this.markedElement = element;
      showLine(out, this.fonts, style, left, width, baseline, line, right, this.openMarkOfElement);
    } else {
      showLine(out, this.fonts, style, left, width, baseline, line, right);
    }
    if (tall || wide) {
      out.text(" Q");
      out.state = before!;
    }
  }

  /** The element whose line `text` is drawing, for openMarkOfElement: one opener for every line (a closure per line cost 5 µs a page, measured). */
  private markedElement = 0;
  private readonly openMarkOfElement: MarkOpener = (out, properties, span) => void this.openMark(out, this.markedElement, properties, span);

  /** Opens a marked-content sequence of `element` with the page's next MCID (tagged `/Span` when asked: see lineOperators). */
  private openMark(out: ContentBytes, element: number, properties = "", span = false): ContentBytes {
    const mcid = this.structure.mark(element, this.page);
    return out.byte(0x2f).text(span ? "Span" : this.structure.types[element]).text(" <</MCID ").int(mcid).text(properties).text(">> BDC");
  }

  /** A prepared picture drawn into the box at (x, y), `width` x `height` as drawn, as content of `element`. */
  image(element: number, image: PreparedImage, x: number, y: number, width: number, height: number): void {
    const out = this.content.entry();
    if (this.structure.tagged) this.openMark(out, element).byte(0x20);
    out.text("q ").num(width).text(" 0 0 ").num(height).byte(0x20).num(x).byte(0x20).num(y).text(" cm /").text(this.images.use(image)).text(" Do Q");
    if (this.structure.tagged) out.text(" EMC");
  }

  /** A straight line from (x1, y1) to (x2, y2). */
  line(x1: number, y1: number, x2: number, y2: number, width: number, color: string): void {
    this.stroke(width, color).num(x1).byte(0x20).num(y1).text(" m ").num(x2).byte(0x20).num(y2).text(" l S");
  }

  /**
   * Vertical lines at each x from y1 to y2: a table row's rules. The rows of a table one under another
   * on a page are ruled together, a line per column from the first's top to the last's bottom (as
   * line() writes it), written when the rows end: at a vlines call that does not continue them, a
   * new page, a snapshot (drawnSoFar) or the first streamOf. A rule per row and column took, together,
   * a fifth of a long table's content bytes, which deflate pays for; poppler draws the one rule as it
   * drew the abutting ones (pixels the same at 72 to 300 dpi; every pinned output's pages at 150).
   * Drawn later, the rules cross nothing but the grid's other rules, of their colour: no fill is drawn
   * over a table's rows, and a repeated header row's text (an artifact) keeps its padding from them.
   */
  vlines(xs: readonly number[], y1: number, y2: number, width: number, color: string): void {
    const rules = this.rules;
    if (rules && rules.xs === xs && rules.bottom === y1 && rules.width === width && rules.color === color) {
      rules.bottom = y2;
      return;
    }
    this.writeRules();
    if (xs.length > 0) this.rules = { xs, top: y1, bottom: y2, width, color };
  }
  /** vlines' rules not yet written, on this page (a new page writes them first). */
  private rules?: { xs: readonly number[]; top: number; bottom: number; width: number; color: string };

  /**
   * Writes vlines' rules: the digits of the xs written once for the array (a table's
   * columns), those of the ends once, and the rules copied together from them.
   */
  private writeRules(): void {
    if (!this.rules) return;
    const { xs, top: y1, bottom: y2, width, color } = this.rules;
    this.rules = undefined;
    if (this.columns?.xs !== xs) {
      const digits = new ContentBytes(16 * xs.length);
      const ends = xs.map((x) => digits.num(x).length);
      this.columns = { xs, digits: digits.view, ends };
    }
    const { digits, ends: xEnds } = this.columns;
    const ends = this.ends;
    ends.length = 0;
    ends.byte(0x20).num(y1).text(" m ");
    const middle = ends.length;
    ends.byte(0x20).num(y2).text(" l S");
    const out = this.stroke(width, color);
    // Each rule: x y1 m x y2 l S, and a line break before the next.
    out.room(2 * digits.length + xs.length * (ends.length + 1));
    const b = out.bytes;
    const e = ends.bytes;
    let at = out.length;
    for (let i = 0; i < xs.length; i++) {
      if (i > 0) b[at++] = 0x0a;
      const from = i > 0 ? xEnds[i - 1] : 0;
      const to = xEnds[i];
      for (let k = from; k < to; k++) b[at++] = digits[k];
      for (let k = 0; k < middle; k++) b[at++] = e[k];
      for (let k = from; k < to; k++) b[at++] = digits[k];
      for (let k = middle; k < ends.length; k++) b[at++] = e[k];
    }
    out.length = at;
    out.entries += xs.length - 1;
  }
  private readonly ends = new ContentBytes(64);
  private columns?: { xs: readonly number[]; digits: Uint8Array; ends: number[] };

  /** A new artifact entry, with the stroke's colour and width in force. */
  private stroke(width: number, color: string): ContentBytes {
    const out = this.artifacts.entry();
    const { state } = out;
    if (state.strokeColor !== color) out.text(color).text(" RG ");
    if (state.lineWidth !== width) out.num(width).text(" w ");
    state.strokeColor = color;
    state.lineWidth = width;
    return out;
  }

  fill(x: number, y: number, w: number, h: number, color: string): void {
    const out = this.artifacts.entry();
    if (out.state.fillColor !== color) out.text(color).text(" rg ");
    out.state.fillColor = color;
    out.num(x).byte(0x20).num(y).byte(0x20).num(w).byte(0x20).num(h).text(" re f");
  }

  /**
   * Vector shapes on page `i` (a template's code), written by `write`: content of `element`, or a
   * pagination artifact without one (the same code repeated on later pages).
   */
  shapesOn(i: number, element: number | undefined, write: (out: ContentBytes) => void): void {
    const out = this.pages[i].content.entry();
    if (!this.structure.tagged) return write(out);
    if (element === undefined) out.text("/Artifact <</Type /Pagination>> BDC ");
    else out.byte(0x2f).text(this.structure.types[element]).text(" <</MCID ").int(this.structure.mark(element, i)).text(">> BDC ");
    write(out);
    out.text(" EMC");
  }

  /** Page `i`'s content, for operators appended to it (the footer). */
  contentOfPage(i: number): ContentBytes {
    return this.pages[i].content;
  }

  /** Page `i`'s content stream: its artifacts first, under its content, as one sequence when tagged (the first call writes vlines' last rules). */
  streamOf(i: number): Uint8Array {
    this.writeRules();
    const { artifacts, content } = this.pages[i];
    if (artifacts.entries === 0) return content.view;
    const out = new ContentBytes(artifacts.length + content.length + 32);
    if (this.structure.tagged) out.text("/Artifact BMC\n").copy(artifacts.view).text("\nEMC\n");
    else out.copy(artifacts.view).byte(0x0a);
    return out.copy(content.view).view;
  }
}
