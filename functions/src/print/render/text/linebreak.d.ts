// The linebreak package (UAX #14) ships no types.
declare module "linebreak" {
  class LineBreaker {
    constructor(text: string);
    /** The next break opportunity: `position` is where the next line may start. */
    nextBreak(): { position: number; required: boolean } | null;
  }
  export = LineBreaker;
}
