import { z } from "zod";
import { badRequest } from "./errors";
import { idProblem } from "./ids";
import { TIMESTAMP_SECONDS } from "./pageToken";

/** Unknown keys an answer names (the rest are counted). */
const MAX_KEYS_NAMED = 10;
/** Problems an answer names (the rest are counted): a body of thousands of bad items gets a short answer. */
const MAX_PROBLEMS_NAMED = 20;

/** A UTF-16 surrogate on its own (in a u-mode regex a pair is one code point): JSON can carry one, UTF-8 cannot. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * The path of a string (or key) in `value` that is not well-formed Unicode, if there is one. Walked
 * with a stack of its own, not by recursion: a 100 KiB body can nest thousands of levels deep.
 */
function illFormedAt(value: unknown): string[] | undefined {
  interface Node {
    value: unknown;
    key?: string;
    parent?: Node;
  }
  const pathOf = (node: Node | undefined): string[] => {
    const path: string[] = [];
    for (let at = node; at?.key !== undefined; at = at.parent) path.push(at.key);
    return path.reverse();
  };
  const pending: Node[] = [{ value }];
  for (let node = pending.pop(); node; node = pending.pop()) {
    if (typeof node.value === "string") {
      if (LONE_SURROGATE.test(node.value)) return pathOf(node);
    } else if (typeof node.value === "object" && node.value !== null) {
      for (const [key, item] of Object.entries(node.value)) {
        if (LONE_SURROGATE.test(key)) return pathOf(node);
        pending.push({ value: item, key, parent: node });
      }
    }
  }
  return undefined;
}

/**
 * Parses `value` with `schema`, or throws a 400 whose message names each offending field. Text that
 * is not well-formed Unicode is refused first, whatever the field: Firestore, Storage and the PDF all
 * need UTF-8, and would fail on it (a 500) or store something else than was answered.
 */
export function parseOr400<S extends z.ZodType>(schema: S, value: unknown, where: "query" | "body"): z.infer<S> {
  const illFormed = illFormedAt(value);
  if (illFormed) {
    const path = illFormed.join(".");
    const field = illFormed.length === 0 ? where : `'${path.length > 100 ? `${path.slice(0, 100)}...` : path}'`;
    throw badRequest(`Invalid ${where}: ${field}: is not well-formed Unicode (a lone UTF-16 surrogate).`);
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  // A value of the wrong type is said once: zod may add checks of the same place that mean nothing then.
  const wrongType = new Set(result.error.issues.filter((issue) => issue.code === "invalid_type").map((issue) => issue.path.join(".")));
  const issues = result.error.issues.filter((issue) => issue.code === "invalid_type" || !wrongType.has(issue.path.join(".")));
  const problems = issues.slice(0, MAX_PROBLEMS_NAMED).map((issue) => {
    const field = issue.path.length > 0 ? `'${issue.path.join(".")}'` : where;
    if (issue.code === "unrecognized_keys") {
      // The first few, cut short: a body of thousands of made-up keys gets a short answer.
      const shown = issue.keys.slice(0, MAX_KEYS_NAMED).map((k) => `'${k.length > 64 ? `${k.slice(0, 64)}...` : k}'`);
      const more = issue.keys.length > MAX_KEYS_NAMED ? ` and ${issue.keys.length - MAX_KEYS_NAMED} more` : "";
      const unknown = `unknown ${where === "query" ? "query parameter" : "field"}${issue.keys.length > 1 ? "s" : ""} ${shown.join(", ")}${more}`;
      // Of a nested object, where it is (e.g. 'sections.0': unknown field 'feilds').
      return issue.path.length > 0 ? `${field}: ${unknown}` : unknown;
    }
    // A problem of the whole (its type, its size) is said as it is: "body: ..." would name what the message already names.
    return issue.path.length > 0 ? `${field}: ${issue.message}` : issue.message;
  });
  const more = issues.length > MAX_PROBLEMS_NAMED ? `; and ${issues.length - MAX_PROBLEMS_NAMED} more problem(s)` : "";
  throw badRequest(`Invalid ${where}: ${problems.join("; ")}${more}.`);
}

/** A query parameter holding a whole number in [min, max], with a default. */
export const intParam = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    // Past a safe integer (Infinity past 309 digits) all the same: too large, said once (by int).
    .transform((digits) => Math.min(Number(digits), Number.MAX_SAFE_INTEGER + 1))
    .pipe(z.number().int({ error: `must be at most ${max}`, abort: true }).min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .default(fallback);

/** A Firestore document id as a body field (same rules as ids in the path). */
export const idField = z.string().superRefine((value, ctx) => {
  const problem = idProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: `is not a valid id: it ${problem}` });
});

/** What a single line of text may not hold: control characters (CR, LF, tab, NUL, ESC, C1) and line or paragraph separators. */
const NOT_IN_ONE_LINE = "\\p{Cc}\\u2028\\u2029";
/** One line of text. */
export const ONE_LINE = new RegExp(`^[^${NOT_IN_ONE_LINE}]*$`, "u");
export const ONE_LINE_MESSAGE = "must be a single line without control characters";
const NOT_ONE_LINE_CHARACTERS = new RegExp(`[${NOT_IN_ONE_LINE}]`, "gu");
/** `text` with what a single line may not hold turned into spaces (text stored before ONE_LINE applied). */
export const asOneLine = (text: string): string => text.replace(NOT_ONE_LINE_CHARACTERS, " ");

/** An optional time with an offset (Z or ±hh:mm) a Firestore query can compare with (z.iso.datetime also takes years 0 and 9999 with offsets beyond). */
export const queryTime = (description: string) =>
  z.iso
    .datetime({ offset: true })
    // (Run on a value that failed the format as well: that one has its issue already.)
    .refine((t) => {
      const seconds = Math.floor(Date.parse(t) / 1000);
      return Number.isNaN(seconds) || (seconds >= TIMESTAMP_SECONDS.min && seconds <= TIMESTAMP_SECONDS.max);
    }, "must be between the years 1 and 9999 (UTC)")
    .optional()
    .meta({ description });
