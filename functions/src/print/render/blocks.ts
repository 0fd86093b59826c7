// The layout of the document model's blocks (model.ts): the head of the first page, sections, label/
// value rows, paragraphs and pictures (tables: table.ts), each adding the structure elements of what
// it places, in reading order. Page 1 opens with the title (beside the logo), the object type and the
// target; every section is a heading kept with the start of its first field, then its fields.

import { EMPTY_MARKER } from "./format";
import { baselineIn, blockLabel, listItem, type Layout } from "./layout";
import type { Block, DocumentModel } from "./model";
import { drawCode, titleCodeBox, type PlacedCode } from "./pageCode";
import { table } from "./table";
import type { PreparedImage } from "./types";

/** A label/value row with a hairline under it: an item of `list`. */
function labelValueRow(layout: Layout, list: number, label: string, value: string | undefined, rule = true): void {
  const { page, text, leading, rowPad } = layout.style;
  const tags = listItem(layout, list);
  layout.placeRow({
    cells: [
      { x: page.marginX, width: page.labelWidth, lines: layout.wrap(text.label, label, page.labelWidth), style: text.label, element: tags.label },
      value === undefined
        ? { x: page.valueX, width: page.valueWidth, lines: layout.wrap(text.muted, EMPTY_MARKER, page.valueWidth), style: text.muted, element: tags.body }
        : { x: page.valueX, width: page.valueWidth, lines: layout.wrap(text.value, value, page.valueWidth), style: text.value, element: tags.body },
    ],
    leading: leading.row,
    padTop: rowPad,
    padBottom: rowPad,
    frame: rule ? (_top, bottom) => layout.hline(page.marginX, page.marginX + page.contentWidth, bottom, layout.style.hairline, layout.style.colors.rule) : undefined,
  });
}

/**
 * Two label/value fields side by side (a template's half fields; `right` undefined: the left half
 * alone), each an item of `list` in reading order, one hairline under the row.
 */
function halfRow(layout: Layout, list: number, left: Extract<Block, { kind: "row" }>, right: Extract<Block, { kind: "row" }> | undefined): void {
  const { page, text, leading, rowPad, half } = layout.style;
  const width = (page.contentWidth - half.gap) / 2;
  const labelWidth = width * half.labelShare;
  const valueWidth = width - labelWidth - half.gap / 2;
  const cells = (x: number, field: Extract<Block, { kind: "row" }>) => {
    const tags = listItem(layout, list);
    const valueStyle = field.value === undefined ? text.muted : text.value;
    return [
      { x, width: labelWidth, lines: layout.wrap(text.label, field.label, labelWidth), style: text.label, element: tags.label },
      { x: x + labelWidth + half.gap / 2, width: valueWidth, lines: layout.wrap(valueStyle, field.value ?? EMPTY_MARKER, valueWidth), style: valueStyle, element: tags.body },
    ];
  };
  layout.placeRow({
    cells: [...cells(page.marginX, left), ...(right ? cells(page.marginX + width + half.gap, right) : [])],
    leading: leading.row,
    padTop: rowPad,
    padBottom: rowPad,
    frame: (_top, bottom) => layout.hline(page.marginX, page.marginX + page.contentWidth, bottom, layout.style.hairline, layout.style.colors.rule),
  });
}

function paragraphs(layout: Layout, list: number, label: string, body: string): void {
  const { page, text, leading, rowPad } = layout.style;
  const tags = listItem(layout, list);
  const labelLines = layout.wrap(text.label, label, page.contentWidth);
  const lines = layout.wrap(text.value, body, page.contentWidth);
  // Trailing empty lines add nothing.
  while (lines.length > 1 && lines[lines.length - 1].pieces.length === 0) lines.pop();
  layout.ensure(rowPad + labelLines.length * leading.row + Math.min(2, lines.length) * leading.paragraph + rowPad);
  blockLabel(layout, labelLines, tags.label);
  layout.y -= layout.style.paragraphGap;
  const offset = baselineIn(leading.paragraph, text.value.size);
  // A P per paragraph of the text (a line that starts its paragraph starts one).
  let paragraph: number | undefined;
  let paragraphText: string | undefined;
  for (const line of lines) {
    if (layout.remaining < leading.paragraph) layout.newPage();
    // (A blank line shows nothing: no element for it.)
    if (line.pieces.length > 0 && (paragraph === undefined || line.start === 0 || line.text !== paragraphText)) paragraph = layout.draw.structure.add("P", tags.body);
    paragraphText = line.text;
    layout.text(text.value, page.marginX, page.contentWidth, layout.y - offset, line, paragraph);
    layout.y -= leading.paragraph;
  }
  layout.y -= rowPad;
  layout.hline(page.marginX, page.marginX + page.contentWidth, layout.y, layout.style.hairline, layout.style.colors.rule);
}

/**
 * An image or signature field: its label, the picture in the value column (scaled to fit, never
 * enlarged past the style's pixels per inch), a signature standing on a rule, the caption under it.
 */
