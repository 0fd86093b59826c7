import { inflateSync } from "node:zlib";
import { PDFName, type PDFRawStream } from "pdf-lib";
import { extractText, getDocumentProxy } from "unpdf";

/** The text of every page of a PDF, joined, as a reader would copy it. */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const { text } = await extractText(pdf, { mergePages: true });
  return text;
}

/** A stream's data, inflated when it is compressed (the renderer leaves streams under 1 KiB as they are). */
export function streamData(stream: PDFRawStream): Buffer {
  const raw = Buffer.from(stream.getContents());
  return stream.dict.get(PDFName.of("Filter")) === PDFName.of("FlateDecode") ? inflateSync(raw) : raw;
}
