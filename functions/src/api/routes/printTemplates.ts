import { z } from "zod";
import { auditInTransaction } from "../../audit";
import { db, firestoreSdk } from "../../firebase";
import { conflict, notFound } from "../../http/errors";
import { defineRoute } from "../../http/routes";
import { printTemplateSchema, TEMPLATE_LIMITS } from "../../print/templates/schema";
import { storedVersion, templateDocument, templateNotOnChain, templateOnChain, templatePath, templatesOnChain, templatesPath, type ChainTemplate } from "../../print/templates/store";

// A target's print templates (issue 35): read, saved and deleted by its ADMINs, like its print
// settings. A template is found on the target's chain (its own first, then each target above it);
// a save or a deletion changes the target's own only, audited in the same transaction.

/** Where a template comes from, with its version: what every answer adds to the template. */
const provenance = {
  version: z.int().min(1).describe("1 when created, one more on every save."),
  updatedAt: z.iso.datetime().nullable().describe("When it was last saved (null for a template stored without it)."),
  source: z.string().describe("Document path of the target that holds it: this one, or one above it (inherited).").meta({ examples: ["organizations/acme"] }),
  own: z.boolean().describe("Held by this target itself; false: inherited from the target named by source."),
};
const templateIdField = z.string().describe("The template's id (the last segment of its path).");

/** A template as the answers show it: its id, the whole template, and where it comes from. */
const templateData = z.strictObject({ templateId: templateIdField, ...printTemplateSchema.shape, ...provenance });
/** A template as the list shows it. */
const templateSummary = z.strictObject({ templateId: templateIdField, name: z.string(), objectTypeNames: z.array(z.string()), ...provenance });

const templateResponse = (description: string) => ({
  status: 200 as const,
  description,
  schema: z.strictObject({ statusCode: z.literal(200), message: z.string(), data: templateData }),
});

const provenanceOf = (found: Pick<ChainTemplate, "version" | "updatedAt" | "source" | "own">) => ({
  version: found.version,
  updatedAt: found.updatedAt ? found.updatedAt.toDate().toISOString() : null,
  source: found.source,
  own: found.own,
});

const asData = (found: ChainTemplate): z.infer<typeof templateData> => ({ templateId: found.templateId, ...found.template, ...provenanceOf(found) });

/** The templates a target prints with: its own and those it inherits, nearest first. ADMIN. */
export const listPrintTemplates = defineRoute({
  method: "get",
  path: "/print-templates",
  summary: "List the print templates of a target: its own and those inherited from the targets above it, nearest first",
  anyOf: ["ADMIN"],
  response: {
    status: 200,
    description: "The templates, nearest first (the target's own, then its parent's, ...; by id within a target). Of two templates with the same id, the first listed is the one that prints.",
    schema: z.strictObject({ statusCode: z.literal(200), message: z.string(), data: z.array(templateSummary) }),
  },
  async handle({ access }) {
    const templates = await templatesOnChain(access.chain);
    const data = templates.map((found) => ({ templateId: found.templateId, name: found.template.name, objectTypeNames: found.template.objectTypeNames, ...provenanceOf(found) }));
    return { statusCode: 200 as const, message: `${data.length} print template(s).`, data };
  },
});

/** One template: the nearest of that id on the target's chain. ADMIN. */
export const getPrintTemplate = defineRoute({
  method: "get",
  path: "/print-templates/:templateId",
  summary: "Read a print template: the nearest of that id on the target's chain (its own, else inherited)",
  anyOf: ["ADMIN"],
  response: templateResponse("The template, with where it comes from."),
  errors: { 404: "No template of that id on the target or the targets above it." },
  async handle({ access, params }) {
    const found = await templateOnChain(access.chain, params.templateId);
    if (!found) throw templateNotOnChain(params.templateId);
    return { statusCode: 200 as const, message: "Print template.", data: asData(found) };
  },
});

