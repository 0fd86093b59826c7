// Lays an object instance out on A4 pages and writes the PDF.
//
// Page 1 opens with the title, the object type and the target; later pages carry a running header
// with the title. Every page ends with a footer: the instance id, the generation time and
// "Page X of Y" (written once the page count is known). Sections are headings; fields are
// label/value rows, except longtext (wrapped paragraphs across the page width, the author's line
// breaks kept) and table (a grid whose header row repeats on every page the table continues on).
//
// Pagination is one linear pass. A row (label/value row, table row) that does not fit in what is left
// of a page moves whole to the next page; only a row taller than a whole page is split, between its
// lines. Paragraph text breaks between lines, keeping a field's label with its first two lines and a
// section heading with the start of its first field.

import { DEFAULT_LOCALE, DEFAULT_TIME_ZONE, displayValue, EMPTY_MARKER, formatterFor, genericText, supportedLocale, supportedTimeZone, type DisplayValue, type Formatter } from "./format";
import { LayoutLimitExceeded } from "./layoutLimit";
import { assemblePdf, DocumentFonts, DocumentImages, lineOperators, num as n, type MarkOpener } from "./pdf";
import { documentText, DocumentText, type Line, type Paragraph } from "./text";
import { DEFAULT_ACCENT_COLOR, DEFAULT_PAPER_SIZE, PAPER_SIZE_NAMES, PAPER_SIZES } from "./paper";
import { SRGB_PROFILE, srgbProfile } from "./profile";
import { Structure } from "./tags";
import type { PreparedImage, PrintableInstance, RenderedPdf, RenderOptions } from "./types";

// ---- page geometry (PDF points, origin bottom left) -------------------------------------------
export const PAGE_WIDTH = PAPER_SIZES.A4[0];
export const PAGE_HEIGHT = PAPER_SIZES.A4[1];
const MARGIN_X = 50;
const CONTENT_BOTTOM = 60;
const FOOTER_RULE = 46;
const FOOTER_BASELINE = 34;
const FOOTER_TEXT_BASELINE = 23;

/** The boxes of a page of one paper size: margins stay, the content area and the table widths follow the paper. */
class Page {
  readonly contentWidth: number;
  readonly valueWidth: number;
  readonly firstTop: number;
  readonly continuationTop: number;
  readonly runningHeaderBaseline: number;
  readonly runningHeaderRule: number;
  /** Height available on a new page (before anything a row's `onNewPage` adds). */
  readonly freshCapacity: number;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.contentWidth = width - 2 * MARGIN_X;
    this.valueWidth = width - MARGIN_X - VALUE_X;
    this.firstTop = height - 50;
    this.continuationTop = height - 54;
    this.runningHeaderBaseline = height - 32;
    this.runningHeaderRule = height - 39;
    this.freshCapacity = this.continuationTop - CONTENT_BOTTOM;
  }
}

// ---- type ---------------------------------------------------------------------------------------
const TITLE_SIZE = 17;
const TITLE_LEADING = 21;
const SECTION_SIZE = 12;
const SECTION_LEADING = 16;
const LABEL_SIZE = 8.5;
const VALUE_SIZE = 9.5;
const ROW_LEADING = 13;
const ROW_PAD = 3.5;
const LABEL_WIDTH = 165;
const VALUE_X = MARGIN_X + LABEL_WIDTH + 12;
const PARAGRAPH_LEADING = 13.5;
const TABLE_SIZE = 8;
const TABLE_LEADING = 10.5;
const TABLE_PAD_X = 3.5;
const TABLE_PAD_Y = 3;
const TABLE_HEADER_MAX_LINES = 3;
const SMALL_SIZE = 7.5;

// ---- colours (PDF operators) --------------------------------------------------------------------
const INK = "0.1 0.1 0.1";
const LABEL_INK = "0.3 0.3 0.3";
const MUTED = "0.5 0.5 0.5";
/** "#rrggbb" as PDF colour operands, or undefined when it is not such a colour. */
function rgbOperands(hex: unknown): string | undefined {
  const m = typeof hex === "string" ? /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex) : null;
  return m ? m.slice(1).map((h) => n(parseInt(h, 16) / 255)).join(" ") : undefined;
}
const RULE = "0.8 0.8 0.8";
const GRID = "0.72 0.72 0.72";
const HEADER_FILL = "0.92 0.93 0.95";

/** Tolerance for comparing heights (sums of floating-point leadings). */
const EPSILON = 0.01;

/** Baseline offset below a line box's top that centres capitals in it. */
const baselineIn = (leading: number, size: number): number => leading / 2 + 0.357 * size;

interface Style {
  bold: boolean;
  size: number;
  color: string;
}

/**
 * A page's operators: its artifacts (rules, fills, a table's repeated header row: drawn first, under
 * the content, as one artifact sequence when tagged) and its content (text and pictures, each marked
 * for its structure element when tagged). A marked-content sequence per rule or fill took a fifth of
 * a tagged page's marking bytes (measured: 30 rules on the one-page case). Only text and pictures are
 * drawn over rules and fills, so pages look as they did in drawing order (ARCHITECTURE.md).
 */
