import { ensureDebianPackage } from "../stack/debianPackages";

/** The unit tests read PDFs back with poppler (pdftotext, pdftoppm): installed here when missing. */
export default function setup(): void {
  const reason = ensureDebianPackage("poppler-utils", "/usr/bin/pdftotext", (line) => console.log(line));
  if (reason) throw new Error(`poppler-utils is needed to read PDFs back: ${reason}`);
}
