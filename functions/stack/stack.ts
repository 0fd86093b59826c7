import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { join } from "node:path";
import {
  EMULATOR_ENV,
  FIREBASE_TOOLS_ENV,
  FUNCTIONS_DIR,
  HOST,
  PORTS,
  PROJECT_ID,
  SIGNING_DIR,
  URLS,
  chooseEmulatorSource,
  type EmulatorSource,
  type PartName,
} from "./config";
import { FaultControl } from "./faults";
import { FIREBASE_LOG, startFirebaseEmulators } from "./firebaseEmulators";
import { startFirestoreFallback, type FirestoreFallback } from "./firestoreFallback";
import { LOCAL_SIGNING_KEY_ENV } from "../src/config";
import { MailSink } from "./mailSink";
import { ensureSigningIdentity } from "./signingCa";
import { startStorageFallback, type StorageFallback } from "./storageFallback";

/** A part of the stack failed to start; the message names the part and the cause. */
export class StackError extends Error {
  constructor(readonly part: string, cause: string) {
    super(`${part}: ${cause}`);
    this.name = "StackError";
  }
}

export interface Stack {
  source: EmulatorSource;
  /** Present when the stack runs the JavaScript Firestore emulator. */
  firestoreFallback?: FirestoreFallback;
  storageFallback?: StorageFallback;
  mailSink: MailSink;
  /** Settles if firebase-tools exits on its own (a crash); `stop()` also settles it. */
  firebaseExited: Promise<{ code: number | null; tail: string }>;
  stop(): Promise<void>;
}

const PART_LABELS: Record<PartName, string> = {
  auth: "auth emulator",
  functions: "functions emulator",
  hosting: "hosting emulator",
  firestore: "Firestore emulator",
  storage: "Cloud Storage emulator",
  mailSink: "mail sink",
  tasks: "Cloud Tasks emulator",
  hub: "emulator hub (firebase-tools)",
  logging: "emulator log stream (firebase-tools)",
};

const READY_TIMEOUT_MS = 120_000;

function assertPortFree(part: PartName): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => {
      const cause =
        error.code === "EADDRINUSE"
          ? `port ${PORTS[part]} is already in use (another stack running? \`ss -ltnp 'sport = :${PORTS[part]}'\` shows who holds it)`
          : `cannot listen on ${HOST}:${PORTS[part]} (${error.code ?? error.message})`;
      reject(new StackError(PART_LABELS[part], cause));
    });
    probe.listen(PORTS[part], HOST, () => probe.close(() => resolve()));
  });
}

/** Answers `true` once `url` responds with an HTTP status and a body `accept` likes. */
async function answers(url: string, accept: (status: number, body: string) => boolean): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return accept(res.status, await res.text());
  } catch {
    return false;
  }
}

const isOurJson404 = (status: number, body: string) => status === 404 && body.includes('"statusCode":404');

/** How each part shows that it is up. Functions answer through our own JSON 404. */
const READINESS: Partial<Record<PartName, () => Promise<boolean>>> = {
  auth: () => answers(`${URLS.auth}/`, (s) => s === 200),
  storage: () => answers(`${URLS.storage}/`, () => true), // its root answers 501: any HTTP answer means up
  mailSink: () => answers(`${URLS.mailSink}/`, (s) => s === 200),
  tasks: () => tcpOpen(PORTS.tasks),
  firestore: () => tcpOpen(PORTS.firestore), // the fallback speaks gRPC only
  functions: async () => (await answers(`${URLS.api}/api/`, isOurJson404)) && (await answers(`${URLS.print}/print/`, isOurJson404)),
  hosting: async () => (await answers(`${URLS.hosting}/api/`, isOurJson404)) && (await answers(`${URLS.hosting}/print/`, isOurJson404)),
};

function tcpOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, HOST);
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

