import type { Express } from "express";
import { onRequest } from "firebase-functions/v2/https";
import { REGION, RUNTIME_OPTIONS, sendgridApiKey } from "./config";

// Each function imports its own app on its first request, so an instance of `print` never loads
// the api routes and their dependencies, and the other way round (cold start; README).

// `cors: false` leaves CORS to each app (allow-list from the CORS_ORIGINS param). Without it the
// functions emulator wraps every function in a CORS layer that allows any origin.
const options = { region: REGION, cors: false };

let apiApp: Promise<Express> | undefined;
let printApp: Promise<Express> | undefined;

export const api = onRequest({ ...options, ...RUNTIME_OPTIONS.api }, async (req, res) => {
  apiApp ??= import("./api/app.js").then((m) => m.createApiApp());
  (await apiApp)(req, res);
});

export const print = onRequest({ ...options, ...RUNTIME_OPTIONS.print, secrets: [sendgridApiKey] }, async (req, res) => {
  printApp ??= import("./print/app.js").then((m) => m.createPrintApp());
  (await printApp)(req, res);
});
