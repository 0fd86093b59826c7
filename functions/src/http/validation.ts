import { z } from "zod";
import { badRequest } from "./errors";
import { idProblem } from "./ids";

/** Parses `value` with `schema`, or throws a 400 whose message names each offending field. */
export function parseOr400<S extends z.ZodType>(schema: S, value: unknown, where: "query" | "body"): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys") {
      return `unknown ${where === "query" ? "query parameter" : "field"}${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `'${k}'`).join(", ")}`;
    }
    const field = issue.path.length > 0 ? `'${issue.path.join(".")}'` : where;
    return `${field}: ${issue.message}`;
  });
  throw badRequest(`Invalid ${where}: ${problems.join("; ")}.`);
}

/** A query parameter holding a whole number in [min, max], with a default. */
export const intParam = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .default(fallback);

/** A Firestore document id as a body field (same rules as ids in the path). */
export const idField = z.string().superRefine((value, ctx) => {
  const problem = idProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: `is not a valid id: it ${problem}` });
});
