/**
 * `npm start`: starts the local stack, loads the demo fixture, prints the ready block, and on
 * Ctrl-C or SIGTERM stops every part. Exits non-zero, naming the part, when one fails to start.
 */
import { join } from "node:path";
import { buildWeb } from "../web/build";
import { ROOT_DIR } from "./config";
import { readyBlock } from "./readyBlock";
import { readFixture } from "./seed";
import { seedStack } from "./seedStack";
import { StackError, startStack, type Stack } from "./stack";

const DEMO_FIXTURE = join(ROOT_DIR, "emulator-data", "demo.json");

async function main(): Promise<void> {
  const started = Date.now();
  console.log("Starting the local stack (auth, functions, hosting, Firestore, Storage, mail sink)...");
  let stack: Stack | undefined;
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log("\nStopping the local stack...");
    await stack?.stop();
    console.log("Stopped.");
    process.exit(code);
  };
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));

  try {
    // The hosting origin's client, built for the stack (auth emulator, demo targets, mail sink).
    await buildWeb({ local: true });
    stack = await startStack();
    const seeded = await seedStack(readFixture(DEMO_FIXTURE));
    console.log(readyBlock(stack.source, seeded));
    console.log(`(ready in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } catch (error) {
    const message = error instanceof StackError ? `The local stack could not start. ${error.message}` : `The local stack could not start: ${String(error)}`;
    console.error(message);
    await shutdown(1);
    return;
  }
  const { code, tail } = await stack.firebaseExited;
  if (!stopping) {
    console.error(`firebase-tools exited unexpectedly (code ${code}). Its last output:\n${tail}`);
    await shutdown(1);
  }
}

void main();
