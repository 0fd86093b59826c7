import { createHash } from "node:crypto";
import type { DocumentSnapshot, Query, Timestamp } from "firebase-admin/firestore";
import { z } from "zod";
import { AUDIT_ACTIONS } from "../../audit";
import { db, firestoreSdk } from "../../firebase";
import { firestoreCall } from "../../http/deadline";
import { badRequest } from "../../http/errors";
import { defineRoute } from "../../http/routes";
import { decodePageToken, pageOf } from "../../http/pageToken";
import { idField, intParam, queryTime } from "../../http/validation";

/** The target and filters of a query, as a short hash: a page token only continues the query it came from. */
const queryKey = (path: string, q: { action?: string; subject?: string; since?: string; until?: string }) =>
  createHash("sha256")
    .update(JSON.stringify([path, q.action ?? null, q.subject ?? null, q.since ?? null, q.until ?? null]))
    .digest("base64url")
    .slice(0, 16);

/** What is wrong with a token that does not decode, or continues another query (the schema and the load say it). */
const NOT_THIS_QUERY = "is not a page token of this query (tokens continue the query with the same target and filters)";

/** Filters and paging of the trail; unknown parameters are refused. */
const listAuditEventsQuery = z
  .strictObject({
    limit: intParam(1, 100, 50),
    pageToken: z.string().max(500).optional().meta({ description: "nextPageToken of the previous page (same filters)" }),
    action: z.enum(AUDIT_ACTIONS).optional(),
    subject: idField.optional().meta({ description: "A user id or object instance id" }),
    since: queryTime("Events at or after this time (ISO 8601)"),
    until: queryTime("Events before this time (ISO 8601)"),
  })
  // Zod runs this even when a date failed its format: an unparsable one has its issue already (NaN compares false).
  .refine((q) => !q.since || !q.until || !(Date.parse(q.since) >= Date.parse(q.until)), { message: "must be before 'until'", path: ["since"] })
  .transform((q, ctx) => {
    if (q.pageToken === undefined) return { ...q, page: undefined };
    const page = decodePageToken(q.pageToken);
    if (!page) {
      ctx.addIssue({ code: "custom", message: NOT_THIS_QUERY, path: ["pageToken"] });
      return z.NEVER;
    }
    return { ...q, page };
  });

const eventSchema = z.strictObject({
  id: z.string(),
  at: z.iso.datetime().describe("When it happened (server time)."),
  action: z.enum(AUDIT_ACTIONS),
  actor: z.strictObject({ uid: z.string(), scheme: z.enum(["bearer", "basic"]) }),
  target: z.string().describe("Document path of the target it happened on: this one or one below it.").meta({ examples: ["tenants/acme-north"] }),
  subject: z.string().describe("The user id or object instance id."),
  requestId: z.string().nullable().describe("X-Request-Id of the request that did it."),
  details: z.record(z.string(), z.unknown()),
});

function toEvent(doc: DocumentSnapshot): z.infer<typeof eventSchema> {
  const at = doc.get("at") as Timestamp;
  return {
    id: doc.id,
    at: at.toDate().toISOString(),
    action: doc.get("action"),
    actor: { uid: String(doc.get("actor.uid")), scheme: doc.get("actor.scheme") },
    target: String(doc.get("target")),
    subject: String(doc.get("subject")),
    requestId: (doc.get("requestId") as string | null) ?? null,
    details: (doc.get("details") as Record<string, unknown>) ?? {},
  };
}

/**
 * The audit trail of a target (issue 20): what happened on it and on the targets below it, newest
 * first, paged with an opaque cursor. ADMIN only.
 */
export const listAuditEvents = defineRoute({
  method: "get",
  path: "/audit-events",
  summary: "List the audit events of a target and the targets below it, newest first",
  anyOf: ["ADMIN"],
  query: listAuditEventsQuery,
  load: ({ path, query }) => {
    const { FieldPath, Timestamp: Time } = firestoreSdk();
    let q: Query = db().collection(`${path}/auditEvents`);
    if (query.action) q = q.where("action", "==", query.action);
    if (query.subject) q = q.where("subject", "==", query.subject);
    if (query.since) q = q.where("at", ">=", Time.fromMillis(Date.parse(query.since)));
    if (query.until) q = q.where("at", "<", Time.fromMillis(Date.parse(query.until)));
    q = q.orderBy("at", "desc").orderBy(FieldPath.documentId(), "desc");
    if (query.page) {
      // Checked here rather than in the schema, which does not know the target.
      if (query.page.f !== queryKey(path, query)) throw badRequest(`Invalid query: 'pageToken': ${NOT_THIS_QUERY}.`);
      q = q.startAfter(new Time(query.page.s, query.page.n), query.page.id);
    }
    return firestoreCall(() => q.limit(query.limit + 1).get());
  },
  response: {
    status: 200,
    description: "One page of events, newest first.",
    schema: z.strictObject({
      statusCode: z.literal(200),
      message: z.string(),
      data: z.array(eventSchema),
      nextPageToken: z.string().nullable().describe("Pass as pageToken (with the same filters) for the next page; null on the last page."),
    }),
  },
  async handle({ access, query, loaded: page }) {
    const { docs, nextPageToken } = pageOf(page, query.limit, "at", queryKey(access.path, query));
    return { statusCode: 200 as const, message: `${docs.length} event(s).`, data: docs.map(toEvent), nextPageToken };
  },
});
