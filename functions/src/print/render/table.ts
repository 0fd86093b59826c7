// The layout of a table field: its label, then a grid whose header row repeats on every page it
// continues on. Columns take their natural widths when they fit, else shares between their longest
// word and their widest line; rows go whole on a page (layout.ts, placeRow).

import { EMPTY_MARKER } from "./format";
import { blockLabel, listItem, type Layout, type RowCell } from "./layout";
import type { Block } from "./model";
import type { Line, Paragraph } from "./text";

/**
 * Column widths: natural widths when they fit, else shares between each column's min and max; when
 * even the longest words do not fit, each column gets what its words need above a floor in the same
 * share (so no column shrinks below `floor`, or its own minimum, while others could give).
 */
function columnWidths(minW: number[], maxW: number[], total: number, floor: number): number[] {
  const sumMax = maxW.reduce((a, b) => a + b, 0);
  const sumMin = minW.reduce((a, b) => a + b, 0);
  if (sumMax <= total) return maxW.map((w) => w + ((total - sumMax) * w) / sumMax);
  if (sumMin <= total) {
    const k = (total - sumMin) / (sumMax - sumMin);
    return minW.map((w, i) => w + (maxW[i] - w) * k);
  }
  const floors = minW.map((w) => Math.min(w, floor));
  const sumFloors = floors.reduce((a, b) => a + b, 0);
  if (sumFloors >= total) return minW.map((w) => (w * total) / sumMin);
  const k = (total - sumFloors) / (sumMin - sumFloors);
  return minW.map((w, i) => floors[i] + (w - floors[i]) * k);
}

/**
 * A table field. The structure: the item's body holds a Table (THead with one TR of column headers,
 * TBody with a TR per row); the repeated header rows and "continued" labels are pagination artifacts.
 */
