// The renderer's own bounds, checked while it works (RenderOptions.maxPages, maxLines, maxRuns): what
// a document costs is known only once it is laid out, so each stage stops as soon as one is passed.

export type LayoutLimit = "pages" | "lines" | "runs";

/** Thrown while laying out a document that would take more pages, lines or runs than the caller allows. */
export class LayoutLimitExceeded extends Error {
  constructor(
    readonly what: LayoutLimit,
    readonly limit: number,
  ) {
    super(`The document takes more than ${limit} ${what}.`);
    this.name = "LayoutLimitExceeded";
  }
}