function picture(layout: Layout, list: number, block: Extract<Block, { kind: "picture" }>): void {
  const { page, text, leading, rowPad, picture: p } = layout.style;
  const { image, label, caption: captionText, signature } = block;
  // A Figure whose alternative text is its caption (else its label), the caption after it as text.
  const tags = listItem(layout, list);
  const figure = layout.draw.structure.add("Figure", tags.body, { alt: captionText || label });
  const captionElement = captionText ? layout.draw.structure.add("P", tags.body) : undefined;
  const maxHeight = signature ? p.signatureMaxHeight : p.photoMaxHeight;
  let width = (image.width * 72) / p.ppi;
  let height = (image.height * 72) / p.ppi;
  const fit = Math.min(1, page.valueWidth / width, maxHeight / height);
  width *= fit;
  height *= fit;
  const caption = captionText ? layout.wrap(text.muted, captionText, page.valueWidth) : [];
  const labelLines = layout.wrap(text.label, label, page.labelWidth);
  const ruleGap = signature ? p.signatureGap : 0;
  const total = rowPad + Math.max(height + ruleGap + caption.length * leading.row, labelLines.length * leading.row) + rowPad;
  layout.ensure(total);
  const top = layout.y;
  const offset = baselineIn(leading.row, text.label.size);
  labelLines.forEach((line, i) => layout.text(text.label, page.marginX, page.labelWidth, top - rowPad - i * leading.row - offset, line, tags.label));
  const x = layout.left(page.valueX, width);
  const y = top - rowPad - height;
  layout.image(figure, image, x, y, width, height);
  if (signature) layout.hline(page.valueX, page.valueX + Math.max(width, p.signatureRuleLength), y - 2, p.signatureRuleWidth, layout.style.colors.ink);
  const captionOffset = baselineIn(leading.row, text.value.size);
  caption.forEach((line, i) => layout.text(text.muted, page.valueX, page.valueWidth, y - ruleGap - i * leading.row - captionOffset, line, captionElement));
  layout.y = top - total;
  layout.hline(page.marginX, page.marginX + page.contentWidth, layout.y, layout.style.hairline, layout.style.colors.rule);
}

/**
 * Pictures side by side (a template's photosPerRow: `perRow` columns): each its label above it, the
 * picture scaled to its column, the caption under it; each an item of `list` (Lbl, then a Figure and
 * its caption in LBody), in reading order. The row moves whole to the next page when it does not fit.
 */
function pictureRow(layout: Layout, list: number, blocks: Extract<Block, { kind: "picture" }>[], perRow: number): void {
  const { page, text, leading, rowPad, picture: p, gallery } = layout.style;
  const column = (page.contentWidth - (perRow - 1) * gallery.gap) / perRow;
  const placed = blocks.map((block) => {
    const { image, signature } = block;
    const maxHeight = signature ? p.signatureMaxHeight : p.photoMaxHeight;
    const fit = Math.min(1, column / ((image.width * 72) / p.ppi), maxHeight / ((image.height * 72) / p.ppi));
    const width = ((image.width * 72) / p.ppi) * fit;
    const height = ((image.height * 72) / p.ppi) * fit;
    const labelLines = layout.wrap(text.label, block.label, column);
    const caption = block.caption ? layout.wrap(text.muted, block.caption, column) : [];
    return { block, width, height, labelLines, caption, total: labelLines.length * leading.row + gallery.labelGap + height + caption.length * leading.row };
  });
  const total = rowPad + Math.max(...placed.map((c) => c.total)) + rowPad;
  layout.ensure(total);
  const top = layout.y - rowPad;
  const offset = baselineIn(leading.row, text.label.size);
  placed.forEach(({ block, width, height, labelLines, caption }, i) => {
    const x = page.marginX + i * (column + gallery.gap);
    const tags = listItem(layout, list);
    labelLines.forEach((line, n) => layout.text(text.label, x, column, top - n * leading.row - offset, line, tags.label));
    const figure = layout.draw.structure.add("Figure", tags.body, { alt: block.caption || block.label });
    const imageTop = top - labelLines.length * leading.row - gallery.labelGap;
    layout.image(figure, block.image, layout.left(x, width), imageTop - height, width, height);
    if (caption.length > 0) {
      const captionElement = layout.draw.structure.add("P", tags.body);
      caption.forEach((line, n) => layout.text(text.muted, x, column, imageTop - height - n * leading.row - offset, line, captionElement));
    }
  });
  layout.y -= total;
  layout.hline(page.marginX, page.marginX + page.contentWidth, layout.y, layout.style.hairline, layout.style.colors.rule);
}

