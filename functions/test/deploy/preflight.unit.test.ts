import { existsSync, readFileSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FUNCTIONS_DIR, PROJECT_ID, ROOT_DIR } from "../../stack/config";
import { BUNDLED_PROFILE, SRGB_PROFILE } from "../../src/print/render/profile";
import { FONT_FILES } from "../../src/print/render/text/fonts";
import {
  PreflightError,
  checkRuntime,
  discoverBuild,
  emulatorVariables,
  functionsConfig,
  projectEnvs,
  readJson,
  resolveParams,
  staleBuildOutput,
  type Build,
  type Endpoint,
  type PreflightInput,
} from "./preflight";

// The deploy preflight (test/deploy/preflight.ts): firebase-tools' own offline checks of a deploy
// against this repository's firebase.json, functions/package.json and build. The runtime guard is
// asked about a fixed day (CHECKED_ON), never the clock's: a test must not start failing on a date
// (`firebase deploy` runs the same guard on the day of a deploy and refuses a decommissioned runtime).

const firebaseJson = readJson<PreflightInput["firebaseJson"]>(join(ROOT_DIR, "firebase.json"));
const enginesNode = readJson<{ engines?: { node?: string } }>(join(FUNCTIONS_DIR, "package.json")).engines?.node;
/** The day the runtime was last confirmed supported: move it on when firebase-tools or the runtime changes. */
const CHECKED_ON = new Date("2026-11-27T00:00:00Z");
const here = { firebaseJson, enginesNode, localNode: process.version, now: CHECKED_ON };
const withRuntime = (runtime: string) => ({ functions: { ...functionsConfig(firebaseJson), runtime } });

describe("the runtime firebase.json names", () => {
  it("passes firebase-tools' runtime guard on the day it was checked, and equals engines.node and the Node that runs the emulator and these tests", () => {
    const { runtime, warnings } = checkRuntime(here);
    expect(runtime).toBe(functionsConfig(firebaseJson).runtime);
    expect(`nodejs${enginesNode}`).toBe(runtime);
    expect(`nodejs${process.versions.node.split(".")[0]}`).toBe(runtime);
    // A runtime close to or past its deprecation still deploys; firebase-tools' warning names the decommission date.
    for (const warning of warnings) {
      console.warn(`deploy preflight: ${warning}`);
      expect(warning).toMatch(/decommissioned on \d{4}-\d{2}-\d{2}/);
    }
    // The same guard on the clock's date, printed and never asserted: the runtime's deprecation shows
    // in the output months before a deploy would be refused, and no test fails on a date.
    try {
      for (const warning of checkRuntime({ ...here, now: new Date() }).warnings) console.warn(`deploy preflight, today: ${warning}`);
    } catch (error) {
      console.warn(`deploy preflight, today: ${(error as Error).message}`);
    }
  });

  it("fails for nodejs20, decommissioned on 2026-10-30, with firebase-tools' reason and what to change", () => {
    const old = { ...here, firebaseJson: withRuntime("nodejs20"), enginesNode: "20", localNode: "v20.20.2" };
    expect(() => checkRuntime(old)).toThrow(PreflightError);
    expect(() => checkRuntime(old)).toThrow(/Runtime Node\.js 20 was decommissioned on 2026-10-30\..*Change "runtime" in firebase\.json/s);
  });

  it("warns about nodejs22 from its deprecation on 2027-04-30 with its decommission date, and fails after that date", () => {
    const on = (day: string) => ({ ...here, firebaseJson: withRuntime("nodejs22"), enginesNode: "22", localNode: "v22.23.3", now: new Date(`${day}T12:00:00Z`) });
    expect(checkRuntime(on("2026-12-01")).warnings).toEqual([]);
    expect(checkRuntime(on("2027-02-15")).warnings).toEqual([expect.stringMatching(/will be deprecated on 2027-04-30 and will be decommissioned on 2028-10-31/)]);
    expect(checkRuntime(on("2027-11-22")).warnings).toEqual([expect.stringMatching(/was deprecated on 2027-04-30 and will be decommissioned on 2028-10-31/)]);
    expect(() => checkRuntime(on("2028-11-01"))).toThrow(/Runtime Node\.js 22 was decommissioned on 2028-10-31/);
  });

  it("fails when engines.node or the local Node disagrees with firebase.json, naming what to change", () => {
    expect(() => checkRuntime({ ...here, firebaseJson: withRuntime("nodejs22"), enginesNode: "20", localNode: "v22.1.0" })).toThrow(/engines\.node is "20", but firebase\.json deploys to nodejs22: set it to "22"/);
    expect(() => checkRuntime({ ...here, firebaseJson: withRuntime("nodejs22"), enginesNode: "22", localNode: "v20.20.2" })).toThrow(/emulator runs the functions on the Node that runs firebase-tools, here v20\.20\.2, but production runs nodejs22/);
    expect(() => checkRuntime({ ...here, firebaseJson: withRuntime("python312") })).toThrow(/must name a Node\.js functions runtime/);
  });
});

