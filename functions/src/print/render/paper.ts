// Settings of a page that need no renderer to be read (the settings routes import them).

/** Portrait paper sizes, width x height in PDF points. */
export const PAPER_SIZES = { A4: [595.28, 841.89], Letter: [612, 792], Legal: [612, 1008] } as const;
export type PaperSize = keyof typeof PAPER_SIZES;
/** The paper sizes' names, as zod enums take them. */
export const PAPER_SIZE_NAMES = Object.keys(PAPER_SIZES) as [PaperSize, ...PaperSize[]];
export const DEFAULT_PAPER_SIZE: PaperSize = "A4";

/** What a PDF conforms to: always tagged (PDF/UA-1); also archival (PDF/A-2u) on request. */
export const CONFORMANCE_NAMES = ["PDF/UA-1", "PDF/A-2u"] as const;
export type Conformance = (typeof CONFORMANCE_NAMES)[number];
export const DEFAULT_CONFORMANCE: Conformance = "PDF/UA-1";

/** The accent colour (headings and rules) when the settings name none. */
export const DEFAULT_ACCENT_COLOR = "#1c4073";
