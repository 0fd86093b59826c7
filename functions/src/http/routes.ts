import { Router, type Request, type RequestHandler, type Response } from "express";
import type { DocumentSnapshot, Transaction } from "firebase-admin/firestore";
import type { z } from "zod";
import { authorize, resolveAccess, type Access, type Feature, type Permission } from "./access";
import { authenticate, type Caller } from "./authenticate";
import { firestoreTransaction } from "./deadline";
import { badRequest, HttpError } from "./errors";
import { declaredLength, jsonBody, notJson, uploadBody } from "./jsonBody";
import { assertValidId } from "./ids";
import { TARGET_FORMS, targetDocPath, targetFromParams, type Target } from "./target";
import { TtlCache } from "./ttlCache";
import { parseOr400 } from "./validation";

type TargetKind = Target["kind"];

/** The request's input once validated: path ids, query and body. */
interface Input<Q, B> {
  /** Path parameters below the target (e.g. `userId`), each a valid id. */
  params: Record<string, string>;
  query: Q;
  body: B;
}

/** What `reads` gets: the target's document path and the request's input, all of it valid. */
export interface ReadScope<Q = unknown, B = unknown> extends Input<Q, B> {
  path: string;
}

/** What a route handler gets once the pipeline has passed; `tx` for a `transactional` route only. */
export type RouteContext<Q, B, T extends boolean = false, L = undefined> = HandlerContext<Q, B, L> & (T extends true ? { tx: Transaction } : { tx?: undefined });

interface HandlerContext<Q, B, L> extends Input<Q, B> {
  caller: Caller;
  access: Access;
  /** Snapshots of the route's `reads`, in their order. */
  docs: DocumentSnapshot[];
  /** What the route's `load` read. */
  loaded: L;
  req: Request;
  res: Response;
  /**
   * Work that may only follow a committed change (removing a file the change replaced): run once the
   * route's transaction committed, before the answer; of a retried transaction, only the last attempt's.
   */
  afterCommit: (work: () => Promise<void>) => void;
}

/** The success answer of a route: its status and the schema of its body (OpenAPI shows both). */
export interface RouteResponse<R> {
  status: 200 | 201 | 202;
  description: string;
  schema: z.ZodType<R>;
  /** A binary answer of this media type instead of JSON: the handler returns a BinaryAnswer. */
  binary?: { mediaType: string; headers?: readonly { name: string; description: string }[] };
}

/** The body of a binary answer, and the headers that go with it. */
export interface BinaryAnswer {
  bytes: Uint8Array;
  headers: Record<string, string>;
}

/** One route, declaring everything the pipeline checks before its handler runs. */
export interface RouteDefinition<Q = Record<string, never>, B = undefined, R = unknown, T extends boolean = false, L = undefined> {
  method: "get" | "post" | "put" | "patch" | "delete";
  /** One line for the API document. */
  summary: string;
  /** Path below the target, e.g. `/user/:userId/restore`. */
  path: string;
  /** The caller needs any one of these on the target (SPEC.md section 5). */
  anyOf: readonly Permission[];
  /** A feature flag that must be enabled on the target. */
  feature?: Feature;
  /** The target kinds the route serves (default: all); others get a 400 after authorization. */
  targets?: readonly TargetKind[];
  /**
   * Documents the handler needs, by path, given the target's document path and the request's valid
   * input: read in the same round trip as the target chain and the caller's grants, before
   * authorization (they reach the handler only once it has passed; an invalid request reads none).
   * `chain`: the document paths of the target and the targets above it, root first.
   */
  reads?(scope: ReadScope<Q, B>, chain: readonly string[]): string[];
  /**
   * A read that cannot join that getAll (a query); the handler gets its result as `loaded`. It
   * runs once authorization has passed, or alongside the authorization read when this instance
   * authorized the same caller on the same target for this route within the last minute: the
   * round trip is hidden for callers who keep using a route, and nobody else can make the service
   * read more than the target and the grants before being refused.
   */
  load?(scope: ReadScope<Q, B>): Promise<L>;
  /**
   * The handler writes what it read: the pipeline's read and the handler run in one transaction, so
   * the change is made on the state that was authorized, in two round trips (read, commit).
   */
  transactional?: T;
  /** Schema of the query string; without one, any query parameter is refused. */
  query?: z.ZodType<Q>;
  /** Schema of the JSON body; without one, the route takes no body. */
  body?: z.ZodType<B>;
  /** The route takes a file's bytes instead of JSON (with `body: z.instanceof(Buffer)`): its media types and size (415, 413). */
  upload?: Upload;
  /** A JSON body larger than the pipeline's limit (MAX_BODY_BYTES) that this route takes (413 beyond it). */
  maxBodyBytes?: number;
  response: RouteResponse<R>;
  /** Request headers the route reads, for the API document (the handler reads them from `req`). */
  headers?: readonly { name: string; description: string }[];
  /** Error statuses particular to this route, with when they happen (the pipeline's own are implied). */
  errors?: Partial<Record<number, string>>;
  /** Returns the body of the success answer; errors are thrown as HttpError. */
  handle(context: RouteContext<Q, B, T, L>): Promise<R>;
}

