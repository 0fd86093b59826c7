/**
 * Cloud Storage for the local stack where Google's storage rules runtime (a Java 21 JAR) cannot
 * run: firebase-tools' own JavaScript storage emulator, constructed from code, with its rules
 * runtime replaced. The Admin SDK never consults rules; a client request is allowed only with a
 * valid download token (checked by the emulator before rules) and denied otherwise.
 *
 * This relies on firebase-tools internals (the lib/ paths and members below). firebase-tools is
 * pinned exactly in the root package.json, and test/stack/storageInternals.test.ts fails loudly
 * when an upgrade changes what is used here.
 */

// firebase-tools ships no type declarations; these are the members this module uses.
interface StorageEmulatorArgs {
  projectId: string;
  host: string;
  port: number;
  rules: { name: string; content: string };
  auto_download: boolean;
}
interface StorageEmulatorInstance {
  reset(): void;
  getName(): string;
  /** The Express app serving the emulator's HTTP API (set by start()). */
  getApp(): ExpressAppHandle;
}
/** An Express app: its listener calls `app.handle(req, res, next)`, looked up on each request. */
interface ExpressAppHandle {
  handle(req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void;
}
type StorageEmulatorClass = new (args: StorageEmulatorArgs) => StorageEmulatorInstance;

// Resolved from the root package.json, which pins firebase-tools.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { storageFaultApplies, type Faultable, type StorageFault } from "./faults";
import { functionOfProcess, pidOfLocalPort } from "./socketOwner";

const { StorageEmulator } = require("firebase-tools/lib/emulator/storage") as { StorageEmulator: StorageEmulatorClass };
const { EmulatorRegistry } = require("firebase-tools/lib/emulator/registry") as {
  EmulatorRegistry: { start(instance: StorageEmulatorInstance): Promise<void>; stop(name: string): Promise<void> };
};
const { Emulators } = require("firebase-tools/lib/emulator/types") as { Emulators: { STORAGE: string } };

/** A ruleset that permits nothing; the emulator checks admin credentials and download tokens first. */
export const denyAllRuleset = {
  async verify() {
    return { permitted: false, issues: { exist: () => false, all: [] as string[] } };
  },
};

/** A rules manager serving `denyAllRuleset`; the base class would start the Java rules runtime. */
const denyAllRulesManager = {
  start: async () => [],
  stop: async () => undefined,
  getRuleset: () => denyAllRuleset,
};

/** Stands in for the Java rules runtime, which is never started. */
const noRulesRuntime = {
  alive: true,
  async start() {},
  async stop() {},
};

class StorageEmulatorWithoutRulesRuntime extends StorageEmulator {
  constructor(args: StorageEmulatorArgs) {
    super(args);
    (this as unknown as { _rulesRuntime: unknown })._rulesRuntime = noRulesRuntime;
  }

  // Called from the base constructor, before `_rulesRuntime` is replaced: must not touch it.
  createRulesManager() {
    return denyAllRulesManager;
  }
}

export interface StorageFallback extends Faultable<StorageFault> {
  stop(): Promise<void>;
  /** Forgets every stored object (tests). */
  reset(): void;
}

/**
 * Puts a fault switch in front of the emulator's Express app (stack/faults.ts): while a fault is
 * set, the requests it applies to answer 503, lose their connection, or are held unanswered.
 * Held connections are destroyed when the fault is cleared, so their clients see a failure.
 */
function faultSwitch(app: ExpressAppHandle): Faultable<StorageFault> {
  let fault: StorageFault | null = null;
  let workersExited = 0;
  const held = new Set<Socket>();
  const handle = app.handle;
  app.handle = function (req, res, next) {
    if (fault && storageFaultApplies(fault, req.method ?? "GET", req.url ?? "/")) {
      const mode = fault.mode;
      if (fault.times !== undefined) fault = fault.times > 1 ? { ...fault, times: fault.times - 1 } : null;
      if (mode === "exit-worker") {
        if (exitWorkerOf(req.socket)) workersExited++;
      } else if (mode === "unavailable") {
        res.writeHead(503, { "content-type": "application/json", connection: "close" });
        res.end(JSON.stringify({ error: { code: 503, message: "Service unavailable (fault injected through PUT /faults)." } }));
      } else if (mode === "reset") {
        req.socket.destroy();
      } else {
        held.add(req.socket);
        req.socket.once("close", () => held.delete(req.socket));
      }
      return;
    }
    handle.call(this, req, res, next);
  };
  return {
    currentFault: () => fault,
    workersExited: () => workersExited,
    setFault(next) {
      fault = next;
      if (!next || next.mode !== "hang") {
        for (const socket of held) socket.destroy();
        held.clear();
      }
    },
  };
}

/** Kills the function worker at the other end of the request's connection (SIGKILL: no cleanup, as an instance that dies), then drops the connection; true if one was killed. */
function exitWorkerOf(socket: Socket): boolean {
  const pid = socket.remotePort === undefined ? undefined : pidOfLocalPort(socket.remotePort);
  const worker = pid !== undefined && pid !== process.pid && functionOfProcess(pid) !== undefined;
  if (worker) process.kill(pid, "SIGKILL");
  socket.destroy();
  return worker;
}

export async function startStorageFallback(projectId: string, port: number, host = "127.0.0.1"): Promise<StorageFallback> {
  const emulator = new StorageEmulatorWithoutRulesRuntime({
    projectId,
    host,
    port,
    rules: { name: "storage.rules", content: "" },
    auto_download: false,
  });
  // The emulator builds self links and upload URLs from the registry, so it must be registered.
  await EmulatorRegistry.start(emulator);
  const faults = faultSwitch(emulator.getApp());
  return {
    stop: async () => {
      faults.setFault(null); // releases held requests, which would keep the server open
      await EmulatorRegistry.stop(Emulators.STORAGE);
    },
    reset: () => emulator.reset(),
    setFault: (fault) => faults.setFault(fault),
    currentFault: () => faults.currentFault!(),
    workersExited: () => faults.workersExited!(),
  };
}