describe("firebase-tools discovery of the built functions", () => {
  let build: Build;
  beforeAll(async () => {
    build = await discoverBuild({ firebaseJson, projectId: PROJECT_ID });
  }, 60_000);

  it("finds exactly the two HTTPS functions, the print-job task queue and its reaper's schedule, 2nd gen, in us-central1", () => {
    expect(Object.keys(build.endpoints).sort()).toEqual(["api", "print", "printJobReaper", "printJobTask"]);
    for (const endpoint of Object.values(build.endpoints)) {
      expect(endpoint.platform).toBe("gcfv2");
      expect(endpoint.region).toEqual(["us-central1"]);
    }
    expect(build.endpoints.api.httpsTrigger).toBeDefined();
    expect(build.endpoints.print.httpsTrigger).toBeDefined();
    // Only Cloud Tasks invokes it, with the queue's retries and rates from config.ts (deployed as they are, not the emulator's).
    expect(build.endpoints.printJobTask.taskQueueTrigger).toMatchObject({
      retryConfig: { maxAttempts: 5, minBackoffSeconds: 5, maxBackoffSeconds: 300 },
      rateLimits: { maxConcurrentDispatches: 10, maxDispatchesPerSecond: 20 },
    });
    expect((build.endpoints.printJobReaper as { scheduleTrigger?: unknown }).scheduleTrigger).toMatchObject({ schedule: "every 15 minutes" });
  });

  it("declares each function's instance settings: print gets more memory and fewer requests per instance", () => {
    const settings = (e: Endpoint) => ({ memory: e.availableMemoryMb, cpu: e.cpu, concurrency: e.concurrency, timeoutSeconds: e.timeoutSeconds, maxInstances: e.maxInstances });
    expect(settings(build.endpoints.api)).toEqual({ memory: 256, cpu: 1, concurrency: 80, timeoutSeconds: 30, maxInstances: 20 });
    expect(settings(build.endpoints.print)).toEqual({ memory: 1024, cpu: 1, concurrency: 8, timeoutSeconds: 60, maxInstances: 10 });
  });

  it("lists every param, the SendGrid and signing chain secrets on print only, and no default that only suits the demo project", () => {
    const params = Object.fromEntries(build.params.map((p) => [p.name, p]));
    expect(Object.keys(params).sort()).toEqual(["CORS_ORIGINS", "JOB_DOCUMENTS_PER_TARGET_PER_DAY", "LOGO_UPLOADS_PER_TARGET_PER_DAY", "MAIL_FROM_EMAIL", "MAIL_FROM_NAME", "PREVIEWS_PER_USER_PER_HOUR", "RENDERS_PER_USER_PER_HOUR", "SENDGRID_API_KEY", "SIGNING_CERTIFICATE_CHAIN", "SIGNING_KMS_KEY", "SIGNING_PREVIOUS_CHAINS", "TRUSTED_PROXY_HOPS", "WEB_API_KEY"]);
    expect(params.SENDGRID_API_KEY.type).toBe("secret");
    expect(params.SIGNING_CERTIFICATE_CHAIN.type).toBe("secret");
    // Optional: a deployment that signs nothing needs no KMS key (a target with sign on then answers 503).
    expect(params.SIGNING_KMS_KEY.default).toBe("");
    // Optional too: only a deployment that rotated its key lists the chains it had before.
    expect(params.SIGNING_PREVIOUS_CHAINS.default).toBe("");
    expect(params.MAIL_FROM_NAME.default).toBe("Print service");
    // A real project gets the production quota unless it sets one; only the demo project lifts it.
    expect(params.RENDERS_PER_USER_PER_HOUR.default).toBe(120);
    // Without a load balancer of its own a deployment trusts Google's front end only: the last hop.
    expect(params.TRUSTED_PROXY_HOPS.default).toBe(0);
    // A deploy must be given these for the real project: a localhost origin list or a fake key would deploy silently.
    expect(params.WEB_API_KEY.default).toBeUndefined();
    expect(params.CORS_ORIGINS.default).toBeUndefined();
    expect(build.endpoints.print.secretEnvironmentVariables?.map((s) => s.key)).toEqual(["SENDGRID_API_KEY", "SIGNING_CERTIFICATE_CHAIN"]);
    expect(build.endpoints.api.secretEnvironmentVariables ?? []).toEqual([]);
  });

  it("resolves every param of the demo project from functions/.env.demo-print-admin, as a non-interactive deploy would", async () => {
    const values = await resolveParams(build, PROJECT_ID, projectEnvs(PROJECT_ID));
    for (const param of build.params.filter((p) => p.type !== "secret")) expect(values[param.name], param.name).toBeDefined();
  });

  it("refuses a non-interactive deploy to a project without values, naming the params to set", async () => {
    await expect(resolveParams(build, "some-real-project", projectEnvs("some-real-project"))).rejects.toThrow(/no value for the following environment variables: .*WEB_API_KEY/);
    await expect(resolveParams(build, "some-real-project", {})).rejects.toThrow(/CORS_ORIGINS/);
  });

  it("every param and secret is in the README's configuration table, those without a default marked required", () => {
    const readme = readFileSync(join(ROOT_DIR, "README.md"), "utf8");
    for (const param of build.params) {
      const row = readme.split("\n").find((line) => line.startsWith(`| \`${param.name}\` |`));
      expect(row, `README.md documents ${param.name}`).toBeDefined();
      if (param.default === undefined) expect(row, `README.md marks ${param.name} as required`).toMatch(/required/);
    }
  });
});

