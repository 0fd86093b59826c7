import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FUNCTIONS_DIR, ROOT_DIR } from "../../stack/config";

// Deploy readiness without a network: firebase-tools' own discovery (the step `firebase deploy` runs
// first) loads the built functions and reads what they declare. Needs `npm run build` (npm test runs it).

interface Endpoint {
  platform: string;
  region: string[];
  httpsTrigger?: object;
  secretEnvironmentVariables?: { key: string }[];
  availableMemoryMb?: number;
  cpu?: number;
  concurrency?: number;
  timeoutSeconds?: number;
  maxInstances?: number;
}

interface Build {
  endpoints: Record<string, Endpoint>;
  params: { name: string; type?: string; default?: unknown }[];
}

describe("firebase-tools discovery of the built functions", () => {
  let build: Build;
  beforeAll(async () => {
    expect(existsSync(join(FUNCTIONS_DIR, "lib", "index.js")), "run npm run build first").toBe(true);
    process.env.FIREBASE_FUNCTIONS_DISCOVERY_OUTPUT_PATH = "true"; // a manifest file instead of a random port
    const { tryCreateDelegate } = require(require.resolve("firebase-tools/lib/deploy/functions/runtimes/node", { paths: [ROOT_DIR] }));
    const delegate = await tryCreateDelegate({ projectId: "demo-print-admin", projectDir: ROOT_DIR, sourceDir: FUNCTIONS_DIR, runtime: "nodejs20" });
    build = await delegate.discoverBuild({}, {});
  }, 60_000);

  it("finds exactly the two HTTPS functions, 2nd gen, in us-central1", () => {
    expect(Object.keys(build.endpoints).sort()).toEqual(["api", "print"]);
    for (const endpoint of Object.values(build.endpoints)) {
      expect(endpoint.platform).toBe("gcfv2");
      expect(endpoint.region).toEqual(["us-central1"]);
      expect(endpoint.httpsTrigger).toBeDefined();
    }
  });

  it("declares each function's instance settings: print gets more memory and fewer requests per instance", () => {
    const settings = (e: Endpoint) => ({ memory: e.availableMemoryMb, cpu: e.cpu, concurrency: e.concurrency, timeoutSeconds: e.timeoutSeconds, maxInstances: e.maxInstances });
    expect(settings(build.endpoints.api)).toEqual({ memory: 256, cpu: 1, concurrency: 80, timeoutSeconds: 30, maxInstances: 20 });
    expect(settings(build.endpoints.print)).toEqual({ memory: 1024, cpu: 1, concurrency: 8, timeoutSeconds: 60, maxInstances: 10 });
  });

  it("lists every param with its default, and the SendGrid secret on print only", () => {
    const params = Object.fromEntries(build.params.map((p) => [p.name, p]));
    expect(Object.keys(params).sort()).toEqual(["CORS_ORIGINS", "MAIL_FROM_EMAIL", "MAIL_FROM_NAME", "SENDGRID_API_KEY", "WEB_API_KEY"]);
    expect(params.SENDGRID_API_KEY.type).toBe("secret");
    expect(params.MAIL_FROM_NAME.default).toBe("Print service");
    expect(build.endpoints.print.secretEnvironmentVariables?.map((s) => s.key)).toEqual(["SENDGRID_API_KEY"]);
    expect(build.endpoints.api.secretEnvironmentVariables ?? []).toEqual([]);
  });
});