interface PageOps {
  artifacts: string[];
  content: string[];
}

class Canvas {
  readonly pages: PageOps[] = [];
  private ops: string[] = [];
  private artifacts: string[] = [];
  /** Lines of text drawn so far (limits.lines). */
  private lines = 0;
  y: number;

  constructor(
    private readonly runningTitle: () => string,
    private readonly limits: { pages: number; lines: number },
    readonly docText: DocumentText,
    readonly fmt: Formatter,
    /** The pictures the caller prepared, by storage path, and those this document embeds. */
    readonly pictures: ReadonlyMap<string, PreparedImage>,
    readonly images: DocumentImages,
    readonly fonts: DocumentFonts,
    /** Right-to-left document: every box is mirrored (labels on the right, tables right to left). */
    readonly mirror: boolean,
    readonly page: Page,
    /** The logical structure: text and pictures are marked for its elements, everything else is an artifact. */
    readonly structure: Structure,
  ) {
    this.y = page.firstTop;
    this.pages.push({ artifacts: this.artifacts, content: this.ops });
  }

  /** The left edge of a box as drawn: mirrored in a right-to-left document. */
  left(x: number, width: number): number {
    return this.mirror ? this.page.width - x - width : x;
  }

  get remaining(): number {
    return this.y - CONTENT_BOTTOM;
  }

  newPage(): void {
    // Checked while laying out: narrow columns of wrapped cells can make a small document thousands of pages long.
    if (this.pages.length >= this.limits.pages) throw new LayoutLimitExceeded("pages", this.limits.pages);
    // A heading with nothing drawn after it on this page goes to the new page with what follows it.
    const heading =
      this.heading?.page === this.pages.length - 1 && this.heading.drawnTo === this.ops.length && this.heading.artifactsTo === this.artifacts.length ? this.heading : undefined;
    this.heading = undefined;
    if (heading) {
      this.ops.length = heading.ops;
      this.artifacts.length = heading.artifacts;
      this.structure.unmark(heading.element, heading.page, heading.marks, heading.kids);
    }
    this.ops = [];
    this.artifacts = [];
    this.pages.push({ artifacts: this.artifacts, content: this.ops });
    this.y = this.page.continuationTop;
    this.ops.push(this.runningTitle());
    heading?.draw();
  }

  /**
   * Draws a heading (`draw`, content of `element`) kept with what follows: should the next thing drawn
   * start a new page, the heading moves there with it rather than stay alone at the foot of this one.
   */
  keepWithNext(element: number, draw: () => void): void {
    const page = this.pages.length - 1;
    const before = { ops: this.ops.length, artifacts: this.artifacts.length, marks: this.structure.marks[page]?.length ?? 0, kids: this.structure.kidCounts[element] };
    draw();
    // A heading that started a page itself stays there (moving it again could not help).
    if (this.pages.length - 1 === page) this.heading = { ...before, page, element, draw, drawnTo: this.ops.length, artifactsTo: this.artifacts.length };
  }
  private heading?: { page: number; ops: number; artifacts: number; marks: number; kids: number; element: number; draw: () => void; drawnTo: number; artifactsTo: number };

  /** Starts a new page unless `height` fits (or could not fit on a new page either). */
  ensure(height: number): void {
    if (height > this.remaining && this.remaining < this.page.freshCapacity - EPSILON) this.newPage();
  }

  /**
   * A line of text in a box [x, x + width] (before mirroring), right-aligned in a right-to-left
   * document and for a right-to-left paragraph in a left-to-right one; `alignEnd` (numbers) aligns
   * it to the box's end instead. Marked as content of `element`, or an artifact without one.
   */
  text(style: Style, x: number, width: number, baseline: number, line: Line, element: number | undefined, alignEnd = false): void {
    if (line.pieces.length === 0) return;
    // Counted too: narrow table columns wrap long cells a character to a line, a line each costing as much as a whole one.
    if (++this.lines > this.limits.lines) throw new LayoutLimitExceeded("lines", this.limits.lines);
    const right = alignEnd ? !this.mirror : this.mirror || line.rtl;
    const left = this.left(x, width);
    // A line wider than its box (a cluster wider than a narrow table column) is cut at the box; one with
    // towering marks at its band. The band holds any script's ink (Vietnamese capitals with two marks, Arabic with three).
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
    const mcid = this.structure.mark(element, this.pages.length - 1);
    return `/${span ? "Span" : this.structure.types[element]} <</MCID ${mcid}${properties}>> BDC`;
  }

  /** Operators of the content, marked for a structure element (with the page's next MCID) when tagged; an artifact without one. */
  marked(element: number | undefined, ops: string): void {
    if (element === undefined) this.artifacts.push(ops);
    else this.ops.push(this.structure.tagged ? `${this.openMark(element)} ${ops} EMC` : ops);
  }

  /** A prepared picture drawn into the box at (x, y), `width` x `height` as placed (x mirrored by the caller), as content of `element`. */
  image(element: number, image: PreparedImage, x: number, y: number, width: number, height: number): void {
    this.marked(element, `q ${n(width)} 0 0 ${n(height)} ${n(x)} ${n(y)} cm /${this.images.use(image)} Do Q`);
  }

