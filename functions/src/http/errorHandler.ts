import type { ErrorRequestHandler, RequestHandler } from "express";
import { HttpError, errorBody } from "./errors";
import * as logs from "../logs";

/** Errors from body-parser and other http-errors style middleware carry a status meant for the client. */
function clientStatusOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { status, expose } = error as { status?: unknown; expose?: unknown };
  return typeof status === "number" && status >= 400 && status < 500 && expose === true ? status : undefined;
}

/** The JSON 404 for every path that no route matches. Mounted after all routes. */
export const notFoundHandler: RequestHandler = (req, res) => {
  res.status(404).json(errorBody(404, `No route for ${req.method} ${req.baseUrl}${req.path}`.slice(0, 300)));
};

/**
 * The one place where errors become responses: `{ statusCode, error, message }`, never a stack
 * trace. Express recognises an error handler by its four parameters, so `_next` must stay.
 */
// eslint-disable-next-line @typescript-eslint/no-unused-vars
export const errorHandler: ErrorRequestHandler = (error, _req, res, _next) => {
  if (error instanceof HttpError) {
    logs.requestRefused(error.statusCode, error.message);
    res.set(error.headers).status(error.statusCode).json(errorBody(error.statusCode, error.message));
    return;
  }
  const clientStatus = clientStatusOf(error);
  if (clientStatus !== undefined) {
    const message = (error as Error).message;
    logs.requestRefused(clientStatus, message);
    res.status(clientStatus).json(errorBody(clientStatus, message));
    return;
  }
  logs.unexpectedError(error);
  res.status(500).json(errorBody(500, "The server could not complete the request."));
};
