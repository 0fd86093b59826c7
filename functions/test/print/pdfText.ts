import { inflateSync } from "node:zlib";
import { PDFName, type PDFRawStream } from "pdf-lib";
import { extractText, getDocumentProxy } from "unpdf";

/** The text of every page of a PDF, joined, as a reader would copy it. */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const { text } = await extractText(pdf, { mergePages: true });
  return text;
}

/** The first page's text items (pdf.js), each with where it starts and ends across the page, in points. */
export async function pdfjsItems(bytes: Uint8Array): Promise<{ str: string; x: number; right: number }[]> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  try {
    const content = await (await pdf.getPage(1)).getTextContent();
    return content.items
      .filter((i) => "str" in i && i.str.trim() !== "")
      .map((i) => ("str" in i ? { str: i.str, x: i.transform[4], right: i.transform[4] + i.width } : { str: "", x: 0, right: 0 }));
  } finally {
    await pdf.loadingTask.destroy();
  }
}

/** A stream's data, inflated when it is compressed (the renderer leaves streams under 1 KiB as they are). */
export function streamData(stream: PDFRawStream): Buffer {
  const raw = Buffer.from(stream.getContents());
  return stream.dict.get(PDFName.of("Filter")) === PDFName.of("FlateDecode") ? inflateSync(raw) : raw;
}
