import { badRequest } from "./errors";

/** The longest id accepted in a path (Firebase Auth uids are at most 128 characters too). */
export const MAX_ID_LENGTH = 128;

/**
 * Why `id` cannot name a Firestore document or an Auth user, or undefined when it can. Firestore
 * forbids `/`, `.`, `..` and ids of the form `__x__`; control characters are refused because no
 * id in this product has them and they only ever appear in probes.
 */
export function idProblem(id: string): string | undefined {
  if (id.length === 0) return "is empty";
  if (id.length > MAX_ID_LENGTH) return `is longer than ${MAX_ID_LENGTH} characters`;
  if (id.includes("/")) return "contains a slash";
  if (id === "." || id === "..") return "is a dot segment";
  if (/^__.*__$/.test(id)) return "is reserved (__...__)";
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(id)) return "contains a control character";
  return undefined;
}

/** Throws a 400 naming the parameter when `id` is not a valid id. */
export function assertValidId(name: string, id: string): string {
  const problem = idProblem(id);
  if (problem) throw badRequest(`Invalid ${name}: it ${problem}.`);
  return id;
}
