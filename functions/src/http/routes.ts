import { Router, type Request, type RequestHandler, type Response } from "express";
import { authenticate } from "./authenticate";
import { TARGET_FORMS, targetFromParams, type Target } from "./target";

export const PERMISSIONS = ["READ", "MANAGE_FORM", "MANAGE_OBJECTS", "MANAGE_PEOPLE", "ADMIN"] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const FEATURES = ["PEOPLE_MANAGEMENT"] as const;
export type Feature = (typeof FEATURES)[number];

/** What a route handler gets: the parsed target and the raw request/response. */
export interface RouteContext {
  target: Target;
  req: Request;
  res: Response;
}

/** One route, declared with everything the pipeline needs to know about it. */
export interface RouteDefinition {
  method: "get" | "post" | "delete";
  /** Path below the target, e.g. `/user/:userId/restore`. */
  path: string;
  /** The caller needs any one of these on the target (SPEC.md section 5). */
  anyOf: readonly Permission[];
  /** A feature flag that must be enabled on the target. */
  feature?: Feature;
  handle(context: RouteContext): Promise<void>;
}

/** Registers each route under every target form (SPEC.md: every route is target-scoped). */
export function targetRouter(routes: readonly RouteDefinition[]): Router {
  const router = Router();
  for (const route of routes) {
    for (const form of TARGET_FORMS) {
      const pattern = `${form}${route.path}`;
      const named: RequestHandler = (_req, res, next) => {
        res.locals.route = pattern; // logged instead of the raw path, which holds ids
        next();
      };
      router[route.method](pattern, named, authenticate, async (req, res) => {
        await route.handle({ target: targetFromParams(req.params), req, res });
      });
    }
  }
  return router;
}