describe("Firestore indexes and TTL policies (firestore.indexes.json, wired in firebase.json)", () => {
  const spec = readJson<{ indexes: { collectionGroup: string; fields: { fieldPath: string }[] }[]; fieldOverrides: { collectionGroup: string; fieldPath: string; ttl?: boolean }[] }>(join(ROOT_DIR, "firestore.indexes.json"));

  it("passes firebase-tools' own validation of the file a deploy sends", () => {
    expect((firebaseJson as { firestore?: { indexes?: string } }).firestore?.indexes).toBe("firestore.indexes.json");
    const { FirestoreApi } = require(require.resolve("firebase-tools/lib/firestore/api", { paths: [ROOT_DIR] }));
    expect(() => new FirestoreApi().validateSpec(spec)).not.toThrow();
  });

  it("declares a composite index for each filtered query of the audit trail and of print jobs' filter, and a TTL on every expiring collection", () => {
    const shapes = spec.indexes.filter((i) => i.collectionGroup === "auditEvents").map((i) => i.fields.map((f) => f.fieldPath).join(","));
    expect(shapes.sort()).toEqual(["action,at,__name__", "action,subject,at,__name__", "subject,at,__name__"]);
    // A print job's filter: objectTypeName == and a range on updatedAt, ordered by updatedAt and id (without objectTypeName, single-field indexes serve it).
    expect(spec.indexes.filter((i) => i.collectionGroup === "objectInstances").map((i) => i.fields.map((f) => f.fieldPath).join(","))).toEqual(["objectTypeName,updatedAt,__name__"]);
    // The print-job reaper's query across every target (active jobs created before a time), and a new
    // job's bound under its root (the root's active jobs).
    expect(spec.indexes.filter((i) => i.collectionGroup === "printJobs").map((i) => `${(i as { queryScope?: string }).queryScope}:${i.fields.map((f) => f.fieldPath).join(",")}`)).toEqual(["COLLECTION_GROUP:active,createdAt", "COLLECTION_GROUP:root,active,createdAt"]);
    const ttl = spec.fieldOverrides.filter((f) => f.ttl).map((f) => `${f.collectionGroup}.${f.fieldPath}`);
    expect(ttl.sort()).toEqual(["auditEvents.expireAt", "chunks.expireAt", "idempotencyKeys.expireAt", "printJobs.expireAt", "printedPdfs.expireAt", "rateLimits.expiresAt", "secrets.expireAt", "signInFailures.expireAt"]);
  });
});