  hline(x1: number, x2: number, y: number, width: number, color: string): void {
    const [a, b] = this.mirror ? [this.page.width - x2, this.page.width - x1] : [x1, x2];
    this.marked(undefined, `${color} RG ${n(width)} w ${n(a)} ${n(y)} m ${n(b)} ${n(y)} l S`);
  }

  vline(x: number, y1: number, y2: number, width: number, color: string): void {
    const at = this.mirror ? this.page.width - x : x;
    this.marked(undefined, `${color} RG ${n(width)} w ${n(at)} ${n(y1)} m ${n(at)} ${n(y2)} l S`);
  }

  fill(x: number, y: number, w: number, h: number, color: string): void {
    this.marked(undefined, `${color} rg ${n(this.left(x, w))} ${n(y)} ${n(w)} ${n(h)} re f`);
  }
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
function showLine(fonts: DocumentFonts, style: Style, left: number, width: number, baseline: number, line: Line, right: boolean, mark?: MarkOpener): string {
  if (line.pieces.length === 0) return "";
  const x = right ? left + width - (line.width * style.size) / 1000 : left;
  return `${style.color} rg BT ${n(x)} ${n(baseline)} Td ${lineOperators(fonts, line, style.size, mark)}ET`;
}

/** A cell of a row: lines already wrapped, drawn in the box [x, x + width] (mirrored in a right-to-left document). */
interface RowCell {
  x: number;
  width: number;
  lines: Line[];
  style: Style;
  /** Numbers: aligned to the box's end, whatever their direction. */
  alignEnd?: boolean;
  /** The structure element its text belongs to (none: an artifact, such as a repeated table header). */
  element?: number;
}

interface RowSpec {
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

/**
 * Places a row: whole on this page if it fits, else whole on the next; only a row taller than a page
 * is split between its lines (as many as fit per page, at least one, so this always ends).
 */
function placeRow(canvas: Canvas, row: RowSpec): void {
  let lineCount = 1;
  for (const cell of row.cells) lineCount = Math.max(lineCount, cell.lines.length);
  const pads = row.padTop + row.padBottom;
  const newPage = (): void => {
    canvas.newPage();
    row.onNewPage?.();
  };
  const capacity = canvas.page.freshCapacity - (row.newPageHeight ?? 0);
  let from = 0;
  for (;;) {
    const need = pads + (lineCount - from) * row.leading;
    if (need <= canvas.remaining + EPSILON) {
      drawRowPart(canvas, row, from, lineCount);
      return;
    }
    if (from === 0 && need <= capacity && canvas.remaining < capacity - EPSILON) {
      newPage();
      continue;
    }
    let fit = Math.floor((canvas.remaining - pads) / row.leading);
    if (fit < 1) {
      if (canvas.remaining < capacity - EPSILON) {
        newPage();
        continue;
      }
      fit = 1; // a page cannot hold even one line: draw it anyway rather than loop
    }
    drawRowPart(canvas, row, from, from + fit);
    from += fit;
    newPage();
  }
}

function drawRowPart(canvas: Canvas, row: RowSpec, from: number, to: number): void {
  const top = canvas.y;
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
      canvas.text(cell.style, cell.x, cell.width, baseline, cell.lines[i], cell.element, cell.alignEnd);
    }
  }
  canvas.y = bottom;
}

/** Wraps text to a width in points for a style. */
function wrap(canvas: Canvas, style: Style, text: string, width: number): Line[] {
  return canvas.docText.wrap(text, style.bold, (Math.max(width, 1) * 1000) / style.size);
}

interface Styles {
  title: Style;
  section: Style;
  label: Style;
  value: Style;
  muted: Style;
  tableHeader: Style;
  tableCell: Style;
  tableMuted: Style;
}

function displayText(value: unknown, fallback: string, fmt: Formatter): string {
  const text = typeof value === "string" ? value : genericText(value, fmt);
  return text.trim() === "" ? fallback : text;
}

/** A field of a list (`L`): its item, with the label (`Lbl`) and the body for its value (`LBody`). */
function listItem(canvas: Canvas, list: number): { label: number; body: number } {
  const item = canvas.structure.add("LI", list);
  return { label: canvas.structure.add("Lbl", item), body: canvas.structure.add("LBody", item) };
}

/** A label/value row with a hairline under it: an item of `list`. */
function labelValueRow(canvas: Canvas, s: Styles, list: number, label: string, value: string | undefined, rule = true): void {
  const tags = listItem(canvas, list);
  placeRow(canvas, {
    cells: [
      { x: MARGIN_X, width: LABEL_WIDTH, lines: wrap(canvas, s.label, label, LABEL_WIDTH), style: s.label, element: tags.label },
      value === undefined
        ? { x: VALUE_X, width: canvas.page.valueWidth, lines: wrap(canvas, s.muted, EMPTY_MARKER, canvas.page.valueWidth), style: s.muted, element: tags.body }
        : { x: VALUE_X, width: canvas.page.valueWidth, lines: wrap(canvas, s.value, value, canvas.page.valueWidth), style: s.value, element: tags.body },
    ],
    leading: ROW_LEADING,
    padTop: ROW_PAD,
    padBottom: ROW_PAD,
    frame: rule ? (_top, bottom) => canvas.hline(MARGIN_X, MARGIN_X + canvas.page.contentWidth, bottom, 0.5, RULE) : undefined,
  });
}

