import { existsSync, readFileSync, readdirSync } from "node:fs";
import { basename, join, relative, sep } from "node:path";
import { FUNCTIONS_DIR, ROOT_DIR } from "../../stack/config";
import { BUNDLED_PROFILE } from "../../src/print/render/profile";
import { FONT_FILES } from "../../src/print/render/text/fonts";

// The checks `firebase deploy --only functions` makes before it touches a project, run offline with
// firebase-tools' own code (the pinned version of the root package.json): the runtime guard on a given
// date, the package checks, discovery of the built functions on that runtime, and the params. Plus
// what firebase-tools cannot see: that production, the functions' `engines` and the Node that runs the
// emulator (and these tests) agree, and that lib/ holds only what src/ builds.
//
// firebase.json's `runtime` is the single source of truth: everything else is compared with it.

const firebaseTools = (path: string) => require(require.resolve(`firebase-tools/lib/${path}`, { paths: [ROOT_DIR] }));

export interface Endpoint {
  platform: string;
  region: string[];
  httpsTrigger?: object;
  secretEnvironmentVariables?: { key: string }[];
  availableMemoryMb?: number;
  cpu?: number;
  concurrency?: number;
  timeoutSeconds?: number;
  maxInstances?: number;
  taskQueueTrigger?: Record<string, unknown>;
}

export interface Param {
  name: string;
  type?: string;
  default?: unknown;
}

export interface Build {
  endpoints: Record<string, Endpoint>;
  params: Param[];
}

export interface PreflightInput {
  /** firebase.json's content. */
  firebaseJson: { functions: { source: string; runtime?: string; ignore?: string[] } | { source: string; runtime?: string; ignore?: string[] }[] };
  /** functions/package.json's `engines.node`. */
  enginesNode: string | undefined;
  /** The Node version that runs the emulator (and so the functions locally), e.g. process.version. */
  localNode: string;
  /** The day of the deploy. */
  now: Date;
  /** The project to check params for, and the environment of its functions/.env.<project> files. */
  projectId: string;
}

export interface PreflightResult {
  runtime: string;
  /** What firebase-tools would warn about on that date (a deprecated runtime and its decommission date). */
  warnings: string[];
}

export class PreflightError extends Error {}

/** The functions codebase of firebase.json (this project has exactly one). */
export function functionsConfig(firebaseJson: PreflightInput["firebaseJson"]) {
  const codebases = [firebaseJson.functions].flat();
  if (codebases.length !== 1) throw new PreflightError(`firebase.json should declare one functions codebase, not ${codebases.length}.`);
  return codebases[0];
}

/** The runtime checks: firebase-tools' guard on `now`, then engines and the local Node against it. */
export function checkRuntime(input: Omit<PreflightInput, "projectId">): PreflightResult {
  const runtime = functionsConfig(input.firebaseJson).runtime;
  const supported = firebaseTools("deploy/functions/runtimes/supported");
  if (!runtime || !supported.isRuntime(runtime) || !supported.runtimeIsLanguage(runtime, "nodejs")) {
    throw new PreflightError(`firebase.json must name a Node.js functions runtime ("runtime": "nodejs22"); it names ${JSON.stringify(runtime)}.`);
  }
  const warnings = captureWarnings(() => {
    try {
      supported.guardVersionSupport(runtime, input.now);
    } catch (error) {
      throw new PreflightError(`firebase deploy would refuse this runtime on ${input.now.toISOString().slice(0, 10)}: ${(error as Error).message} Change "runtime" in firebase.json and "engines.node" in functions/package.json.`);
    }
  });
  const major = runtime.slice("nodejs".length);
  if (input.enginesNode !== major) {
    throw new PreflightError(`functions/package.json's engines.node is ${JSON.stringify(input.enginesNode)}, but firebase.json deploys to ${runtime}: set it to "${major}".`);
  }
  const localMajor = input.localNode.replace(/^v/, "").split(".")[0];
  if (localMajor !== major) {
    throw new PreflightError(
      `The functions emulator runs the functions on the Node that runs firebase-tools, here ${input.localNode}, but production runs ${runtime}: ` +
        `run the stack and the tests through the root package.json scripts (npm start, npm test), which bring Node ${major}.`,
    );
  }
  return { runtime, warnings };
}

