import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** The repository root (firebase.json, .firebaserc) and the functions package. */
export const ROOT_DIR = resolve(__dirname, "..", "..");
export const FUNCTIONS_DIR = resolve(__dirname, "..");

/** The `demo-` project of .firebaserc: the emulators never need real credentials for it. */
export const PROJECT_ID = "demo-print-admin";
export const REGION = "us-central1";
export const HOST = "127.0.0.1";

/**
 * Added to every port, so that a second stack (a developer's `npm test` beside `npm start`, or
 * parallel work) can run on the same machine: `STACK_PORT_OFFSET=10000 npm test`. Default 0.
 */
export const PORT_OFFSET = portOffset(process.env.STACK_PORT_OFFSET);

function portOffset(value: string | undefined): number {
  if (value === undefined || value === "") return 0;
  const offset = Number(value);
  if (!Number.isInteger(offset) || offset < 0 || offset > 50_000) throw new Error(`STACK_PORT_OFFSET must be a whole number from 0 to 50000, not '${value}'`);
  return offset;
}

/** Every part of the local stack and its fixed port (DESIGN.md, "The local stack"), plus the offset. */
export const PORTS = {
  auth: 9099 + PORT_OFFSET,
  functions: 5001 + PORT_OFFSET,
  hosting: 5000 + PORT_OFFSET,
  firestore: 8080 + PORT_OFFSET,
  storage: 9199 + PORT_OFFSET,
  mailSink: 8025 + PORT_OFFSET,
  tasks: 9499 + PORT_OFFSET, // Cloud Tasks: print jobs' queue
  hub: 4400 + PORT_OFFSET, // firebase-tools' emulator hub
  logging: 4500 + PORT_OFFSET, // firebase-tools' log stream
} as const;
export type PartName = keyof typeof PORTS;

export const URLS = {
  auth: `http://${HOST}:${PORTS.auth}`,
  functions: `http://${HOST}:${PORTS.functions}`,
  hosting: `http://${HOST}:${PORTS.hosting}`,
  storage: `http://${HOST}:${PORTS.storage}`,
  mailSink: `http://${HOST}:${PORTS.mailSink}`,
  tasks: `http://${HOST}:${PORTS.tasks}`,
  api: `http://${HOST}:${PORTS.functions}/${PROJECT_ID}/${REGION}/api`,
  print: `http://${HOST}:${PORTS.functions}/${PROJECT_ID}/${REGION}/print`,
} as const;

/** The default bucket of a demo project, as the functions emulator tells the Admin SDK. */
export const BUCKET = `${PROJECT_ID}.appspot.com`;

/** The environment that points the Admin SDK and the functions at the local stack. */
export const EMULATOR_ENV = {
  FIRESTORE_EMULATOR_HOST: `${HOST}:${PORTS.firestore}`,
  FIREBASE_AUTH_EMULATOR_HOST: `${HOST}:${PORTS.auth}`,
  FIREBASE_STORAGE_EMULATOR_HOST: `${HOST}:${PORTS.storage}`,
  STORAGE_EMULATOR_HOST: `http://${HOST}:${PORTS.storage}`,
  // Read by the print function only under the emulator: where @sendgrid/mail sends.
  SENDGRID_API_URL: URLS.mailSink,
  GCLOUD_PROJECT: PROJECT_ID,
  // As on Cloud Functions: Express (the platform's layers in front of the function included) then
  // answers its own errors without a stack trace.
  NODE_ENV: "production",
  // Google's client libraries otherwise probe the cloud metadata server (a non-local address).
  METADATA_SERVER_DETECTION: "none",
} as const;

/** firebase-tools settings for this machine (DESIGN.md): no metadata probe, no update check. */
export const CACHE_DIR = join(ROOT_DIR, ".cache");
/** The local stack's throwaway signing identity (stack/signingCa.ts): its test CA is ca.pem (and ca.cer) here. */
export const SIGNING_DIR = join(CACHE_DIR, "signing");
/** Suffix of this stack's own files under .cache/ (logs, temporary files), so two stacks never share them. */
export const STACK_SUFFIX = PORT_OFFSET === 0 ? "" : `-${PORT_OFFSET}`;
export const FIREBASE_TOOLS_ENV = {
  METADATA_SERVER_DETECTION: "none",
  NO_UPDATE_NOTIFIER: "1",
  FIREBASE_FUNCTIONS_DISCOVERY_OUTPUT_PATH: "true",
  TMPDIR: join(CACHE_DIR, `tmp${STACK_SUFFIX}`),
  XDG_CONFIG_HOME: join(CACHE_DIR, "config"),
} as const;

function javaMajorVersion(): number {
  try {
    const out = execFileSync("java", ["-version"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return parseJavaVersion(out);
  } catch (error) {
    // `java -version` prints to stderr; execFileSync puts it on the error only when it fails.
    const stderr = (error as { stderr?: string }).stderr;
    return typeof stderr === "string" ? parseJavaVersion(stderr) : 0;
  }
}

function parseJavaVersion(text: string): number {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(text);
  if (!match) return 0;
  const major = Number(match[1]);
  return major === 1 ? Number(match[2]) : major; // "1.8" is Java 8
}

function hasEmulatorJar(prefix: string): boolean {
  const dir = join(homedir(), ".cache", "firebase", "emulators");
  return existsSync(dir) && readdirSync(dir).some((f) => f.startsWith(prefix) && f.endsWith(".jar"));
}

export type EmulatorSource = "google" | "fallback";

/**
 * Google's Firestore emulator and storage rules runtime need Java 21 and their JARs (downloaded
 * once by `firebase setup:emulators:firestore` and `:storage`). Where both are present the stack
 * uses them; otherwise the JavaScript fallbacks. `STACK_EMULATORS=fallback` forces the fallbacks.
 */
export function chooseEmulatorSource(): EmulatorSource {
  if (process.env.STACK_EMULATORS === "fallback") return "fallback";
  const google = javaMajorVersion() >= 21 && hasEmulatorJar("cloud-firestore-emulator") && hasEmulatorJar("cloud-storage-rules-runtime");
  return google ? "google" : "fallback";
}
