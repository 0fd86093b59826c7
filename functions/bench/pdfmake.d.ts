// The part of pdfmake 0.3's server-side API the benchmark uses (the package ships no types).
declare module "pdfmake" {
  interface PdfMakeOutput {
    getBuffer(): Promise<Buffer>;
  }
  interface PdfMake {
    createPdf(docDefinition: Record<string, unknown>, options?: Record<string, unknown>): PdfMakeOutput;
    addFonts(fonts: Record<string, { normal: string; bold: string; italics: string; bolditalics: string }>): void;
    setUrlAccessPolicy(policy: (url: string) => boolean): void;
    setLocalAccessPolicy(policy: (path: string) => boolean): void;
  }
  const pdfmake: PdfMake;
  export = pdfmake;
}