/** Declares a route, inferring its query, body and response types from the schemas. */
export const defineRoute = <Q = Record<string, never>, B = undefined, R = unknown, T extends boolean = false, L = undefined>(route: RouteDefinition<Q, B, R, T, L>) => route;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDefinition<any, any, any, any, any>;

/** A file a route takes as its body. */
export interface Upload {
  mediaTypes: readonly string[];
  maxBytes: number;
}

const PARAM_LABELS: Record<string, string> = { userId: "user id", jobId: "job id", templateId: "template id" };

/** The bytes of an upload, as the platform's parser or `uploadBody` left them. */
function uploadedBytes(req: Request): Buffer {
  const body: unknown = req.body;
  const bytes = Buffer.isBuffer(body) ? body : (req as { rawBody?: Buffer }).rawBody;
  if (!bytes || bytes.length === 0) throw badRequest("The body must be the file's bytes.");
  return bytes;
}

function isEmptyBody(body: unknown): boolean {
  // "" is what the platform's text parser leaves for an empty text/plain body.
  return body === undefined || body === "" || (typeof body === "object" && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
}

/**
 * A PUT replaces what is stored with its body: JSON must have been parsed (the bytes kept in
 * rawBody), else a body lost on the way (a client bug, a cut request) would read as {} and clear
 * everything (send {} for that). A body that came but was not parsed had no JSON type: 415.
 */
function assertPutBody(req: Request): void {
  const raw = (req as { rawBody?: Buffer }).rawBody;
  if (raw && raw.length > 0) return;
  if (!raw && (declaredLength(req) > 0 || req.headers["transfer-encoding"] !== undefined)) throw notJson();
  throw badRequest("The body is empty: a PUT replaces what is stored with its body.");
}

/** Validates path ids, query and body (400 naming what is wrong), in that order. */
function validate<Q, B>(route: RouteDefinition<Q, B, unknown, boolean, unknown>, req: Request): Input<Q, B> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.params)) {
    if (name in PARAM_LABELS && typeof value === "string") params[name] = assertValidId(PARAM_LABELS[name], value);
  }
  const query = route.query ? parseOr400(route.query, { ...req.query }, "query") : (undefined as Q);
  if (!route.query && Object.keys(req.query).length > 0) throw badRequest("This route takes no query parameters.");
  if (route.upload) return { params, query, body: uploadedBytes(req) as B };
  if (route.body && req.method === "PUT") assertPutBody(req);
  const body = route.body ? parseOr400(route.body, req.body ?? {}, "body") : (undefined as B);
  if (!route.body && !isEmptyBody(req.body)) throw badRequest("This route takes no request body.");
  return { params, query, body };
}

const withoutTransaction = <T>(fn: (tx: undefined) => Promise<T>): Promise<T> => fn(undefined);

/** How long a caller authorized for a route on a target lets its `load` start before authorization. */
const RECENTLY_AUTHORIZED_TTL_MS = 60_000;
/** "route caller target" of recent authorizations, per instance. */
const recentlyAuthorized = new TtlCache<true>(RECENTLY_AUTHORIZED_TTL_MS);

/**
 * `run` started on the next tick (what it throws at once becomes a rejection, answered only after
 * authorization), its promise marked as handled: a speculative read never awaited must not crash the process.
 */
function started<L>(run: () => Promise<L>): Promise<L> {
  const work = Promise.resolve().then(run);
  work.catch(() => undefined);
  return work;
}

/**
 * The request pipeline, in order: authenticate (401), parse the target path (400), resolve the
 * target (404), authorize (401), validate path ids, query and body (400), then the handler. The
 * target, the grants and the route's `reads` cost one Firestore round trip together. The input is
 * checked before that read (the reads need it), but its 400 is only answered after authorization:
 * a caller without access learns nothing from validation.
 */