/** A section's fields in order: half rows two to a row, pictures `perRow` to a row when more than one. */
function fields(layout: Layout, list: number, blocks: readonly Block[], perRow: number): void {
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    if (b.kind === "row" && b.half) {
      const next = blocks[i + 1];
      const pair = next?.kind === "row" && next.half ? next : undefined;
      halfRow(layout, list, b, pair);
      if (pair) i++;
    } else if (b.kind === "picture" && perRow > 1) {
      const row = [b];
      while (row.length < perRow && blocks[i + 1]?.kind === "picture") row.push(blocks[++i] as Extract<Block, { kind: "picture" }>);
      pictureRow(layout, list, row, perRow);
    } else field(layout, list, b);
  }
}

function field(layout: Layout, list: number, block: Block): void {
  switch (block.kind) {
    case "row":
      labelValueRow(layout, list, block.label, block.value);
      return;
    case "paragraphs":
      paragraphs(layout, list, block.label, block.text);
      return;
    case "table":
      table(layout, list, block);
      return;
    case "picture":
      picture(layout, list, block);
      return;
  }
}

/** Draws the logo scaled into its box, at the top of the first page, its end `end` short of the content's (a Figure: `element`); returns its drawn height. */
function drawLogo(layout: Layout, logo: PreparedImage, element: number, end: number): number {
  const { page, logo: box } = layout.style;
  const fit = Math.min(box.width / logo.width, box.height / logo.height);
  const width = logo.width * fit;
  const height = logo.height * fit;
  const x = layout.left(page.marginX + page.contentWidth - end - width, width);
  layout.image(element, logo, x, layout.y - height, width, height);
  return height;
}

/**
 * The whole document: the head (title beside the logo, object type, target; structure: H1, the
 * logo's Figure with the target's name as its alternative text, a list of the two rows), then each
 * section (Sect with its H2 and a list, L, of its fields, one item, LI: Lbl, LBody, each).
 */
export function layoutDocument(layout: Layout, model: DocumentModel, logo: PreparedImage | undefined, titleCode?: { code: PlacedCode; figure: () => number }): void {
  const { page, text, leading, head, section: sectionStyle, colors } = layout.style;
  const structure = layout.draw.structure;
  const words = layout.fmt.words;
  const headTop = layout.y;
  const heading = structure.add("H1");
  // A template's code at the title's end, the logo before it.
  const codeBox = titleCode ? titleCodeBox(titleCode.code) : { width: 0, height: 0 };
  if (titleCode) drawCode(layout, titleCode.code, 0, page.marginX + page.contentWidth - titleCode.code.width, headTop, titleCode.figure());
  const logoHeight = logo ? drawLogo(layout, logo, structure.add("Figure", 0, { alt: model.targetName }), codeBox.width) : 0;
  const titleWidth = page.contentWidth - codeBox.width - (logo ? layout.style.logo.width + layout.style.logo.gap : 0);
  layout.placeRow({
    cells: [{ x: page.marginX, width: titleWidth, lines: layout.wrap(text.title, model.title, titleWidth), style: text.title, element: heading }],
    leading: leading.title,
    padTop: 0,
    padBottom: head.titleBelow,
  });
  layout.y = Math.min(layout.y, headTop - logoHeight - layout.style.logo.below, headTop - codeBox.height);
  const about = structure.add("L");
  labelValueRow(layout, about, words.objectType, model.objectTypeName, false);
  labelValueRow(layout, about, words.target, model.targetName, false);
  layout.y -= head.ruleAbove;
  layout.hline(page.marginX, page.marginX + page.contentWidth, layout.y, head.ruleWidth, colors.accent);
  layout.y -= head.ruleBelow;

  for (const section of model.sections) {
    const sect = structure.add("Sect");
    const headingElement = structure.add("H2", sect);
    const list = structure.add("L", sect);
    const headingLines = layout.wrap(text.section, section.title, page.contentWidth);
    const headingHeight = sectionStyle.above + headingLines.length * leading.section + sectionStyle.below + sectionStyle.after;
    // Keep the heading with the start of its first field (room for about four rows, which also
    // covers a table's label, header and first rows or a paragraph's label and first lines).
    layout.ensure(headingHeight + sectionStyle.keepWithNext);
    layout.keepWithNext(headingElement, () => {
      layout.placeRow({
        cells: [{ x: page.marginX, width: page.contentWidth, lines: headingLines, style: text.section, element: headingElement }],
        leading: leading.section,
        padTop: sectionStyle.above,
        padBottom: sectionStyle.below,
        frame: (_top, bottom) => layout.hline(page.marginX, page.marginX + page.contentWidth, bottom, sectionStyle.ruleWidth, colors.accent),
      });
      layout.y -= sectionStyle.after;
    });
    fields(layout, list, section.blocks, section.photosPerRow);
  }
  if (model.sections.length === 0) {
    layout.y -= layout.style.noSectionsAbove;
    layout.placeRow({
      cells: [{ x: page.marginX, width: page.contentWidth, lines: layout.wrap(text.muted, words.noSections, page.contentWidth), style: text.muted, element: structure.add("P") }],
      leading: leading.row,
      padTop: 0,
      padBottom: 0,
    });
  }
}