/** Saves a template as the target's own (creating it, or replacing it with the next version). ADMIN. */
export const putPrintTemplate = defineRoute({
  method: "put",
  path: "/print-templates/:templateId",
  summary: "Save a print template as the target's own (a new one is version 1; each save adds one)",
  anyOf: ["ADMIN"],
  body: printTemplateSchema,
  reads: ({ path, params }) => [templatePath(path, params.templateId)],
  transactional: true,
  response: templateResponse("The template as saved, with its new version."),
  errors: {
    400: "No body at all, or a template the schema refuses: an unknown field, a value out of range, an unknown placeholder, over 200 sections or 2,000 fields, over 64 KiB of JSON (the message names the JSON path of each problem).",
    409: "A new template on a target that already holds 100 of its own: delete one first.",
  },
  async handle({ access, caller, params, body: template, docs: [previous], tx }) {
    // A new template within the target's bound: the list reads them all, and each print queries them.
    // Read in the transaction, so that two saves at once cannot both take the last place.
    if (!previous.exists) {
      const own = await tx.get(db().collection(templatesPath(access.path)).select().limit(TEMPLATE_LIMITS.perTarget));
      if (own.size >= TEMPLATE_LIMITS.perTarget) throw conflict(`This target holds ${TEMPLATE_LIMITS.perTarget} print templates, as many as a target may: delete one before saving a new one (saving an existing one is always possible).`);
    }
    const version = (storedVersion(previous.data()) ?? 0) + 1;
    // The function's clock rather than the server's: the answer shows the time it stored.
    const updatedAt = firestoreSdk().Timestamp.now();
    tx.set(previous.ref, templateDocument(template, version, updatedAt, caller.uid));
    const { templateId } = params;
    auditInTransaction(tx, access, caller, { action: "print_template.saved", subject: templateId, details: { templateId, version, name: template.name, objectTypeNames: template.objectTypeNames } });
    const saved: ChainTemplate = { templateId, template, version, updatedAt, updatedBy: caller.uid, source: access.path, own: true };
    return { statusCode: 200 as const, message: version === 1 ? "Print template created." : "Print template saved.", data: asData(saved) };
  },
});

/** Deletes the target's own template of that id (what it inherits is deleted where it is held). ADMIN. */
export const deletePrintTemplate = defineRoute({
  method: "delete",
  path: "/print-templates/:templateId",
  summary: "Delete a print template of the target's own (an inherited one is deleted on the target that holds it)",
  anyOf: ["ADMIN"],
  reads: ({ path, params }) => [templatePath(path, params.templateId)],
  transactional: true,
  response: {
    status: 200,
    description: "The template is deleted; the target prints with what it inherits of that id, if anything.",
    schema: z.strictObject({
      statusCode: z.literal(200),
      message: z.string(),
      data: z.strictObject({ templateId: templateIdField, version: z.int().min(1).nullable().describe("The version deleted (null for a document stored without one).") }),
    }),
  },
  errors: { 404: "The target holds no template of that id (an inherited one is deleted on the target that holds it)." },
  async handle({ access, caller, params: { templateId }, docs: [own], tx }) {
    if (!own.exists) {
      // Read outside the transaction: it only chooses the message.
      const inherited = await templateOnChain(access.chain, templateId);
      if (inherited) throw notFound(`Print template '${templateId}' is not this target's own: it is inherited from ${inherited.source}, where it can be deleted.`);
      throw templateNotOnChain(templateId);
    }
    // A document that fails the schema is deleted all the same: it is the target's own, and prints nothing.
    const version = storedVersion(own.data()) ?? null;
    const name: unknown = own.get("name");
    const named = typeof name === "string" && name.length <= TEMPLATE_LIMITS.line;
    tx.delete(own.ref);
    auditInTransaction(tx, access, caller, { action: "print_template.deleted", subject: templateId, details: { templateId, version, ...(named && { name }) } });
    return { statusCode: 200 as const, message: "Print template deleted.", data: { templateId, version } };
  },
});
