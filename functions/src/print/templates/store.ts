// Print templates as Firestore stores them (issue 35): `{target}/printTemplates/{templateId}`, found
// like the print settings: the target's own first, then each target above it (organization >
// tenant > division; a site stands alone, its chain is itself). Only the chain is ever read: a
// template of another tenant is never found, and nothing answers whether one exists.
//
// No cache: a saved template must take effect on the next print, and each lookup is one Firestore
// round trip (a getAll of one document per level by id, or one small query per level in parallel by
// object type), about what reading the object instance costs. An instance cache would have to be
// shorter than the few seconds an editor waits between saving and printing to be right, and would
// then rarely be hit.

import type { DocumentData, DocumentSnapshot, Timestamp } from "firebase-admin/firestore";
import { db, firestoreSdk } from "../../firebase";
import type { TargetNode } from "../../http/access";
import { firestoreCall } from "../../http/deadline";
import { notFound } from "../../http/errors";
import { assertValidId } from "../../http/ids";
import * as logs from "../../logs";
import type { DocumentTemplate } from "../render/template";
import { asDocumentTemplate, printTemplateSchema, TEMPLATE_LIMITS, type PrintTemplate } from "./schema";

/** The collection of a target's templates. */
export const templatesPath = (targetPath: string) => `${targetPath}/printTemplates`;
/** The document of one template of a target. */
export const templatePath = (targetPath: string, templateId: string) => `${templatesPath(targetPath)}/${templateId}`;

/** A stored template, checked: the template, and what its document holds besides. */
export interface StoredTemplate {
  templateId: string;
  template: PrintTemplate;
  /** 1 when created, one more on every save. */
  version: number;
  /** When it was last saved (null: a document written without it, by another system). */
  updatedAt: Timestamp | null;
  /** The uid who last saved it (null: as updatedAt). */
  updatedBy: string | null;
}

/** A template found on a target's chain. */
export interface ChainTemplate extends StoredTemplate {
  /** The document path of the target that holds it: the target or one above it. */
  source: string;
  /** Held by the target itself (not inherited). */
  own: boolean;
}

/** What the renderer takes, and where it comes from. */
export interface FoundTemplate {
  template: DocumentTemplate;
  templateId: string;
  version: number;
  source: string;
}

/** The document a save writes: the template's fields as the schema gave them, and its version. */
export const templateDocument = (template: PrintTemplate, version: number, updatedAt: Timestamp, updatedBy: string): DocumentData => ({ ...template, version, updatedAt, updatedBy });

/** The version a stored document holds, when it is one (1 or more, whole): the next save's is one more. */
export function storedVersion(data: DocumentData | undefined): number | undefined {
  const version: unknown = data?.version;
  return typeof version === "number" && Number.isSafeInteger(version) && version >= 1 ? version : undefined;
}

/** Where and of which kind the first problems of a stored template are: never the stored text. */
function problemsOf(issues: readonly { path: PropertyKey[]; code: string }[]): string {
  const shown = issues.slice(0, 5).map((issue) => `'${issue.path.map(String).join(".") || "(document)"}' (${issue.code})`);
  return `${shown.join(", ")}${issues.length > 5 ? ` and ${issues.length - 5} more` : ""}`;
}

/**
 * The template a document holds, checked as a save checks it; undefined for a missing document, and
 * for one that fails the check (logged): it is skipped as if absent, never a 500.
 */
export function storedTemplate(doc: DocumentSnapshot): StoredTemplate | undefined {
  if (!doc.exists) return undefined;
  const { version: _version, updatedAt, updatedBy, ...fields } = doc.data() ?? {};
  const version = storedVersion(doc.data());
  if (version === undefined) {
    logs.unusablePrintTemplate(doc.ref.path, "'version' (not a whole number from 1)");
    return undefined;
  }
  const parsed = printTemplateSchema.safeParse(fields);
  if (!parsed.success) {
    logs.unusablePrintTemplate(doc.ref.path, problemsOf(parsed.error.issues));
    return undefined;
  }
  const { Timestamp: Time } = firestoreSdk();
  return {
    templateId: doc.id,
    template: parsed.data,
    version,
    updatedAt: updatedAt instanceof Time ? updatedAt : null,
    updatedBy: typeof updatedBy === "string" ? updatedBy : null,
  };
}

