import { notImplemented } from "./errors";

/** The handler of a route whose behaviour is not built yet: a JSON 501 after the full pipeline. */
export const pending = (what: string) => async (): Promise<void> => {
  throw notImplemented(`${what} is not available yet.`);
};
