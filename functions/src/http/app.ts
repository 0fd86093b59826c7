import express, { type Router } from "express";
import { MAX_BODY_BYTES } from "../config";
import { errorHandler, notFoundHandler } from "./errorHandler";
import { jsonBody } from "./jsonBody";
import { requestContext } from "./requestContext";
import * as logs from "../logs";

/**
 * The Express app of one function: the shared plumbing around that function's router, which is
 * mounted at `mountPath` (`/api` or `/print`, the paths SPEC.md gives, and the hosting rewrites).
 */
export function createApp(mountPath: string, router: Router): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", true);
  app.use(requestContext);
  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      logs.requestServed(req.method, res.locals.route ?? "(no route)", res.statusCode, Number(process.hrtime.bigint() - started) / 1e6);
    });
    next();
  });
  app.use(jsonBody(MAX_BODY_BYTES));
  app.use(mountPath, router);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
