import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PORTS, ROOT_DIR, URLS } from "../../stack/config";
import { FIREBASE_LOG } from "../../stack/firebaseEmulators";
import { StackError, startStack } from "../../stack/stack";
import { call } from "../helpers";

/** The Node major production runs: firebase.json's runtime ("nodejs22" -> "22"), the single source of truth. */
const productionMajor = (JSON.parse(readFileSync(join(ROOT_DIR, "firebase.json"), "utf8")).functions[0].runtime as string).replace(/^nodejs/, "");

/** Executables of the functions emulator's workers (Linux /proc): the processes that run the functions' code. */
function functionWorkerExecutables(): string[] {
  const executables = new Set<string>();
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("functionsEmulatorRuntime")) executables.add(readlinkSync(`/proc/${pid}/exe`));
    } catch {
      // the process ended meanwhile, or is not ours to read
    }
  }
  return [...executables];
}

describe("the launcher", () => {
  it("refuses to start a second stack, naming the part whose port is taken, and leaves the running one alone", async () => {
    const attempt = startStack();
    await expect(attempt).rejects.toBeInstanceOf(StackError);
    await expect(attempt).rejects.toThrow(new RegExp(`^auth emulator: port ${PORTS.auth} is already in use`));
    // The stack under test still answers: the failed start stopped only what it had started.
    expect((await call(`${URLS.mailSink}/messages`)).status).toBe(200);
    expect((await call(`${URLS.auth}/`)).status).toBe(200);
  });

  it("runs the functions on the Node major production runs (firebase.json's runtime)", async () => {
    expect((await call(`${URLS.api}/api/openapi.json`)).status).toBe(200); // a worker exists once a function has served
    // firebase-tools' own choice, in its log: the Node that runs it, which must be the production major.
    expect(readFileSync(FIREBASE_LOG, "utf8")).toContain(`Using node@${productionMajor} from host.`);
    if (process.platform === "linux") {
      const workers = functionWorkerExecutables();
      expect(workers.length).toBeGreaterThan(0);
      for (const executable of workers) expect(execFileSync(executable, ["--version"], { encoding: "utf8" }).trim()).toMatch(new RegExp(`^v${productionMajor}\\.`));
    }
  });
});