/** A field label on a line of its own (above paragraphs and tables); an artifact without an element (a table's "continued" label). */
function blockLabel(canvas: Canvas, s: Styles, lines: Line[], element: number | undefined): void {
  placeRow(canvas, {
    cells: [{ x: MARGIN_X, width: canvas.page.contentWidth, lines, style: s.label, element }],
    leading: ROW_LEADING,
    padTop: ROW_PAD,
    padBottom: 0,
  });
}

function paragraphs(canvas: Canvas, s: Styles, list: number, label: string, text: string): void {
  const tags = listItem(canvas, list);
  const labelLines = wrap(canvas, s.label, label, canvas.page.contentWidth);
  const lines = wrap(canvas, s.value, text, canvas.page.contentWidth);
  // Trailing empty lines add nothing.
  while (lines.length > 1 && lines[lines.length - 1].pieces.length === 0) lines.pop();
  canvas.ensure(ROW_PAD + labelLines.length * ROW_LEADING + Math.min(2, lines.length) * PARAGRAPH_LEADING + ROW_PAD);
  blockLabel(canvas, s, labelLines, tags.label);
  canvas.y -= 1.5;
  const offset = baselineIn(PARAGRAPH_LEADING, VALUE_SIZE);
  // A P per paragraph of the text (a line that starts its paragraph starts one).
  let paragraph: number | undefined;
  let paragraphText: string | undefined;
  for (const line of lines) {
    if (canvas.remaining < PARAGRAPH_LEADING) canvas.newPage();
    // (A blank line shows nothing: no element for it.)
    if (line.pieces.length > 0 && (paragraph === undefined || line.start === 0 || line.text !== paragraphText)) paragraph = canvas.structure.add("P", tags.body);
    paragraphText = line.text;
    canvas.text(s.value, MARGIN_X, canvas.page.contentWidth, canvas.y - offset, line, paragraph);
    canvas.y -= PARAGRAPH_LEADING;
  }
  canvas.y -= ROW_PAD;
  canvas.hline(MARGIN_X, MARGIN_X + canvas.page.contentWidth, canvas.y, 0.5, RULE);
}

/** Narrowest a column is made when the longest words do not fit: two and a half ems, whatever a syllable takes. */
const COLUMN_FLOOR = 2.5 * TABLE_SIZE + 2 * TABLE_PAD_X;

/**
 * Column widths: natural widths when they fit, else shares between each column's min and max; when
 * even the longest words do not fit, each column gets what its words need above a floor in the same
 * share (so no column shrinks below COLUMN_FLOOR, or its own minimum, while others could give).
 */
function columnWidths(minW: number[], maxW: number[], total: number): number[] {
  const sumMax = maxW.reduce((a, b) => a + b, 0);
  const sumMin = minW.reduce((a, b) => a + b, 0);
  if (sumMax <= total) return maxW.map((w) => w + ((total - sumMax) * w) / sumMax);
  if (sumMin <= total) {
    const k = (total - sumMin) / (sumMax - sumMin);
    return minW.map((w, i) => w + (maxW[i] - w) * k);
  }
  const floors = minW.map((w) => Math.min(w, COLUMN_FLOOR));
  const sumFloors = floors.reduce((a, b) => a + b, 0);
  if (sumFloors >= total) return minW.map((w) => (w * total) / sumMin);
  const k = (total - sumFloors) / (sumMin - sumFloors);
  return minW.map((w, i) => floors[i] + (w - floors[i]) * k);
}

/**
 * A table field: its label, then a grid whose header row repeats on every page it continues on. The
 * structure: the item's body holds a Table (THead with one TR of column headers, TBody with a TR per
 * row); the repeated header rows and "continued" labels are pagination artifacts.
 */
