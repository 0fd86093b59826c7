import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CACHE_DIR, EMULATOR_ENV, FIREBASE_TOOLS_ENV, PORTS, PORT_OFFSET, PROJECT_ID, ROOT_DIR, STACK_SUFFIX } from "./config";

export const FIREBASE_LOG = join(CACHE_DIR, `emulators${STACK_SUFFIX}.log`);

/**
 * firebase.json itself, or (with a port offset) a copy beside it with the offset ports. The copy
 * lives in the repository root so that its relative paths (functions/, rules) still resolve.
 */
function firebaseConfigFile(): string {
  if (PORT_OFFSET === 0) return join(ROOT_DIR, "firebase.json");
  const config = JSON.parse(readFileSync(join(ROOT_DIR, "firebase.json"), "utf8"));
  const ports: Record<string, number> = { auth: PORTS.auth, functions: PORTS.functions, hosting: PORTS.hosting, firestore: PORTS.firestore, storage: PORTS.storage, tasks: PORTS.tasks, hub: PORTS.hub, logging: PORTS.logging };
  for (const [name, port] of Object.entries(ports)) config.emulators[name] = { ...config.emulators[name], port };
  const file = join(ROOT_DIR, `.firebase.stack${STACK_SUFFIX}.json`);
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

export interface FirebaseEmulators {
  /** Resolves when the process has exited, with the last lines it printed. */
  exited: Promise<{ code: number | null; tail: string }>;
  stop(): Promise<void>;
}

/**
 * Runs `firebase emulators:start` for the parts firebase-tools runs here (auth, functions, hosting,
 * plus firestore and storage when Google's emulators are available), in its own process group so
 * that stopping it also stops the function workers it forks. Its output goes to .cache/emulators.log.
 */
export function startFirebaseEmulators(only: string[]): FirebaseEmulators {
  for (const dir of [CACHE_DIR, FIREBASE_TOOLS_ENV.TMPDIR, FIREBASE_TOOLS_ENV.XDG_CONFIG_HOME]) mkdirSync(dir, { recursive: true });
  const log = createWriteStream(FIREBASE_LOG);
  const cli = require.resolve("firebase-tools/lib/bin/firebase.js", { paths: [ROOT_DIR] });
  const child: ChildProcess = spawn(process.execPath, [cli, "emulators:start", "--only", only.join(","), "--project", PROJECT_ID, "--config", firebaseConfigFile()], {
    cwd: ROOT_DIR,
    env: { ...process.env, ...FIREBASE_TOOLS_ENV, ...EMULATOR_ENV },
    detached: true, // own process group: see stop()
    stdio: ["ignore", "pipe", "pipe"],
  });
  let tail = "";
  const keep = (chunk: Buffer) => {
    log.write(chunk);
    tail = (tail + chunk.toString("utf8")).slice(-4000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<{ code: number | null; tail: string }>((resolve) => {
    child.on("exit", (code) => {
      log.end();
      resolve({ code, tail });
    });
  });

  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // the group is already gone
    }
  };

  return {
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return signalGroup("SIGKILL");
      // firebase-tools stops its emulators on SIGINT; anything left after 10 s is killed.
      signalGroup("SIGINT");
      const timer = setTimeout(() => signalGroup("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
      signalGroup("SIGKILL"); // function workers that outlived their parent
    },
  };
}
