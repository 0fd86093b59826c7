// The structure tree as bytes (ISO 32000-1, 14.7): written straight into the file stage's packed
// objects, one object per structure element.

import { utf16Hex } from "./content";
import { writeInt, writeRef, writeText, type PackedObjects } from "./file";
import { Ref, type PdfObjects } from "./objects";
import type { Structure } from "./tags";

/** A PDF text string of any text: UTF-16BE in hex. */
const textString = (text: string): string => `<FEFF${utf16Hex(text)}>`;

/**
 * The structure tree (ISO 32000-1, 14.7): the root, an element per structure element (its kids:
 * child elements and marked content, by MCID on the element's page, or as a marked-content reference
 * on another page; an annotation, `annotationRefs[i]` for the structure's i-th, as an object
 * reference) and the ParentTree (per page, the element of each MCID; per annotation, its element under
 * the key `pageRefs.length + i`, the annotation's /StructParent). The elements (one per
 * table cell: 20,000 in the benchmark's 2,000-row table) are written as bytes under object numbers
 * reserved here, for the file writer: far faster than as objects of values (objects.ts).
 */
export function writeStructure(objects: PdfObjects, structure: Structure, pageRefs: readonly Ref[], out: PackedObjects, annotationRefs: readonly Ref[] = []): Ref {
  const { types, parents, extras, kidCounts, firstKids, firstPages, kids, kidPages, nextKids, marks, annotations } = structure;
  if (annotationRefs.length !== annotations.length) throw new Error(`writeStructure: ${annotations.length} annotations in the structure, ${annotationRefs.length} given`);
  const count = structure.count;
  const rootNumber = objects.reserve();
  const base = objects.reserve(count + 1); // the elements, then the ParentTree
  const pages = pageRefs.map((r) => `${r.number} 0 R`);
  // Per element with annotations (a form field's widget), their object references: <</Type/OBJR/Obj n 0 R/Pg page>>.
  const objrs = new Map<number, string[]>();
  annotations.forEach(({ element, page }, i) => {
    const objr = `<</Type/OBJR/Obj ${annotationRefs[i].number} 0 R/Pg ${pages[page]}>>`;
    objrs.set(element, [...(objrs.get(element) ?? []), objr]);
  });
  // The constant runs of bytes are stored one by one (their text in the comment above them): a call
  // per run (PackedObjects.text) took half again the time of the whole loop (measured: 15 µs against
  // 10 µs for the one-page case's 105 elements, in a loop; a table can have 20,000).
  for (let i = 0; i < count; i++) {
    const type = types[i];
    const elementObjrs = objrs.size > 0 ? objrs.get(i) : undefined;
    const kidCount = kidCounts[i] + (elementObjrs?.length ?? 0);
    const extra = extras.size > 0 ? extras.get(i) : undefined;
    const altText = extra?.alt === undefined ? undefined : textString(extra.alt);
    const replacement = extra?.actualText === undefined ? undefined : textString(extra.actualText);
    // Room: the keys, numbers of 10 digits at most, a marked-content reference per kid at most, the texts.
    out.begin(base + i, 160 + kidCount * 64 + (altText?.length ?? 0) + (replacement?.length ?? 0));
    const b = out.bytesOut;
    let at = out.position;
    // <</S/type/P parent 0 R  (Type is optional: 16 bytes less per element, 20,000 in a large table)
    b[at] = 0x3c; b[at + 1] = 0x3c; b[at + 2] = 0x2f; b[at + 3] = 0x53; b[at + 4] = 0x2f;
    at = writeText(b, at + 5, type);
    b[at] = 0x2f; b[at + 1] = 0x50; b[at + 2] = 0x20;
    at = writeRef(b, at + 3, parents[i] < 0 ? rootNumber : base + parents[i]);
    // /Pg page: the page of its first marked content, which MCIDs of that page need no more.
    const page = firstPages[i];
    if (page >= 0) {
      b[at] = 0x2f; b[at + 1] = 0x50; b[at + 2] = 0x67; b[at + 3] = 0x20;
      at = writeText(b, at + 4, pages[page]);
    }
    // /K kid, or /K [kid kid ...]
    b[at] = 0x2f; b[at + 1] = 0x4b; b[at + 2] = 0x20;
    at += 3;
    if (kidCount !== 1) b[at++] = 0x5b;
    for (let kid = firstKids[i]; kid >= 0; kid = nextKids[kid]) {
      const value = kids[kid];
      if (kid !== firstKids[i]) b[at++] = 0x20;
      if (value >= 0) at = writeRef(b, at, base + value);
      else if (kidPages[kid] === page) at = writeInt(b, at, -1 - value);
      else {
        // <</Type/MCR/Pg page/MCID n>>: marked content on another page than the element's first.
        at = writeText(b, writeText(b, at, "<</Type/MCR/Pg "), pages[kidPages[kid]]);
        at = writeText(b, writeInt(b, writeText(b, at, "/MCID "), -1 - value), ">>");
      }
    }
    if (elementObjrs) {
      for (let k = 0; k < elementObjrs.length; k++) {
        if (k > 0 || kidCounts[i] > 0) b[at++] = 0x20;
        at = writeText(b, at, elementObjrs[k]);
      }
    }
    if (kidCount !== 1) b[at++] = 0x5d;
    if (altText !== undefined) at = writeText(b, writeText(b, at, "/Alt "), altText);
    if (replacement !== undefined) at = writeText(b, writeText(b, at, "/ActualText "), replacement);
    if (extra?.scope) at = writeText(b, at, `/A<</O/Table/Scope/${extra.scope}>>`);
    else if (type === "L") at = writeText(b, at, "/A<</O/List/ListNumbering/None>>");
    b[at] = 0x3e; b[at + 1] = 0x3e;
    out.end(at + 2);
  }
  // The ParentTree: <</Nums [page [element element ...] page [...] ... key element ...]>>, an element
  // per MCID, then per annotation its element, under keys from the page count on (room: 16 bytes a
  // page and a reference, whose numbers take 10 digits at most: writeInt's 32-bit range; 32 a key
  // and an element).
  let mcids = 0;
  for (const elementsOfPage of marks) mcids += elementsOfPage.length;
  out.begin(base + count, 16 + marks.length * 16 + mcids * 16 + annotations.length * 32);
  const b = out.bytesOut;
  let at = writeText(b, out.position, "<</Nums [");
  for (let page = 0; page < marks.length; page++) {
    const elementsOfPage = marks[page];
    if (page > 0) b[at++] = 0x20;
    at = writeText(b, writeInt(b, at, page), " [");
    for (let mcid = 0; mcid < elementsOfPage.length; mcid++) {
      if (mcid > 0) b[at++] = 0x20;
      at = writeRef(b, at, base + elementsOfPage[mcid]);
    }
    b[at++] = 0x5d;
  }
  for (let i = 0; i < annotations.length; i++) {
    if (i > 0 || marks.length > 0) b[at++] = 0x20;
    at = writeRef(b, writeText(b, writeInt(b, at, pageRefs.length + i), " "), base + annotations[i].element);
  }
  out.end(writeText(b, at, "]>>"));
  out.begin(rootNumber, 160);
  out.text("<</Type/StructTreeRoot/K ").ref(base).text("/ParentTree ").ref(base + count).text("/ParentTreeNextKey ").int(pageRefs.length + annotations.length).text(">>").end();
  return new Ref(rootNumber);
}