function table(canvas: Canvas, s: Styles, list: number, label: string, value: Extract<DisplayValue, { kind: "table" }>): void {
  const tags = listItem(canvas, list);
  const structure = canvas.structure;
  const tableElement = structure.add("Table", tags.body);
  const headerRow = structure.add("TR", structure.add("THead", tableElement));
  const bodyElement = structure.add("TBody", tableElement);
  const cols = value.columns.length;
  const scaleCell = TABLE_SIZE / 1000;
  // Shape every cell once; measure its widest line and its longest word.
  const measure = (bold: boolean, text: string): { paragraphs: Paragraph[]; max: number; word: number } => {
    const paragraphs = canvas.docText.paragraphs(text, bold);
    let max = 0;
    let word = 0;
    for (const p of paragraphs) {
      max = Math.max(max, p.width);
      word = Math.max(word, p.longestWord);
    }
    return { paragraphs, max: max * scaleCell, word: word * scaleCell };
  };
  const header = value.columns.map((c) => measure(s.tableHeader.bold, c));
  const body = value.rows.map((row) => row.map((c) => (c === "" ? undefined : measure(s.tableCell.bold, c))));
  const dash = measure(s.tableMuted.bold, EMPTY_MARKER);
  const minW = header.map((h) => h.word + 2 * TABLE_PAD_X);
  const maxW = header.map((h) => h.max + 2 * TABLE_PAD_X);
  for (const row of body) {
    for (let c = 0; c < cols; c++) {
      const m = row[c] ?? dash;
      if (m.word + 2 * TABLE_PAD_X > minW[c]) minW[c] = m.word + 2 * TABLE_PAD_X;
      if (m.max + 2 * TABLE_PAD_X > maxW[c]) maxW[c] = m.max + 2 * TABLE_PAD_X;
    }
  }
  // No column narrower than its padding plus a few characters.
  for (let c = 0; c < cols; c++) {
    minW[c] = Math.max(minW[c], Math.min(maxW[c], 2 * TABLE_PAD_X + 3 * TABLE_SIZE * 0.6));
  }
  const widths = columnWidths(minW, maxW, canvas.page.contentWidth);
  const xs: number[] = [MARGIN_X];
  for (let c = 0; c < cols; c++) xs.push(xs[c] + widths[c]);

  const wrapCell = (paragraphs: Paragraph[], width: number): Line[] => {
    const max = (Math.max(width - 2 * TABLE_PAD_X, 1) * 1000) / TABLE_SIZE;
    const out: Line[] = [];
    for (const p of paragraphs) for (const l of p.wrap(max)) out.push(l);
    return out;
  };
  /** Column headers cut with an ellipsis, by column: their whole text (the TH's ActualText). */
  const cutHeaders: (string | undefined)[] = [];
  const headerCells: RowCell[] = header.map((h, c) => {
    const all = wrapCell(h.paragraphs, widths[c]);
    let lines = all;
    if (all.length > TABLE_HEADER_MAX_LINES) {
      // The last line that shows ends with an ellipsis: the header's text from there on, cut to fit.
      lines = all.slice(0, TABLE_HEADER_MAX_LINES - 1);
      const shown = lines.length;
      const cut = all[shown];
      const later = h.paragraphs.slice(h.paragraphs.findIndex((p) => p.text === cut.text) + 1).map((p) => p.text);
      const rest = [cut.text.slice(cut.start), ...later].join(" ");
      lines.push(canvas.docText.fit(rest, s.tableHeader.bold, ((widths[c] - 2 * TABLE_PAD_X) * 1000) / TABLE_SIZE));
      cutHeaders[c] = h.paragraphs.map((p) => p.text).join(" ");
    }
    return {
      x: xs[c] + TABLE_PAD_X,
      width: widths[c] - 2 * TABLE_PAD_X,
      lines,
      style: s.tableHeader,
      alignEnd: value.numeric[c],
    };
  });
  let headerLines = 1;
  for (const cell of headerCells) headerLines = Math.max(headerLines, cell.lines.length);
  const headerHeight = 2 * TABLE_PAD_Y + headerLines * TABLE_LEADING;

  const grid = (top: number, bottom: number): void => {
    canvas.hline(xs[0], xs[cols], bottom, 0.5, GRID);
    for (const x of xs) canvas.vline(x, top, bottom, 0.5, GRID);
  };
  const drawHeader = (first: boolean): void => {
    drawRowPart(canvas, {
      cells: first ? headerCells.map((cell, c) => ({ ...cell, element: structure.add("TH", headerRow, { scope: "Column", actualText: cutHeaders[c] }) })) : headerCells,
      leading: TABLE_LEADING,
      padTop: TABLE_PAD_Y,
      padBottom: TABLE_PAD_Y,
      frame: (top, bottom) => {
        canvas.fill(xs[0], bottom, xs[cols] - xs[0], top - bottom, HEADER_FILL);
        canvas.hline(xs[0], xs[cols], top, 0.5, GRID);
        grid(top, bottom);
      },
    }, 0, headerLines);
  };
  const continuedLabel = wrap(canvas, s.label, canvas.fmt.words.continued(label), canvas.page.contentWidth);
  const continuedHeight = ROW_PAD + continuedLabel.length * ROW_LEADING + 3;
  const onNewPage = (): void => {
    blockLabel(canvas, s, continuedLabel, undefined);
    canvas.y -= 3;
    drawHeader(false);
  };

  const labelLines = wrap(canvas, s.label, label, canvas.page.contentWidth);
  const firstRows = body.length > 0 ? Math.min(2, body.length) : 0;
  canvas.ensure(ROW_PAD + labelLines.length * ROW_LEADING + 3 + headerHeight + firstRows * (TABLE_LEADING + 2 * TABLE_PAD_Y));
  blockLabel(canvas, s, labelLines, tags.label);
  canvas.y -= 3;
  drawHeader(true);
  for (const row of body) {
    const rowElement = structure.add("TR", bodyElement);
    const cells: RowCell[] = [];
    for (let c = 0; c < cols; c++) {
      const m = row[c];
      cells.push({
        x: xs[c] + TABLE_PAD_X,
        width: widths[c] - 2 * TABLE_PAD_X,
        lines: m ? wrapCell(m.paragraphs, widths[c]) : wrapCell(dash.paragraphs, widths[c]),
        style: m ? s.tableCell : s.tableMuted,
        alignEnd: value.numeric[c],
        element: structure.add("TD", rowElement),
      });
    }
    placeRow(canvas, {
      cells,
      leading: TABLE_LEADING,
      padTop: TABLE_PAD_Y,
      padBottom: TABLE_PAD_Y,
      frame: grid,
      onNewPage,
      newPageHeight: continuedHeight + headerHeight,
    });
  }
  canvas.y -= 8;
}