export function table(layout: Layout, list: number, value: Extract<Block, { kind: "table" }>): void {
  const { page, text, leading, rowPad, table: t, colors } = layout.style;
  const tags = listItem(layout, list);
  const structure = layout.draw.structure;
  const tableElement = structure.add("Table", tags.body);
  const headerRow = structure.add("TR", structure.add("THead", tableElement));
  const bodyElement = structure.add("TBody", tableElement);
  const cols = value.columns.length;
  const size = text.tableCell.size;
  const scaleCell = size / 1000;
  // Shape every cell once; the columns' widest line and longest word. A cell's paragraphs are kept
  // in one array for the whole table (an object per cell, alive until the table is drawn, was most
  // of what the garbage collector copied).
  const minW = new Array<number>(cols).fill(0);
  const maxW = new Array<number>(cols).fill(0);
  const measure = (c: number, paragraphs: readonly Paragraph[]): void => {
    for (const p of paragraphs) {
      minW[c] = Math.max(minW[c], p.longestWord * scaleCell + 2 * t.padX);
      maxW[c] = Math.max(maxW[c], p.width * scaleCell + 2 * t.padX);
    }
  };
  const header = value.columns.map((column, c) => {
    const paragraphs = layout.docText.paragraphs(column, text.tableHeader.bold);
    measure(c, paragraphs);
    return paragraphs;
  });
  const dash = layout.docText.paragraphs(EMPTY_MARKER, text.tableMuted.bold);
  /** Row r's cell c at r * cols + c; undefined: empty (the dash). */
  const cells: (readonly Paragraph[] | undefined)[] = new Array(value.rows.length * cols);
  value.rows.forEach((row, r) => {
    for (let c = 0; c < cols; c++) {
      const cell = row[c];
      // A row shorter than the columns (tableOf pads them; a block may not) shows the dash too.
      const paragraphs = cell === undefined || cell === "" ? undefined : layout.docText.paragraphs(cell, text.tableCell.bold);
      cells[r * cols + c] = paragraphs;
      measure(c, paragraphs ?? dash);
    }
  });
  // No column narrower than its padding plus a few characters.
  for (let c = 0; c < cols; c++) {
    minW[c] = Math.max(minW[c], Math.min(maxW[c], 2 * t.padX + 3 * size * 0.6));
  }
  // Narrowest a column is made when the longest words do not fit: two and a half ems, whatever a syllable takes.
  const widths = columnWidths(minW, maxW, page.contentWidth, 2.5 * size + 2 * t.padX);
  const xs: number[] = [page.marginX];
  for (let c = 0; c < cols; c++) xs.push(xs[c] + widths[c]);

  const wrapCell = (paragraphs: readonly Paragraph[], width: number): readonly Line[] => {
    const max = (Math.max(width - 2 * t.padX, 1) * 1000) / size;
    if (paragraphs.length === 1) return paragraphs[0].wrap(max);
    const out: Line[] = [];
    for (const p of paragraphs) for (const l of p.wrap(max)) out.push(l);
    return out;
  };
  /** Column headers cut with an ellipsis, by column: their whole text (the TH's ActualText). */
  const cutHeaders: (string | undefined)[] = [];
  const headerCells: RowCell[] = header.map((paragraphs, c) => {
    const all = wrapCell(paragraphs, widths[c]);
    let lines = all;
    if (all.length > t.headerMaxLines) {
      // The last line that shows ends with an ellipsis: the header's text from there on, cut to fit.
      const cut = all[t.headerMaxLines - 1];
      const later = paragraphs.slice(paragraphs.findIndex((p) => p.text === cut.text) + 1).map((p) => p.text);
      const rest = [cut.text.slice(cut.start), ...later].join(" ");
      lines = [...all.slice(0, t.headerMaxLines - 1), layout.docText.fit(rest, text.tableHeader.bold, ((widths[c] - 2 * t.padX) * 1000) / size)];
      cutHeaders[c] = paragraphs.map((p) => p.text).join(" ");
    }
    return {
      x: xs[c] + t.padX,
      width: widths[c] - 2 * t.padX,
      lines,
      style: text.tableHeader,
      alignEnd: value.numeric[c],
    };
  });
  let headerLines = 1;
  for (const cell of headerCells) headerLines = Math.max(headerLines, cell.lines.length);
  const headerHeight = 2 * t.padY + headerLines * leading.table;

  const grid = (top: number, bottom: number): void => {
    layout.hline(xs[0], xs[cols], bottom, layout.style.hairline, colors.grid);
    layout.vlines(xs, top, bottom, layout.style.hairline, colors.grid);
  };
  const drawHeader = (first: boolean): void => {
    layout.drawRowPart(
      {
        cells: first ? headerCells.map((cell, c) => ({ ...cell, element: structure.add("TH", headerRow, { scope: "Column", actualText: cutHeaders[c] }) })) : headerCells,
        leading: leading.table,
        padTop: t.padY,
        padBottom: t.padY,
        frame: (top, bottom) => {
          layout.fill(xs[0], bottom, xs[cols] - xs[0], top - bottom, colors.headerFill);
          layout.hline(xs[0], xs[cols], top, layout.style.hairline, colors.grid);
          grid(top, bottom);
        },
      },
      0,
      headerLines,
    );
  };
  const continuedLabel = layout.wrap(text.label, layout.fmt.words.continued(value.label), page.contentWidth);
  const continuedHeight = rowPad + continuedLabel.length * leading.row + t.labelGap;
  const onNewPage = (): void => {
    blockLabel(layout, continuedLabel, undefined);
    layout.y -= t.labelGap;
    drawHeader(false);
  };

  const labelLines = layout.wrap(text.label, value.label, page.contentWidth);
  const firstRows = value.rows.length > 0 ? Math.min(2, value.rows.length) : 0;
  layout.ensure(rowPad + labelLines.length * leading.row + t.labelGap + headerHeight + firstRows * (leading.table + 2 * t.padY));
  blockLabel(layout, labelLines, tags.label);
  layout.y -= t.labelGap;
  drawHeader(true);
  // One row's cells and spec, filled again for each row: placeRow draws a row before it returns and
  // keeps nothing of it (an object per cell of thousands of rows was most of what a table allocated).
  const rowCells: RowCell[] = widths.map((w, c) => ({ x: xs[c] + t.padX, width: w - 2 * t.padX, lines: [], style: text.tableCell, alignEnd: value.numeric[c] }));
  const row = { cells: rowCells, leading: leading.table, padTop: t.padY, padBottom: t.padY, frame: grid, onNewPage, newPageHeight: continuedHeight + headerHeight };
  for (let r = 0; r < value.rows.length; r++) {
    const rowElement = structure.add("TR", bodyElement);
    for (let c = 0; c < cols; c++) {
      const paragraphs = cells[r * cols + c];
      const cell = rowCells[c];
      cell.lines = wrapCell(paragraphs ?? dash, widths[c]);
      cell.style = paragraphs ? text.tableCell : text.tableMuted;
      cell.element = structure.add("TD", rowElement);
    }
    layout.placeRow(row);
  }
  layout.y -= t.after;
}
