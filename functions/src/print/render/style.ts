// The default layout's numbers in one place: the page's boxes, the type, the colours and the spacing
// of rows, tables and pictures, as one value (DocumentStyle) that the layout and drawing stages are
// handed. Lengths are PDF points (origin bottom left), sizes points, colours PDF colour operands.

import { num } from "./content";
import { DEFAULT_ACCENT_COLOR, DEFAULT_PAPER_SIZE, PAPER_SIZE_NAMES, PAPER_SIZES } from "./paper";

export interface TextStyle {
  readonly bold: boolean;
  readonly size: number;
  /** Fill colour operands ("r g b"). */
  readonly color: string;
}

/** The boxes of a page: margins stay, the content area and the value column follow the paper. */
export interface PageBoxes {
  readonly width: number;
  readonly height: number;
  readonly marginX: number;
  readonly contentWidth: number;
  /** Where content ends above the footer. */
  readonly contentBottom: number;
  /** Top of the content on the first page, and on later pages (under the running header). */
  readonly firstTop: number;
  readonly continuationTop: number;
  readonly runningHeaderBaseline: number;
  /** The header's band from marginX (shortened by a template's code at the header's end). */
  readonly headerWidth: number;
  readonly runningHeaderRule: number;
  readonly footerRule: number;
  /** The footer's band (moved past a template's code at the footer's start). */
  readonly footerX: number;
  readonly footerWidth: number;
  readonly footerBaseline: number;
  /** The target's own footer line, under the generated one. */
  readonly footerTextBaseline: number;
  /** Space between the footer's text and its page label. */
  readonly footerGap: number;
  /** Height available on a new page (before anything a row's `onNewPage` adds). */
  readonly freshCapacity: number;
  /** The label column of a label/value row, and the value column after it. */
  readonly labelWidth: number;
  readonly valueX: number;
  readonly valueWidth: number;
}

export interface DocumentStyle {
  readonly page: PageBoxes;
  readonly text: {
    readonly title: TextStyle;
    readonly section: TextStyle;
    readonly label: TextStyle;
    readonly value: TextStyle;
    readonly muted: TextStyle;
    readonly tableHeader: TextStyle;
    readonly tableCell: TextStyle;
    readonly tableMuted: TextStyle;
    /** Running header and footer. */
    readonly small: TextStyle;
  };
  /** Line heights. */
  readonly leading: { readonly title: number; readonly section: number; readonly row: number; readonly paragraph: number; readonly table: number };
  readonly colors: {
    readonly accent: string;
    readonly ink: string;
    /** Hairlines under rows, the running header and the footer. */
    readonly rule: string;
    readonly grid: string;
    readonly headerFill: string;
  };
  /** The head of the first page: space under the title, around the accent rule under the object type and target. */
  readonly head: { readonly titleBelow: number; readonly ruleAbove: number; readonly ruleWidth: number; readonly ruleBelow: number };
  readonly section: {
    readonly above: number;
    readonly below: number;
    readonly ruleWidth: number;
    /** Under the heading's rule. */
    readonly after: number;
    /** Height that must fit after a heading on its page (about four rows), else it starts the next. */
    readonly keepWithNext: number;
  };
  /** Padding above and below a label/value row. */
  readonly rowPad: number;
  /** Width of hairlines: under rows, a table's grid, the running header's and the footer's rules. */
  readonly hairline: number;
  /** Above the first line of a longtext value, under its label. */
  readonly paragraphGap: number;
  readonly table: {
    readonly padX: number;
    readonly padY: number;
    readonly headerMaxLines: number;
    /** Between the table's label and its grid, and after the grid. */
    readonly labelGap: number;
    readonly after: number;
  };
  readonly picture: {
    /** Largest drawn height of a photo (three fit an A4 page) and of a signature; a photo is at most the value column wide. */
    readonly photoMaxHeight: number;
    readonly signatureMaxHeight: number;
    /** Pixels per inch a picture is drawn at when it is small enough to need no scaling down. */
    readonly ppi: number;
    /** The rule a signature stands on: below it, its width, its shortest length. */
    readonly signatureGap: number;
    readonly signatureRuleWidth: number;
    readonly signatureRuleLength: number;
  };
  /** Two label/value fields in one row (a template's half fields): the gap between the halves, the label's share of a half. */
  readonly half: { readonly gap: number; readonly labelShare: number };
  /** Pictures side by side (a template's photosPerRow): the gap between them, and between a picture's label and it. */
  readonly gallery: { readonly gap: number; readonly labelGap: number };
  /** The box of the logo, at the head of the first page beside the title (at its end), and the gap between them. */
  readonly logo: { readonly width: number; readonly height: number; readonly gap: number; readonly below: number };
  /** An empty document's note, below the head. */
  readonly noSectionsAbove: number;
}