function field(canvas: Canvas, s: Styles, list: number, rawField: unknown): void {
  const f = (typeof rawField === "object" && rawField !== null ? rawField : { value: rawField }) as Record<string, unknown>;
  let label: string;
  let display: DisplayValue;
  try {
    label = displayText(f.label, EMPTY_MARKER, canvas.fmt);
    display = displayValue(f.type, f.value, canvas.fmt);
  } catch {
    label = EMPTY_MARKER;
    display = { kind: "inline", text: "(unreadable value)" };
  }
  switch (display.kind) {
    case "empty":
      labelValueRow(canvas, s, list, label, undefined);
      return;
    case "inline":
      labelValueRow(canvas, s, list, label, display.text);
      return;
    case "paragraphs":
      paragraphs(canvas, s, list, label, display.text);
      return;
    case "table":
      table(canvas, s, list, label, display);
      return;
    case "image":
      picture(canvas, s, list, label, display);
      return;
  }
}

/** Largest drawn height of a photo (three fit an A4 page) and of a signature, in points; a photo is at most the value column wide. */
const PHOTO_MAX_HEIGHT = 190;
const SIGNATURE_MAX_HEIGHT = 70;
/** Pixels per inch a picture is drawn at when it is small enough to need no scaling down. */
const PICTURE_PPI = 150;
/** The box of the logo, at the head of the first page beside the title (at its end: right, or left in a right-to-left document). */
const LOGO_BOX_WIDTH = 150;
const LOGO_BOX_HEIGHT = 50;
const LOGO_GAP = 14;

/** Draws the logo scaled into its box, at the top of the first page (a Figure: `element`); returns its drawn height. */
function drawLogo(canvas: Canvas, logo: PreparedImage, element: number): number {
  const fit = Math.min(LOGO_BOX_WIDTH / logo.width, LOGO_BOX_HEIGHT / logo.height);
  const width = logo.width * fit;
  const height = logo.height * fit;
  const x = canvas.left(MARGIN_X + canvas.page.contentWidth - width, width);
  canvas.image(element, logo, x, canvas.y - height, width, height);
  return height;
}

/**
 * An image or signature field: its label, the picture in the value column (scaled to fit, never
 * enlarged past PICTURE_PPI), a signature standing on a rule, the caption under it. A picture the
 * caller did not prepare (outside the target's folder, missing, unreadable) prints "image unavailable".
 */