describe("what a deploy uploads", () => {
  it("keeps firebase-tools' default ignore entries beside the project's own", () => {
    const ignore = functionsConfig(firebaseJson).ignore ?? [];
    // What `firebase init functions` writes: the local env and secret files (*.local) never leave the machine.
    for (const entry of ["node_modules", ".git", "firebase-debug.log", "firebase-debug.*.log", "*.local"]) expect(ignore).toContain(entry);
    for (const entry of ["src", "test", "stack", "bench", "docs"]) expect(ignore).toContain(entry);
  });

  it("sets no emulator variable in the .env files a deploy reads, for every project they name", () => {
    // functions/.env, and .env.<project> of each project (.local files are the emulator's and never deployed).
    const projects = readdirSync(FUNCTIONS_DIR).flatMap((name) => /^\.env\.([^.]+)$/.exec(name)?.[1] ?? []);
    expect(projects).toContain(PROJECT_ID);
    for (const project of projects) expect(emulatorVariables(projectEnvs(project)), project).toEqual([]);
    expect(emulatorVariables({ FIREBASE_AUTH_EMULATOR_HOST: "127.0.0.1:9099", FIRESTORE_EMULATOR_HOST: "x", FUNCTIONS_EMULATOR: "true", MAIL_FROM_EMAIL: "a@b.c" })).toEqual([
      "FIREBASE_AUTH_EMULATOR_HOST",
      "FIRESTORE_EMULATOR_HOST",
      "FUNCTIONS_EMULATOR",
    ]);
  });

  it("lib/ holds only what src/ compiles to: npm run build starts from an empty lib/", () => {
    expect(staleBuildOutput()).toEqual([]);
  });

  it("carries the sRGB profile of PDF/A output intents in lib/icc, its package being a development dependency only", () => {
    const pkg = readJson<{ dependencies: Record<string, string>; devDependencies: Record<string, string> }>(join(FUNCTIONS_DIR, "package.json"));
    expect(existsSync(join(FUNCTIONS_DIR, "lib", "icc", basename(BUNDLED_PROFILE)))).toBe(true);
    const name = SRGB_PROFILE.package.split("/")[0];
    expect(pkg.devDependencies[name]).toBeDefined();
    expect(pkg.dependencies[name]).toBeUndefined();
  });

  it("carries the renderer's fonts in lib/fonts, their packages being development dependencies only", () => {
    const pkg = readJson<{ dependencies: Record<string, string>; devDependencies: Record<string, string> }>(join(FUNCTIONS_DIR, "package.json"));
    for (const file of FONT_FILES) {
      expect(existsSync(join(FUNCTIONS_DIR, "lib", "fonts", file)), file).toBe(true);
      const name = file.split("/").slice(0, 2).join("/");
      expect(pkg.devDependencies[name], name).toBeDefined();
      expect(pkg.dependencies[name], name).toBeUndefined();
    }
  });
});
