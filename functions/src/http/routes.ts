import { Router, type Request, type RequestHandler, type Response } from "express";
import type { z } from "zod";
import { authorize, resolveAccess, type Access, type Feature, type Permission } from "./access";
import { authenticate, type Caller } from "./authenticate";
import { badRequest } from "./errors";
import { assertValidId } from "./ids";
import { TARGET_FORMS, targetFromParams, type Target } from "./target";
import { parseOr400 } from "./validation";

type TargetKind = Target["kind"];

/** What a route handler gets once the pipeline has passed. */
export interface RouteContext<Q, B> {
  caller: Caller;
  access: Access;
  /** Path parameters below the target (e.g. `userId`), each a valid id. */
  params: Record<string, string>;
  query: Q;
  body: B;
  req: Request;
  res: Response;
}

/** The success answer of a route: its status and the schema of its body (OpenAPI shows both). */
export interface RouteResponse<R> {
  status: 200 | 201;
  description: string;
  schema: z.ZodType<R>;
}

/** One route, declaring everything the pipeline checks before its handler runs. */
export interface RouteDefinition<Q = Record<string, never>, B = undefined, R = unknown> {
  method: "get" | "post" | "delete";
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
  /** Schema of the query string; without one, any query parameter is refused. */
  query?: z.ZodType<Q>;
  /** Schema of the JSON body; without one, the route takes no body. */
  body?: z.ZodType<B>;
  response: RouteResponse<R>;
  /** Error statuses particular to this route, with when they happen (the pipeline's own are implied). */
  errors?: Partial<Record<number, string>>;
  /** Returns the body of the success answer; errors are thrown as HttpError. */
  handle(context: RouteContext<Q, B>): Promise<R>;
}

/** Declares a route, inferring its query, body and response types from the schemas. */
export const defineRoute = <Q = Record<string, never>, B = undefined, R = unknown>(route: RouteDefinition<Q, B, R>) => route;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDefinition<any, any, any>;

const PARAM_LABELS: Record<string, string> = { userId: "user id" };

function isEmptyBody(body: unknown): boolean {
  // "" is what the platform's text parser leaves for an empty text/plain body.
  return body === undefined || body === "" || (typeof body === "object" && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
}

/**
 * The request pipeline, in order: authenticate (401), parse the target path (400), resolve the
 * target (404), authorize (401), validate path ids, query and body (400), then the handler.
 */
function pipeline<Q, B, R>(route: RouteDefinition<Q, B, R>, pattern: string): RequestHandler[] {
  const named: RequestHandler = (_req, res, next) => {
    res.locals.route = pattern; // logged instead of the raw path, which holds ids
    next();
  };
  const handle: RequestHandler = async (req, res) => {
    const caller = res.locals.caller as Caller;
    const target = targetFromParams(req.params);
    const access = await resolveAccess(target, caller.uid);
    authorize(access, route.anyOf, route.feature);
    if (route.targets && !route.targets.includes(target.kind)) {
      throw badRequest(`This route serves ${route.targets.join(" and ")} targets only, not a ${target.kind}.`);
    }

    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.params)) {
      if (!(name in PARAM_LABELS) || typeof value !== "string") continue;
      params[name] = assertValidId(PARAM_LABELS[name], value);
    }
    const query = route.query ? parseOr400(route.query, { ...req.query }, "query") : (undefined as Q);
    if (!route.query && Object.keys(req.query).length > 0) throw badRequest("This route takes no query parameters.");
    const body = route.body ? parseOr400(route.body, req.body ?? {}, "body") : (undefined as B);
    if (!route.body && !isEmptyBody(req.body)) throw badRequest("This route takes no request body.");

    const answer = await route.handle({ caller, access, params, query: query as Q, body: body as B, req, res });
    res.status(route.response.status).json(answer);
  };
  return [named, authenticate, handle];
}

/** Registers each route under every target form (SPEC.md: every route is target-scoped). */
export function targetRouter(routes: readonly AnyRoute[]): Router {
  const router = Router();
  for (const route of routes) {
    for (const form of TARGET_FORMS) {
      const pattern = `${form.path}${route.path}`;
      router[route.method](pattern, ...pipeline(route, pattern));
    }
  }
  return router;
}