function picture(canvas: Canvas, s: Styles, list: number, label: string, display: Extract<DisplayValue, { kind: "image" }>): void {
  const image = canvas.pictures.get(display.storagePath);
  if (!image) {
    labelValueRow(canvas, s, list, label, `[${canvas.fmt.words.imageUnavailable}]${display.caption ? ` ${display.caption}` : ""}`);
    return;
  }
  // A Figure whose alternative text is its caption (else its label), the caption after it as text.
  const tags = listItem(canvas, list);
  const figure = canvas.structure.add("Figure", tags.body, { alt: display.caption || label });
  const captionElement = display.caption ? canvas.structure.add("P", tags.body) : undefined;
  const maxHeight = display.signature ? SIGNATURE_MAX_HEIGHT : PHOTO_MAX_HEIGHT;
  let width = (image.width * 72) / PICTURE_PPI;
  let height = (image.height * 72) / PICTURE_PPI;
  const fit = Math.min(1, canvas.page.valueWidth / width, maxHeight / height);
  width *= fit;
  height *= fit;
  const caption = display.caption ? wrap(canvas, s.muted, display.caption, canvas.page.valueWidth) : [];
  const labelLines = wrap(canvas, s.label, label, LABEL_WIDTH);
  const ruleGap = display.signature ? 4 : 0;
  const total = ROW_PAD + Math.max(height + ruleGap + caption.length * ROW_LEADING, labelLines.length * ROW_LEADING) + ROW_PAD;
  canvas.ensure(total);
  const top = canvas.y;
  const offset = baselineIn(ROW_LEADING, LABEL_SIZE);
  labelLines.forEach((line, i) => canvas.text(s.label, MARGIN_X, LABEL_WIDTH, top - ROW_PAD - i * ROW_LEADING - offset, line, tags.label));
  const x = canvas.left(VALUE_X, width);
  const y = top - ROW_PAD - height;
  canvas.image(figure, image, x, y, width, height);
  if (display.signature) canvas.hline(VALUE_X, VALUE_X + Math.max(width, 120), y - 2, 0.6, INK);
  const captionOffset = baselineIn(ROW_LEADING, VALUE_SIZE);
  caption.forEach((line, i) => canvas.text(s.muted, VALUE_X, canvas.page.valueWidth, y - ruleGap - i * ROW_LEADING - captionOffset, line, captionElement));
  canvas.y = top - total;
  canvas.hline(MARGIN_X, MARGIN_X + canvas.page.contentWidth, canvas.y, 0.5, RULE);
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

/** Every string of the instance, for choosing the document's language and loading the shaper when needed. */
function instanceText(instance: unknown, fmt: Formatter): string {
  try {
    return JSON.stringify(instance) ?? "";
  } catch {
    return genericText(instance, fmt);
  }
}

/** Renders an object instance to a PDF. Deterministic: the same input gives the same bytes. */
export async function renderInstancePdf(instance: PrintableInstance, options: RenderOptions): Promise<RenderedPdf> {
  const generatedAt = options?.generatedAt;
  if (!(generatedAt instanceof Date) || !Number.isFinite(generatedAt.getTime())) {
    throw new TypeError("renderInstancePdf: options.generatedAt must be a valid Date");
  }
  const instanceId = String(options.instanceId ?? "");
  // Settings the caller should have validated; the renderer falls back to the defaults rather than throw.
  const locale = (typeof options.locale === "string" && supportedLocale(options.locale)) || undefined;
  const fmt = formatterFor(locale ?? DEFAULT_LOCALE, (typeof options.timeZone === "string" && supportedTimeZone(options.timeZone)) || DEFAULT_TIME_ZONE);
  const targetName = displayText(options.targetName, EMPTY_MARKER, fmt);
  const title = displayText(read(instance, "title"), fmt.words.untitled, fmt);
  const objectTypeName = displayText(read(instance, "objectTypeName"), EMPTY_MARKER, fmt);

  const docText = await documentText(`${title}\n${objectTypeName}\n${targetName}\n${instanceText(instance, fmt)}`, locale, options.maxRuns);
  const accent = rgbOperands(options.accentColor) ?? rgbOperands(DEFAULT_ACCENT_COLOR)!;
  const footerText = typeof options.footerText === "string" ? options.footerText.replace(/[\r\n]+/g, " ").trim() : "";
  const fonts = new DocumentFonts(options.tagged === false ? undefined : docText.settings.language);
  const images = new DocumentImages();
  const structure = new Structure(options.tagged !== false);
  // Pagination artifacts (running header, footer), when tagged.
  const [pagination, paginationEnd] = structure.tagged ? ["/Artifact <</Type /Pagination>> BDC ", " EMC"] : ["", ""];
  const s: Styles = {
    title: { bold: true, size: TITLE_SIZE, color: accent },
    section: { bold: true, size: SECTION_SIZE, color: accent },
    label: { bold: true, size: LABEL_SIZE, color: LABEL_INK },
    value: { bold: false, size: VALUE_SIZE, color: INK },
    muted: { bold: false, size: VALUE_SIZE, color: MUTED },
    tableHeader: { bold: true, size: TABLE_SIZE, color: INK },
    tableCell: { bold: false, size: TABLE_SIZE, color: INK },
    tableMuted: { bold: false, size: TABLE_SIZE, color: MUTED },
  };
  const paperSize = PAPER_SIZE_NAMES.find((size) => size === options.paperSize) ?? DEFAULT_PAPER_SIZE;
  const page = new Page(PAPER_SIZES[paperSize][0], PAPER_SIZES[paperSize][1]);
  const small: Style = { bold: false, size: SMALL_SIZE, color: MUTED };

  // Running header of pages 2+: the title on one line, and a rule.
  let runningHeader: string | undefined;
  const canvas: Canvas = new Canvas(
    () => {
      if (runningHeader === undefined) {
        const line = docText.fit(title, false, (page.contentWidth * 1000) / SMALL_SIZE);
        runningHeader =
          `${pagination}${showLine(fonts, small, MARGIN_X, page.contentWidth, page.runningHeaderBaseline, line, docText.settings.rtl || line.rtl)}\n` +
          `${RULE} RG 0.5 w ${n(MARGIN_X)} ${n(page.runningHeaderRule)} m ${n(MARGIN_X + page.contentWidth)} ${n(page.runningHeaderRule)} l S${paginationEnd}`;
      }
      return runningHeader;
    },
    { pages: options.maxPages ?? Infinity, lines: options.maxLines ?? Infinity },
    docText,
    fmt,
    options.images instanceof Map ? options.images : new Map(),
    images,
    fonts,
    docText.settings.rtl,
    page,
    structure,
  );

  // Header: title (beside the logo, if any), object type, target. Structure: H1, the logo's Figure
  // (its alternative text: the target's name), a list of the two rows.
  const headTop = canvas.y;
  const heading = structure.add("H1");
  const logo = options.logo && options.logo.width > 0 && options.logo.height > 0 ? options.logo : undefined;
  const logoHeight = logo ? drawLogo(canvas, logo, structure.add("Figure", 0, { alt: targetName })) : 0;
  const titleWidth = logo ? page.contentWidth - LOGO_BOX_WIDTH - LOGO_GAP : page.contentWidth;
  placeRow(canvas, {
    cells: [{ x: MARGIN_X, width: titleWidth, lines: wrap(canvas, s.title, title, titleWidth), style: s.title, element: heading }],
    leading: TITLE_LEADING,
    padTop: 0,
    padBottom: 6,
  });
  canvas.y = Math.min(canvas.y, headTop - logoHeight - 6);
  const about = structure.add("L");
  labelValueRow(canvas, s, about, fmt.words.objectType, objectTypeName, false);
  labelValueRow(canvas, s, about, fmt.words.target, targetName, false);
  canvas.y -= 4;
  canvas.hline(MARGIN_X, MARGIN_X + page.contentWidth, canvas.y, 1.2, accent);
  canvas.y -= 6;

  const sections = asArray(read(instance, "sections"));
  // Each section: Sect with its H2 and a list (L) of its fields, one item (LI: Lbl, LBody) each.
  sections.forEach((section, index) => {
    const sect = structure.add("Sect");
    const headingElement = structure.add("H2", sect);
    const list = structure.add("L", sect);
    const heading = wrap(canvas, s.section, displayText(read(section, "title"), fmt.words.section(index + 1), fmt), page.contentWidth);
    const fields = asArray(read(section, "fields"));
    const headingHeight = 14 + heading.length * SECTION_LEADING + 5;
    // Keep the heading with the start of its first field (room for about four rows, which also
    // covers a table's label, header and first rows or a paragraph's label and first lines).
    canvas.ensure(headingHeight + 80);
    canvas.keepWithNext(headingElement, () => {
      placeRow(canvas, {
        cells: [{ x: MARGIN_X, width: page.contentWidth, lines: heading, style: s.section, element: headingElement }],
        leading: SECTION_LEADING,
        padTop: 14,
        padBottom: 4,
        frame: (_top, bottom) => canvas.hline(MARGIN_X, MARGIN_X + page.contentWidth, bottom, 0.8, accent),
      });
      canvas.y -= 1;
    });
    if (fields.length === 0) {
      labelValueRow(canvas, s, list, fmt.words.noFields, undefined);
      return;
    }
    for (const f of fields) field(canvas, s, list, f);
  });
  if (sections.length === 0) {
    canvas.y -= 10;
    placeRow(canvas, {
      cells: [{ x: MARGIN_X, width: page.contentWidth, lines: wrap(canvas, s.muted, fmt.words.noSections, page.contentWidth), style: s.muted, element: structure.add("P") }],
      leading: ROW_LEADING,
      padTop: 0,
      padBottom: 0,
    });
  }

  // Footers, now that the page count is known.
  const pageCount = canvas.pages.length;
  const footerLeft = fmt.words.footer(instanceId, fmt.timestamp(generatedAt));
  const contents = canvas.pages.map(({ artifacts, content: ops }, i) => {
    // The page label at the line's end, the footer text in what is left (swapped in a right-to-left document).
    const pageLabel = docText.fit(fmt.words.page(i + 1, pageCount), false, Infinity);
    const labelWidth = (pageLabel.width * SMALL_SIZE) / 1000;
    const footerWidth = page.contentWidth - labelWidth - 16;
    const footer = docText.fit(footerLeft, false, (footerWidth * 1000) / SMALL_SIZE);
    ops.push(
      pagination,
      `${RULE} RG 0.5 w ${n(MARGIN_X)} ${n(FOOTER_RULE)} m ${n(MARGIN_X + page.contentWidth)} ${n(FOOTER_RULE)} l S`,
      showLine(fonts, small, canvas.left(MARGIN_X, footerWidth), footerWidth, FOOTER_BASELINE, footer, canvas.mirror),
      showLine(fonts, small, canvas.left(MARGIN_X + page.contentWidth - labelWidth, labelWidth), labelWidth, FOOTER_BASELINE, pageLabel, !canvas.mirror),
    );
    // The target's own footer line, under the generated one.
    if (footerText) {
      const line = docText.fit(footerText, false, (page.contentWidth * 1000) / SMALL_SIZE);
      ops.push(showLine(fonts, small, MARGIN_X, page.contentWidth, FOOTER_TEXT_BASELINE, line, canvas.mirror || line.rtl));
    }
    ops.push(paginationEnd);
    // The page's artifacts first, under its content, as one sequence.
    const under = artifacts.length === 0 ? "" : structure.tagged ? `/Artifact BMC\n${artifacts.join("\n")}\nEMC\n` : `${artifacts.join("\n")}\n`;
    return under + ops.join("\n");
  });

  const bytes = await assemblePdf(page.width, page.height, contents, fonts.all, {
    title,
    subject: `${objectTypeName} \u2014 ${targetName}`,
    keywords: [instanceId],
    date: generatedAt,
    language: docText.settings.language,
  }, images, structure.tagged ? structure : undefined, options.conformance === "PDF/A-2u" ? { profile: srgbProfile(), name: SRGB_PROFILE.name } : undefined);
    return { bytes, pageCount, missingCharacters: docText.missing, bidiControlsRemoved: docText.bidiControls };
}