/** firebase-tools warns through utils.logLabeledWarning; the messages are collected instead of printed. */
function captureWarnings(run: () => void): string[] {
  const utils = firebaseTools("utils");
  const original = utils.logLabeledWarning;
  const warnings: string[] = [];
  utils.logLabeledWarning = (_label: string, message: string) => void warnings.push(message);
  try {
    run();
  } finally {
    utils.logLabeledWarning = original;
  }
  return warnings;
}

/** firebase-tools' package checks and discovery of the built functions, as `firebase deploy` runs them. */
export async function discoverBuild(input: Pick<PreflightInput, "firebaseJson" | "projectId">): Promise<Build> {
  const config = functionsConfig(input.firebaseJson);
  const sourceDir = join(ROOT_DIR, config.source);
  if (!existsSync(join(sourceDir, "lib", "index.js"))) throw new PreflightError("functions/lib/index.js is missing: run npm run build first.");
  process.env.FIREBASE_FUNCTIONS_DISCOVERY_OUTPUT_PATH = "true"; // a manifest file instead of a random port
  const { tryCreateDelegate } = firebaseTools("deploy/functions/runtimes/node");
  const delegate = await tryCreateDelegate({ projectId: input.projectId, projectDir: ROOT_DIR, sourceDir, runtime: config.runtime });
  if (delegate.runtime !== config.runtime) throw new PreflightError(`firebase-tools chose ${delegate.runtime}, firebase.json says ${config.runtime}.`);
  await delegate.validate();
  return (await delegate.discoverBuild({}, projectEnvs(input.projectId))) as Build;
}

/** The values functions/.env and functions/.env.<project> give the params, as a deploy reads them. */
export function projectEnvs(projectId: string): Record<string, string> {
  const { loadUserEnvs } = firebaseTools("functions/env");
  return loadUserEnvs({ functionsSource: FUNCTIONS_DIR, projectId, projectDir: ROOT_DIR });
}

/**
 * firebase-tools' own param resolution of a non-interactive deploy (CI): every param needs a value in the
 * project's .env files, defaults included. Secrets are not resolved (that asks Secret Manager).
 */
export async function resolveParams(build: Build, projectId: string, envs: Record<string, string>): Promise<Record<string, unknown>> {
  const { resolveParams: resolve } = firebaseTools("deploy/functions/params");
  try {
    const { paramValues } = await resolve({ params: build.params, firebaseConfig: { projectId }, userEnvs: envs, nonInteractive: true, isEmulator: true });
    return paramValues;
  } catch (error) {
    throw new PreflightError((error as Error).message);
  }
}

/**
 * Variables of a deploy's .env files that make the functions act as on the local stack: with
 * FUNCTIONS_EMULATOR they take http://127.0.0.1 webhooks and answer emulator download URLs, and a
 * *_EMULATOR_HOST sends the Admin SDK's calls to that host (SECURITY.md, section 13). firebase-tools
 * itself refuses keys starting with FIREBASE_ (FIREBASE_AUTH_EMULATOR_HOST among them).
 */
export const emulatorVariables = (envs: Record<string, string>): string[] => Object.keys(envs).filter((key) => /_EMULATOR_HOST$|^FUNCTIONS_EMULATOR$/.test(key));

/** Files in lib/ that no module of src/ compiles to (left over from a deleted module). */
export function staleBuildOutput(): string[] {
  const lib = join(FUNCTIONS_DIR, "lib");
  const stale: string[] = [];
  for (const entry of readdirSync(lib, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = relative(lib, join(entry.parentPath, entry.name));
    // The sRGB profile of PDF/A output intents (bundled like the fonts).
    if (path === join("icc", basename(BUNDLED_PROFILE))) continue;
    if (path.startsWith(`fonts${sep}`)) {
      // The font bundle (stack/bundleFonts.mjs): exactly the files the renderer reads.
      if (!FONT_FILES.includes(relative("fonts", path).split(sep).join("/"))) stale.push(`lib/${path}`);
      continue;
    }
    const source = path.replace(/\.js(\.map)?$/, ".ts").replace(/\.d\.ts$/, ".ts");
    if (!existsSync(join(FUNCTIONS_DIR, "src", source))) stale.push(`lib/${path}`);
  }
  return stale;
}

export function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, "utf8")) as T;
}
