import cors from "cors";
import express from "express";
import helmet from "helmet";
import { MAX_BODY_BYTES, params } from "../config";
import { errorHandler, notFoundHandler } from "./errorHandler";
import { jsonBody } from "./jsonBody";
import { openApiDocument, type ApiInfo } from "./openapi";
import { largeBodyRouter, methodRouter, targetRouter, uploadRouter, type AnyRoute } from "./routes";
import { requestContext } from "./requestContext";
import * as logs from "../logs";

/**
 * The Express app of one function: the shared plumbing around that function's routes, which are
 * mounted at `info.mountPath` (`/api` or `/print`, the paths SPEC.md gives, and the hosting
 * rewrites), and its OpenAPI document at `{mountPath}/openapi.json`, served without authentication.
 */
export function createApp(info: ApiInfo, routes: readonly AnyRoute[]): express.Express {
  const app = express();
  app.disable("x-powered-by");
  // "/api/tenant/x/ROLES" is no route: Hosting's rewrites and path rules in front (a Cloud Armor
  // policy) match case-sensitively, and a case-insensitive app would let a caller step around them.
  app.enable("case sensitive routing");
  // Only the hop Google's front end appends to X-Forwarded-For; earlier hops are the caller's to forge.
  app.set("trust proxy", 1);
  app.use(requestContext);
  app.use(helmet());
  app.use((_req, res, next) => {
    // Answers carry signed download URLs and user data: no browser or proxy may keep them.
    res.set("Cache-Control", "no-store");
    next();
  });
  app.use(cors(corsOptions()));
  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      logs.requestServed(req.method, res.locals.route ?? "(no route)", res.statusCode, Number(process.hrtime.bigint() - started) / 1e6);
    });
    next();
  });
  let document: Record<string, unknown> | undefined;
  app.get(`${info.mountPath}/openapi.json`, (_req, res) => {
    res.locals.route = `${info.mountPath}/openapi.json`;
    document ??= openApiDocument(info, routes);
    res.json(document);
  });
  app.use(info.mountPath, methodRouter(routes, { "/openapi.json": ["GET"] }));
  app.use(info.mountPath, uploadRouter(routes));
  app.use(info.mountPath, largeBodyRouter(routes));
  app.use(jsonBody(MAX_BODY_BYTES));
  app.use(info.mountPath, targetRouter(routes));
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}

/**
 * Browsers may call from the origins of the CORS_ORIGINS param ("*": any). Preflight requests are
 * answered here, before authentication; credentials travel in the Authorization header, never
 * in cookies, so no origin ever gets `Access-Control-Allow-Credentials`.
 */
function corsOptions(): cors.CorsOptions {
  const origins = params.corsOrigins
    .value()
    .split(",")
    .map((o) => o.trim())
    .filter(Boolean);
  return {
    origin: origins.includes("*") ? "*" : origins,
    methods: ["GET", "POST", "PUT", "PATCH", "DELETE"],
    allowedHeaders: ["Authorization", "Content-Type", "Idempotency-Key"],
    // What a page may read of an answer: its error handling needs Allow (405) and WWW-Authenticate (401) as well.
    exposedHeaders: ["X-Request-Id", "Retry-After", "Idempotent-Replayed", "Allow", "WWW-Authenticate", "Location", "Print-Warnings"],
    maxAge: 600,
  };
}
