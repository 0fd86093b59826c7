import { ensureDebianPackage } from "../stack/debianPackages";

/**
 * The unit tests read PDFs back with poppler (pdftotext, pdfinfo, pdftoppm, pdfsig) and qpdf (--check, --json),
 * barcodes on rasterised pages with zbar (QR, Code 128) and libdmtx (Data Matrix), and trust the test CA of
 * signed PDFs in an NSS database with certutil (libnss3-tools): installed here when missing.
 */
export default function setup(): void {
  for (const [pkg, binary] of [
    ["poppler-utils", "/usr/bin/pdftotext"],
    ["qpdf", "/usr/bin/qpdf"],
    ["zbar-tools", "/usr/bin/zbarimg"],
    ["dmtx-utils", "/usr/bin/dmtxread"],
    ["libnss3-tools", "/usr/bin/certutil"],
  ]) {
    const reason = ensureDebianPackage(pkg, binary, (line) => console.log(line));
    if (reason) throw new Error(`${pkg} is needed to read PDFs, barcodes and signatures back: ${reason}`);
  }
}
