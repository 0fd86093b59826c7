import { z } from "zod";
import { MAX_ID_LENGTH } from "./ids";
import type { AnyRoute } from "./routes";
import { TARGET_FORMS } from "./target";

/** The JSON Schema of a zod schema, as OpenAPI 3.1 embeds it (no `$schema` of its own). */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

/** Path parameters: what each means, with an id from the demo data. */
const PATH_PARAMETERS: Record<string, { description: string; example: string }> = {
  organizationId: { description: "Organization id", example: "acme" },
  tenantId: { description: "Tenant id", example: "acme-north" },
  divisionId: { description: "Division id", example: "ops" },
  siteId: { description: "Site id", example: "harbor" },
  userId: { description: "The identity-provider (Firebase Auth) user id", example: "north-reader" },
  jobId: { description: "A print job's id, as POST print-jobs answered it", example: "3f0c8a1e2b7d4c6f9a0b1c2d" },
  templateId: { description: "A print template's id, chosen by whoever saves it", example: "safety-inspection" },
};

/** Errors every route can answer, from the shared pipeline. */
const PIPELINE_ERRORS: Record<number, string> = {
  400: "An invalid path id, query parameter or body field (the message names it).",
  401: "Missing or invalid credentials, or a missing permission or feature flag (the message names it).",
  404: "No such route, or the target does not exist (or is not under the parents the path names).",
  429: "Too many failed password sign-ins for the account (Basic); Retry-After says when to retry.",
  503: "Firebase Auth is unavailable.",
};
/** What jsonBody answers on every route that takes no file, with or without a body of its own. */
const BODY_ERRORS: Record<number, string> = {
  413: "The body is over 100 KiB.",
  415: "The body is not application/json (on POST, PUT and DELETE: any other declared Content-Type, even with an empty body; on a PUT that takes a body, also a body sent without one).",
};

const errorBody = {
  type: "object",
  required: ["statusCode", "error", "message"],
  additionalProperties: false,
  properties: {
    statusCode: { type: "integer", minimum: 400, maximum: 599 },
    error: { type: "string", description: "The HTTP reason phrase", examples: ["Bad Request"] },
    message: { type: "string", description: "What went wrong, for a person" },
  },
};

/** Every target kind, in the order of the target forms. */
const TARGET_KINDS = [...new Set(TARGET_FORMS.map((form) => form.kind))];

const toOpenApiPath = (expressPath: string) => expressPath.replace(/:(\w+)/g, "{$1}");

export interface ApiInfo {
  title: string;
  description: string;
  mountPath: string;
}

/**
 * The OpenAPI 3.1 document of one function, generated from its route declarations: the same zod
 * schemas the pipeline validates with, so the document cannot drift from the code.
 */
export function openApiDocument(info: ApiInfo, routes: readonly AnyRoute[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    // A query that ends in a transform (audit-events decodes its page token) has no output schema: its parameters are the object before it.
    const queryShape = route.query instanceof z.ZodPipe && route.query.out instanceof z.ZodTransform ? (route.query.in as z.ZodType) : route.query;
    const query = queryShape ? jsonSchema(queryShape, "output") : undefined;
    const queryParameters = Object.entries((query?.properties ?? {}) as Record<string, Record<string, unknown>>).map(([name, schema]) => ({
      name,
      in: "query",
      required: false,
      schema,
    }));
    const bodyErrors = route.upload
      ? { 413: `The file is over ${route.upload.maxBytes} bytes.`, 415: `The body is not ${route.upload.mediaTypes.join(" or ")}.` }
      : BODY_ERRORS;
    const errors = { ...PIPELINE_ERRORS, ...bodyErrors, ...route.errors };
    for (const form of TARGET_FORMS) {
      const path = `${info.mountPath}${toOpenApiPath(form.path + route.path)}`;
      const pathParameters = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
        name,
        in: "path",
        required: true,
        description: PATH_PARAMETERS[name]?.description,
        schema: { type: "string", minLength: 1, maxLength: MAX_ID_LENGTH, examples: [PATH_PARAMETERS[name]?.example] },
      }));
      paths[path] ??= {};
      paths[path][route.method] = {
        operationId: `${route.method}${path.replace(/\{(\w+)\}/g, "By-$1").replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ""))}`,
        summary: route.summary,
        description: describeAccess(route, form.kind),
        // For clients that offer routes by target (the playground): this path's target kind, and the kinds the route serves.
        "x-target-kind": form.kind,
        "x-target-kinds": route.targets ?? TARGET_KINDS,
        security: [{ bearerAuth: [] }, { basicAuth: [] }],
        parameters: [...pathParameters, ...queryParameters, ...(route.headers ?? []).map(({ name, description }) => ({ name, in: "header", required: false, description, schema: { type: "string" } }))],
        ...(route.body && {
          requestBody: {
            required: true,
            content: route.upload
              ? Object.fromEntries(route.upload.mediaTypes.map((type) => [type, { schema: { type: "string", contentMediaType: type } }]))
              : { "application/json": { schema: jsonSchema(route.body, "input") } },
          },
        }),
        responses: {
          [route.response.status]: route.response.binary
            ? {
                description: route.response.description,
                headers: Object.fromEntries((route.response.binary.headers ?? []).map(({ name, description }) => [name, { description, schema: { type: "string" } }])),
                content: { [route.response.binary.mediaType]: { schema: { type: "string", contentMediaType: route.response.binary.mediaType } } },
              }
            : { description: route.response.description, content: { "application/json": { schema: jsonSchema(route.response.schema, "output") } } },
          ...Object.fromEntries(
            Object.entries(errors).map(([status, description]) => [status, { description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } }]),
          ),
        },
      };
    }
  }
  paths[`${info.mountPath}/openapi.json`] = {
    get: {
      operationId: `get${info.mountPath.slice(1)}OpenApi`,
      summary: "This document",
      security: [],
      responses: { 200: { description: "The OpenAPI 3.1 document of this function.", content: { "application/json": { schema: { type: "object" } } } } },
    },
  };
  return {
    openapi: "3.1.0",
    info: { title: info.title, version: "1.0.0", description: info.description },
    // Relative to this document's URL, which is always {base}{mountPath}/openapi.json: ".." is {base}, the
    // origin through Hosting's rewrites (/api/...) and a function's own URL with its prefix
    // (/{project}/us-central1/api/api/... in the emulator, /api/api/... on cloudfunctions.net) alike.
    // Never an absolute host: "Try it out" sends the user's token there.
    servers: [{ url: "..", description: "Where this document is served from: Hosting (its rewrites) or the function's own URL" }],
    security: [{ bearerAuth: [] }, { basicAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "Firebase ID token" },
        basicAuth: { type: "http", scheme: "basic", description: "email:password of a Firebase Auth user" },
      },
      schemas: { Error: errorBody },
    },
  };
}

function describeAccess(route: AnyRoute, kind: string): string {
  const permissions = route.anyOf.length === 1 ? route.anyOf[0] : `any of ${route.anyOf.join(", ")}`;
  const feature = route.feature ? `, with the ${route.feature} feature enabled` : "";
  const served = !route.targets || route.targets.includes(kind as never);
  const targets = served ? "" : ` This route serves ${route.targets!.join(" and ")} targets only: on a ${kind} it answers 400.`;
  return `Needs ${permissions} on the target${feature}.${targets}`;
}
