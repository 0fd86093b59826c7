import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { CACHE_DIR, FUNCTIONS_DIR, HOST, PORTS, STACK_SUFFIX } from "../stack/config";

const READY_MARK = "local stack ready";
const START_TIMEOUT_MS = 150_000;
const STOP_TIMEOUT_MS = 30_000;
const LOG = join(CACHE_DIR, `test-stack${STACK_SUFFIX}.log`);

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, HOST);
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

/**
 * Runs the stack exactly as `npm start` does (same launcher, same demo data), and at the end
 * stops it with SIGINT, as Ctrl-C would, failing the run if any port is still held afterwards.
 */
export default async function setup(): Promise<() => Promise<void>> {
  mkdirSync(CACHE_DIR, { recursive: true });
  const log = createWriteStream(LOG);
  const child = spawn(process.execPath, ["--import", "tsx", "stack/start.ts"], { cwd: FUNCTIONS_DIR, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));

  await new Promise<void>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`The stack was not ready within ${START_TIMEOUT_MS / 1000} s; see ${LOG}`)), START_TIMEOUT_MS);
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (output.includes(READY_MARK)) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`The stack exited with code ${code} before it was ready:\n${output}\nsee ${LOG}`));
    });
  });

  // vitest only logs an error thrown here and still exits 0, so a failed check sets the exit code.
  const fail = (message: string) => {
    console.error(`\nFAILED after the tests: ${message}`);
    process.exitCode = 1;
  };

  return async () => {
    child.kill("SIGINT");
    const code = await Promise.race([exited, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), STOP_TIMEOUT_MS).unref())]);
    if (code === "timeout") {
      child.kill("SIGKILL");
      return fail(`the stack did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGINT (Ctrl-C)`);
    }
    log.end();
    const held = [];
    for (const [part, port] of Object.entries(PORTS)) if (await portOpen(port)) held.push(`${part} (${port})`);
    if (held.length > 0) fail(`after SIGINT (Ctrl-C) these ports are still held: ${held.join(", ")}`);
    else console.log("The stack stopped on SIGINT and released every port.");
  };
}
