import { STATUS_CODES } from "node:http";
import type { ErrorRequestHandler, RequestHandler } from "express";
import { HttpError, errorBody } from "./errors";
import * as logs from "../logs";

/**
 * Errors from body-parser, the router (an undecodable path) and other http-errors style code carry
 * a 4xx status meant for the client; their message is shown only when they mark it as safe.
 */
function clientError(error: unknown): { status: number; message: string } | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { status, expose, message } = error as { status?: unknown; expose?: unknown; message?: unknown };
  if (typeof status !== "number" || status < 400 || status >= 500) return undefined;
  const safe = expose === true && typeof message === "string";
  return { status, message: safe ? message : `The request could not be understood (${STATUS_CODES[status] ?? status}).` };
}

/**
 * gRPC statuses of a Firestore call that firebase-admin gave up retrying: the backend is down,
 * overloaded or too contended right now, which is a 503 the client may retry, not a 500.
 * (UNAVAILABLE 14, DEADLINE_EXCEEDED 4, RESOURCE_EXHAUSTED 8, ABORTED 10.)
 */
const RETRYABLE_GRPC_CODES = new Set([14, 4, 8, 10]);

function isRetryableBackendError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, details } = error as { code?: unknown; details?: unknown };
  return typeof code === "number" && typeof details === "string" && RETRYABLE_GRPC_CODES.has(code);
}

/** The JSON 404 for every path that no route matches. Mounted after all routes. */
export const notFoundHandler: RequestHandler = (req, res) => {
  res.status(404).json(errorBody(404, `No route for ${req.method} ${req.baseUrl}${req.path}`.slice(0, 300)));
};

/**
 * The one place where errors become responses: `{ statusCode, error, message }`, never a stack
 * trace. Express recognises an error handler by its four parameters, so `_next` must stay.
 */
export const errorHandler: ErrorRequestHandler = (error, _req, res, _next) => {
  if (error instanceof HttpError) {
    logs.requestRefused(error.statusCode, error.message);
    res.set(error.headers).status(error.statusCode).json(errorBody(error.statusCode, error.message));
    return;
  }
  const client = clientError(error);
  if (client) {
    logs.requestRefused(client.status, client.message);
    res.status(client.status).json(errorBody(client.status, client.message));
    return;
  }
  if (isRetryableBackendError(error)) {
    logs.backendUnavailable(error);
    res.status(503).json(errorBody(503, "Firestore is unavailable; try again shortly."));
    return;
  }
  logs.unexpectedError(error);
  res.status(500).json(errorBody(500, "The server could not complete the request."));
};
