import { defineString } from "firebase-functions/params";

/**
 * Deployment parameters, declared once. firebase-tools lists them at deploy time and asks for
 * values that have no default; the emulator reads them from functions/.env files or the defaults.
 */
export const params = {
  /** The project's Web API key: Basic credentials are checked through Identity Toolkit with it. */
  webApiKey: defineString("WEB_API_KEY", {
    default: "local-emulator-key",
    description: "Web API key of the Firebase project (Project settings > General), used to verify Basic email:password credentials.",
  }),
  /** Comma-separated origins allowed to call the functions from a browser ("*" allows any). */
  corsOrigins: defineString("CORS_ORIGINS", {
    default: "http://localhost:5000,http://127.0.0.1:5000",
    description: "Comma-separated list of browser origins allowed to call the api and print functions.",
  }),
};

/** Largest JSON request body either function accepts. Every documented body is far smaller. */
export const MAX_BODY_BYTES = 100 * 1024;

/** Region of both functions; the hosting rewrites in firebase.json name the same one. */
export const REGION = "us-central1";

/** True inside the Firebase emulator suite (set by the functions emulator). */
export function isEmulator(): boolean {
  return process.env.FUNCTIONS_EMULATOR === "true";
}

/** How long a verified user (Bearer) or credential (Basic) is trusted without asking Auth again. */
export const AUTH_CACHE_TTL_MS = 60_000;

/** Identity Toolkit REST root: the auth emulator's when the functions run under it. */
export function identityToolkitUrl(): string {
  const emulatorHost = process.env.FIREBASE_AUTH_EMULATOR_HOST;
  return emulatorHost ? `http://${emulatorHost}/identitytoolkit.googleapis.com` : "https://identitytoolkit.googleapis.com";
}
