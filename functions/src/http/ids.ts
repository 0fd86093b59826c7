import { badRequest } from "./errors";

/** The longest id accepted in a path (Firebase Auth uids are at most 128 characters too). */
export const MAX_ID_LENGTH = 128;

/** Bidi embeddings, overrides and isolates: invisible, they reorder the text around them wherever it is shown. */
export const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/;
/** Line and paragraph separators, and bidi marks. */
const SEPARATORS_AND_MARKS = /[\u2028\u2029\u200e\u200f]/;

/**
 * Why `id` cannot name a Firestore document or an Auth user, or undefined when it can. Firestore
 * forbids `/`, `.`, `..` and ids of the form `__x__`; control characters (C0, DEL, C1), line
 * separators and bidi controls are refused because no id in this product has them and they only
 * ever appear in probes.
 */
export function idProblem(id: string): string | undefined {
  if (id.length === 0) return "is empty";
  if (id.length > MAX_ID_LENGTH) return `is longer than ${MAX_ID_LENGTH} characters`;
  if (id.includes("/")) return "contains a slash";
  if (id === "." || id === "..") return "is a dot segment";
  if (/^__.*__$/.test(id)) return "is reserved (__...__)";
  if (/\p{Cc}/u.test(id)) return "contains a control character";
  // Invisible, and they reorder or break the text around them in every message, log line and page that shows the id.
  if (SEPARATORS_AND_MARKS.test(id) || BIDI_CONTROLS.test(id)) return "contains a line separator or a bidi control";
  return undefined;
}

/** Throws a 400 naming the parameter when `id` is not a valid id. */
export function assertValidId(name: string, id: string): string {
  const problem = idProblem(id);
  if (problem) throw badRequest(`Invalid ${name}: it ${problem}.`);
  return id;
}
