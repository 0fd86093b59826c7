import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FUNCTIONS_DIR } from "../../stack/config";

// functions/stack/withProductionNode.mjs, the wrapper of every root script (README, Requirements). These
// tests run on Node 22 (the suite does), so it runs its command with this very Node and installs nothing.

const WRAPPER = join(FUNCTIONS_DIR, "stack", "withProductionNode.mjs");

/** A command that records its Node version and the signals it gets in `log`, then waits to be stopped. */
function recorder(log: string): string {
  writeFileSync(log, "");
  return `const fs = require("fs");
fs.appendFileSync(${JSON.stringify(log)}, "node " + process.version + "\\n");
for (const s of ["SIGINT", "SIGTERM"]) process.on(s, () => { fs.appendFileSync(${JSON.stringify(log)}, s + "\\n"); process.exit(0); });
setInterval(() => {}, 1000);`;
}

const until = async (check: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe("withProductionNode.mjs", () => {
  const dir = mkdtempSync(join(tmpdir(), "with-node-"));

  it("runs the command on the Node major of firebase.json's runtime and passes SIGINT (Ctrl-C) on", async () => {
    const log = join(dir, "sigint.log");
    const wrapper = spawn(process.execPath, [WRAPPER, process.execPath, "-e", recorder(log)], { stdio: "ignore" });
    await until(() => readFileSync(log, "utf8").includes("node "));
    expect(readFileSync(log, "utf8")).toMatch(/^node v22\./);
    wrapper.kill("SIGINT");
    const code = await new Promise((resolve) => wrapper.on("exit", resolve));
    expect(readFileSync(log, "utf8")).toContain("SIGINT");
    expect(code).toBe(0);
  });

  it("stops the command when the process that started it dies without passing SIGTERM on (as npm does)", async () => {
    const log = join(dir, "orphan.log");
    // A stand-in for npm: starts the wrapper, then is killed outright.
    const npm = spawn(process.execPath, ["-e", `require("child_process").spawn(process.execPath, [${JSON.stringify(WRAPPER)}, process.execPath, "-e", ${JSON.stringify(recorder(log))}], { stdio: "ignore" }); setInterval(() => {}, 1000);`], { stdio: "ignore" });
    await until(() => readFileSync(log, "utf8").includes("node "));
    npm.kill("SIGKILL");
    await until(() => readFileSync(log, "utf8").includes("SIGTERM"));
  });
});
