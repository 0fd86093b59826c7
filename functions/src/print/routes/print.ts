import { z } from "zod";
import { pending } from "../../http/pending";
import { defineRoute } from "../../http/routes";
import { PRINT_PERMISSIONS } from "./permissions";

/** The object instance to print, by id (SPEC.md 4.1). */
const printBody = z.strictObject({
  objectInstanceId: z.string().min(1).max(128),
});

/** SPEC.md 4.1: renders an object instance to a PDF and answers with a download URL. */
export const print = defineRoute({
  method: "post",
  path: "/print",
  anyOf: PRINT_PERMISSIONS,
  body: printBody,
  handle: pending("Printing"),
});