const MARGIN_X = 50;
const LABEL_WIDTH = 165;
const VALUE_X = MARGIN_X + LABEL_WIDTH + 12;
const CONTENT_BOTTOM = 60;

function pageBoxes(width: number, height: number): PageBoxes {
  const continuationTop = height - 54;
  return {
    width,
    height,
    marginX: MARGIN_X,
    contentWidth: width - 2 * MARGIN_X,
    contentBottom: CONTENT_BOTTOM,
    firstTop: height - 50,
    continuationTop,
    runningHeaderBaseline: height - 32,
    runningHeaderRule: height - 39,
    headerWidth: width - 2 * MARGIN_X,
    footerRule: 46,
    footerX: MARGIN_X,
    footerWidth: width - 2 * MARGIN_X,
    footerBaseline: 34,
    footerTextBaseline: 23,
    footerGap: 16,
    freshCapacity: continuationTop - CONTENT_BOTTOM,
    labelWidth: LABEL_WIDTH,
    valueX: VALUE_X,
    valueWidth: width - MARGIN_X - VALUE_X,
  };
}

/** "#rrggbb" as PDF colour operands, or undefined when it is not such a colour. */
export function rgbOperands(hex: unknown): string | undefined {
  const m = typeof hex === "string" ? /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex) : null;
  return m ? m.slice(1).map((h) => num(parseInt(h, 16) / 255)).join(" ") : undefined;
}

const INK = "0.1 0.1 0.1";
const LABEL_INK = "0.3 0.3 0.3";
const MUTED = "0.5 0.5 0.5";

/** The default layout on a paper size (A4 when it names none we know), headings and rules in `accentColor` ("#rrggbb", else the default). */
export function defaultStyle(paperSize?: unknown, accentColor?: unknown): DocumentStyle {
  const [width, height] = PAPER_SIZES[PAPER_SIZE_NAMES.find((size) => size === paperSize) ?? DEFAULT_PAPER_SIZE];
  const accent = rgbOperands(accentColor) ?? rgbOperands(DEFAULT_ACCENT_COLOR)!;
  return {
    page: pageBoxes(width, height),
    text: {
      title: { bold: true, size: 17, color: accent },
      section: { bold: true, size: 12, color: accent },
      label: { bold: true, size: 8.5, color: LABEL_INK },
      value: { bold: false, size: 9.5, color: INK },
      muted: { bold: false, size: 9.5, color: MUTED },
      tableHeader: { bold: true, size: 8, color: INK },
      tableCell: { bold: false, size: 8, color: INK },
      tableMuted: { bold: false, size: 8, color: MUTED },
      small: { bold: false, size: 7.5, color: MUTED },
    },
    leading: { title: 21, section: 16, row: 13, paragraph: 13.5, table: 10.5 },
    colors: { accent, ink: INK, rule: "0.8 0.8 0.8", grid: "0.72 0.72 0.72", headerFill: "0.92 0.93 0.95" },
    head: { titleBelow: 6, ruleAbove: 4, ruleWidth: 1.2, ruleBelow: 6 },
    section: { above: 14, below: 4, ruleWidth: 0.8, after: 1, keepWithNext: 80 },
    rowPad: 3.5,
    hairline: 0.5,
    paragraphGap: 1.5,
    table: { padX: 3.5, padY: 3, headerMaxLines: 3, labelGap: 3, after: 8 },
    picture: { photoMaxHeight: 190, signatureMaxHeight: 70, ppi: 150, signatureGap: 4, signatureRuleWidth: 0.6, signatureRuleLength: 120 },
    half: { gap: 18, labelShare: 0.42 },
    gallery: { gap: 12, labelGap: 2 },
    logo: { width: 150, height: 50, gap: 14, below: 6 },
    noSectionsAbove: 10,
  };
}
