import { ensureDebianPackage } from "../stack/debianPackages";

/**
 * The unit tests read PDFs back with poppler (pdftotext, pdfinfo, pdftoppm) and qpdf (--check, --json),
 * and barcodes on rasterised pages with zbar (QR, Code 128) and libdmtx (Data Matrix): installed here when missing.
 */
export default function setup(): void {
  for (const [pkg, binary] of [
    ["poppler-utils", "/usr/bin/pdftotext"],
    ["qpdf", "/usr/bin/qpdf"],
    ["zbar-tools", "/usr/bin/zbarimg"],
    ["dmtx-utils", "/usr/bin/dmtxread"],
  ]) {
    const reason = ensureDebianPackage(pkg, binary, (line) => console.log(line));
    if (reason) throw new Error(`${pkg} is needed to read PDFs and barcodes back: ${reason}`);
  }
}
