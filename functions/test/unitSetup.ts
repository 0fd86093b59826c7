import { ensureDebianPackage } from "../stack/debianPackages";

/** The unit tests read PDFs back with poppler (pdftotext, pdfinfo, pdftoppm) and qpdf (--check, --json): installed here when missing. */
export default function setup(): void {
  for (const [pkg, binary] of [
    ["poppler-utils", "/usr/bin/pdftotext"],
    ["qpdf", "/usr/bin/qpdf"],
  ]) {
    const reason = ensureDebianPackage(pkg, binary, (line) => console.log(line));
    if (reason) throw new Error(`${pkg} is needed to read PDFs back: ${reason}`);
  }
}