async function waitUntilReady(part: PartName, failed: Promise<never>): Promise<void> {
  const check = READINESS[part];
  if (!check) return;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (await Promise.race([check(), failed])) return;
    if (Date.now() > deadline) {
      throw new StackError(PART_LABELS[part], `did not answer within ${READY_TIMEOUT_MS / 1000} s (see ${FIREBASE_LOG})`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A value as a line of functions/.secret.local: double-quoted, its line breaks as \n (firebase-tools' dotenv reads them back). */
const secretLine = (key: string, value: string): string => `${key}="${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\r?\n/g, "\\n")}"`;

/**
 * The functions emulator reads secrets from functions/.secret.local and would otherwise ask Secret
 * Manager (unreachable here); it also hands every entry of the file to the functions as environment
 * variables. Written here, before the functions emulator starts:
 * - SENDGRID_API_KEY: a fixed fake key, if the developer has not put one there (the mail sink accepts any);
 * - the signing identity (issue 36): the stack's throwaway test CA and signing key in .cache/signing
 *   (made at first start, made again near its end), as SIGNING_CERTIFICATE_CHAIN (the production
 *   secret's name: the functions read the chain the same way in both) and SIGNING_LOCAL_KEY (read under
 *   the emulator only). Both lines are the launcher's: replaced at every start, so a renewed
 *   certificate reaches the functions.
 */
function ensureLocalSecrets(): void {
  const file = join(FUNCTIONS_DIR, ".secret.local");
  const identity = ensureSigningIdentity(SIGNING_DIR, new Date());
  const managed = ["SIGNING_CERTIFICATE_CHAIN", LOCAL_SIGNING_KEY_ENV];
  const current = existsSync(file) ? readFileSync(file, "utf8") : "";
  const lines = current.split("\n").filter((line) => line !== "" && !managed.some((key) => line.startsWith(`${key}=`)));
  if (!lines.some((line) => line.startsWith("SENDGRID_API_KEY="))) lines.push("SENDGRID_API_KEY=SG.local-emulator-key");
  lines.push(secretLine("SIGNING_CERTIFICATE_CHAIN", identity.chainPem), secretLine(LOCAL_SIGNING_KEY_ENV, identity.keyPem));
  const text = `${lines.join("\n")}\n`;
  if (text !== current) writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600); // it holds a private key, if a throwaway one
}

/**
 * Starts every part of the local stack on its fixed port and resolves once all of them answer.
 * On failure it stops whatever it had started and throws a StackError naming the part.
 */
export async function startStack(): Promise<Stack> {
  const source = chooseEmulatorSource();
  const parts: PartName[] = ["auth", "functions", "hosting", "firestore", "storage", "mailSink", "tasks", "hub", "logging"];
  for (const part of parts) await assertPortFree(part);
  if (!existsSync(join(FUNCTIONS_DIR, "lib", "index.js"))) {
    throw new StackError(PART_LABELS.functions, "missing build: functions/lib/index.js does not exist (run `npm --prefix functions run build`)");
  }

  ensureLocalSecrets();

  // The Admin SDK in this process (seeding, tests) talks to the same emulators as the functions.
  Object.assign(process.env, EMULATOR_ENV);
  mkdirSync(FIREBASE_TOOLS_ENV.TMPDIR, { recursive: true });
  process.env.TMPDIR = FIREBASE_TOOLS_ENV.TMPDIR; // the storage emulator keeps its blobs under it

  const stoppers: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
    stoppers.length = 0;
  };

  try {
    // The mail sink also serves /faults, which acts on the fallbacks (stack/faults.ts).
    const faults = new FaultControl();
    const mailSink = new MailSink(faults);
    await mailSink.start(PORTS.mailSink, HOST).catch((e: Error) => {
      throw new StackError(PART_LABELS.mailSink, e.message);
    });
    stoppers.push(() => mailSink.stop());

    let firestoreFallback: FirestoreFallback | undefined;
    let storageFallback: StorageFallback | undefined;
    if (source === "fallback") {
      firestoreFallback = await startFirestoreFallback(PORTS.firestore, HOST).catch((e: Error) => {
        throw new StackError(PART_LABELS.firestore, e.message);
      });
      stoppers.push(() => firestoreFallback!.stop());
      storageFallback = await startStorageFallback(PROJECT_ID, PORTS.storage, HOST).catch((e: Error) => {
        throw new StackError(PART_LABELS.storage, e.message);
      });
      stoppers.push(() => storageFallback!.stop());
      faults.firestore = firestoreFallback;
      faults.storage = storageFallback;
    }

    // Cloud Tasks runs print jobs: firebase-tools' emulator, which registers the task-queue function's queue.
    const only = source === "google" ? ["auth", "functions", "hosting", "tasks", "firestore", "storage"] : ["auth", "functions", "hosting", "tasks"];
    const firebase = startFirebaseEmulators(only);
    stoppers.push(() => firebase.stop());
    const failed = firebase.exited.then(({ code, tail }) => {
      throw new StackError("firebase-tools", `exited with code ${code} before the stack was ready. Its last output:\n${tail.trim()}`);
    });
    failed.catch(() => undefined); // observed through waitUntilReady

    for (const part of ["auth", "firestore", "storage", "mailSink", "tasks", "functions", "hosting"] as PartName[]) {
      await waitUntilReady(part, failed);
    }
    return { source, firestoreFallback, storageFallback, mailSink, firebaseExited: firebase.exited, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