/** The chain from the target up to the root: the order in which the nearest template wins. */
const nearestFirst = (chain: readonly TargetNode[]): TargetNode[] => [...chain].reverse();

const onChain = (stored: StoredTemplate, node: TargetNode, chain: readonly TargetNode[]): ChainTemplate => ({ ...stored, source: node.path, own: node === chain[chain.length - 1] });

/** Documents smallest id first (Firestore's order already; made sure of, as a rule of which template wins). */
const byId = (docs: readonly DocumentSnapshot[]): DocumentSnapshot[] => [...docs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/**
 * Every usable template of every target on the chain, nearest first: the target's own, then its
 * parent's, up to the root; within a target, by id. One query per level, all at once. A template of
 * an id that a nearer target also holds is listed too (the nearer one is the one that prints).
 */
export async function templatesOnChain(chain: readonly TargetNode[]): Promise<ChainTemplate[]> {
  const levels = nearestFirst(chain);
  const pages = await Promise.all(levels.map((node) => firestoreCall(() => db().collection(templatesPath(node.path)).get())));
  return levels.flatMap((node, i) =>
    byId(pages[i].docs).flatMap((doc) => {
      const stored = storedTemplate(doc);
      return stored ? [onChain(stored, node, chain)] : [];
    }),
  );
}

/** The nearest usable template of that id on the chain (one read of a document per level), or undefined. */
export async function templateOnChain(chain: readonly TargetNode[], templateId: string): Promise<ChainTemplate | undefined> {
  assertValidId("template id", templateId);
  const levels = nearestFirst(chain);
  if (levels.length === 0) return undefined;
  const firestore = db();
  const docs = await firestoreCall(() => firestore.getAll(...levels.map((node) => firestore.doc(templatePath(node.path, templateId)))));
  for (const [i, doc] of docs.entries()) {
    const stored = storedTemplate(doc);
    if (stored) return onChain(stored, levels[i], chain);
  }
  return undefined;
}

/** The answer for a template id that is not on the chain: the same whether it exists elsewhere or not. */
export const templateNotOnChain = (templateId: string) => notFound(`Print template '${templateId}' is not on this target's chain.`);

/**
 * The template an instance prints with. With `templateId`: the nearest template of that id on the
 * chain, else a 404 (HttpError). Without: the nearest template whose objectTypeNames lists the
 * instance's objectTypeName (within one target, the smallest id), else undefined: the default layout.
 */
export async function templateFor(chain: readonly TargetNode[], objectTypeName: unknown, templateId?: string): Promise<FoundTemplate | undefined> {
  const found = templateId !== undefined ? await templateOnChain(chain, templateId) : await templateOfType(chain, objectTypeName);
  if (!found) {
    if (templateId !== undefined) throw templateNotOnChain(templateId);
    return undefined;
  }
  return { template: asDocumentTemplate(found.template, found.templateId, found.version), templateId: found.templateId, version: found.version, source: found.source };
}

/** The nearest usable template listing the object type: one query per level, all at once. */
async function templateOfType(chain: readonly TargetNode[], objectTypeName: unknown): Promise<ChainTemplate | undefined> {
  // A name no template can list (the schema's bounds) needs no query.
  if (typeof objectTypeName !== "string" || objectTypeName.length === 0 || objectTypeName.length > TEMPLATE_LIMITS.line) return undefined;
  const levels = nearestFirst(chain);
  const pages = await Promise.all(
    levels.map((node) => firestoreCall(() => db().collection(templatesPath(node.path)).where("objectTypeNames", "array-contains", objectTypeName).get())),
  );
  for (const [i, node] of levels.entries()) {
    // A document that fails the check is skipped: the next one of the level, or the next level, serves.
    for (const doc of byId(pages[i].docs)) {
      const stored = storedTemplate(doc);
      if (stored) return onChain(stored, node, chain);
    }
  }
  return undefined;
}