function pipeline<Q, B, R, T extends boolean, L>(route: RouteDefinition<Q, B, R, T, L>, pattern: string): RequestHandler[] {
  const named: RequestHandler = (_req, res, next) => {
    res.locals.route = pattern; // logged instead of the raw path, which holds ids
    next();
  };
  const inTransaction = route.transactional ? firestoreTransaction : withoutTransaction;
  const handle: RequestHandler = async (req, res) => {
    const caller = res.locals.caller as Caller;
    const target = targetFromParams(req.params);
    const served = !route.targets || route.targets.includes(target.kind);
    let input: Input<Q, B> | undefined;
    let invalid: unknown;
    try {
      input = validate(route, req);
    } catch (error) {
      invalid = error;
    }
    const scope = served && input ? { path: targetDocPath(target), ...input } : undefined;
    const reads = (chain: readonly string[]) => (route.reads && scope ? route.reads(scope, chain) : []);
    // The route's `load` starts now only for a caller this instance authorized here in the last minute.
    const authorization = `${route.method} ${route.path} ${caller.uid} ${targetDocPath(target)}`;
    const early = route.load && scope && recentlyAuthorized.get(authorization) ? started(() => route.load!(scope)) : undefined;

    let committed: (() => Promise<void>)[] = [];
    const afterCommit = (work: () => Promise<void>): void => void committed.push(work);
    const answer = await inTransaction(async (tx) => {
      committed = [];
      const { access, docs } = await resolveAccess(target, caller.uid, reads, tx);
      try {
        authorize(access, route.anyOf, route.feature);
      } catch (refused) {
        recentlyAuthorized.delete(authorization);
        throw refused;
      }
      if (!served) throw badRequest(`This route serves ${route.targets?.join(" and ")} targets only, not a ${target.kind}.`);
      if (!input || !scope) throw invalid;
      if (route.load) recentlyAuthorized.set(authorization, true);
      const loaded = route.load ? await (early ?? route.load(scope)) : undefined;
      return route.handle({ caller, access, ...input, docs, loaded, tx, req, res, afterCommit } as RouteContext<Q, B, T, L>);
    });
    for (const work of committed) await work();
    const binary = route.response.binary;
    if (!binary) {
      res.status(route.response.status).json(answer);
      return;
    }
    const { bytes, headers } = answer as BinaryAnswer;
    res.status(route.response.status).set(headers).type(binary.mediaType).send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  };
  return [named, authenticate, handle];
}

/** A route's Express path patterns: one per target form (SPEC.md: every route is target-scoped). */
const patternsOf = (route: AnyRoute): string[] => TARGET_FORMS.map((form) => `${form.path}${route.path}`);

/** A router whose route words match with case, as Hosting's rewrites and path rules in front of it do. */
const caseSensitiveRouter = (): Router => Router({ caseSensitive: true });

/**
 * The body parsers of the routes that take a file (`upload`), under every target form: mounted before
 * the JSON parser, which leaves their requests alone.
 */
export function uploadRouter(routes: readonly AnyRoute[]): Router {
  const router = caseSensitiveRouter();
  for (const route of routes) {
    if (!route.upload) continue;
    for (const pattern of patternsOf(route)) router[route.method](pattern, ...uploadBody(route.upload));
  }
  return router;
}

/**
 * The JSON parsers of the routes that take a larger body than the pipeline's (`maxBodyBytes`), under
 * every target form: mounted before the pipeline's parser, which then leaves their requests alone.
 */
export function largeBodyRouter(routes: readonly AnyRoute[]): Router {
  const router = caseSensitiveRouter();
  for (const route of routes) {
    if (!route.maxBodyBytes) continue;
    const parse = jsonBody(route.maxBodyBytes);
    const mark: RequestHandler = (_req, res, next) => {
      res.locals.bodyParsed = true;
      next();
    };
    for (const pattern of patternsOf(route)) router[route.method](pattern, ...parse, mark);
  }
  return router;
}

/** Registers each route under every target form. */
export function targetRouter(routes: readonly AnyRoute[]): Router {
  const router = caseSensitiveRouter();
  for (const route of routes) {
    for (const pattern of patternsOf(route)) router[route.method](pattern, ...pipeline(route, pattern));
  }
  return router;
}

/**
 * A route's path asked with a method it does not take: 405 naming those it takes (Allow), before
 * anything reads the body (whose checks depend on the method). Mounted ahead of the body parsers;
 * `extra` adds paths of the app's own (its OpenAPI document). GET answers HEAD as well (Express);
 * OPTIONS is CORS's, answered before.
 */
export function methodRouter(routes: readonly AnyRoute[], extra: Record<string, string[]> = {}): Router {
  const methods = new Map<string, string[]>(Object.entries(extra));
  for (const route of routes) {
    for (const pattern of patternsOf(route)) methods.set(pattern, [...(methods.get(pattern) ?? []), route.method.toUpperCase()]);
  }
  const router = caseSensitiveRouter();
  for (const [pattern, allowed] of methods) {
    const allow = [...allowed, ...(allowed.includes("GET") ? ["HEAD"] : [])];
    router.all(pattern, (req, res, next) => {
      if (allow.includes(req.method)) return next();
      res.locals.route = pattern;
      throw new HttpError(405, `${req.method} is not a method of this route; it takes ${allow.join(", ")}.`, { Allow: allow.join(", ") });
    });
  }
  return router;
}
