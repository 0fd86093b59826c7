import { extractText, getDocumentProxy } from "unpdf";

/** The text of every page of a PDF, joined, as a reader would copy it. */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const { text } = await extractText(pdf, { mergePages: true });
  return text;
}
