// What the benchmark needs before it can run, installed by the benchmark itself (and said so):
// - lib/ (the compiled functions), built with `npm run build` when missing;
// - puppeteer-core and pdfmake, devDependencies of functions/package.json: `npm install` when missing;
// - Debian's chromium (/usr/bin/chromium), through apt-get when missing (as root, or with sudo -n);
// - a fontconfig file that makes the Noto Sans files of the npm package visible to Chromium.
// Each step that fails leaves a reason; the peer it concerns is then reported as unavailable.

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FUNCTIONS_DIR } from "./cases";
import { CHROMIUM_PATH } from "./engines/chromium";
import { NOTO_DIRS } from "./engines/fonts";

const say = (msg: string): void => console.log(`[bench] ${msg}`);

function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): { ok: boolean; reason: string } {
  say(`running: ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ["ignore", "inherit", "pipe"], encoding: "utf8" });
  if (r.stderr) process.stderr.write(r.stderr);
  if (r.error) return { ok: false, reason: `${cmd}: ${r.error.message}` };
  if (r.status !== 0) {
    const last = r.stderr.trim().split("\n").filter(Boolean).pop() ?? "";
    return { ok: false, reason: `${cmd} ${args[0] ?? ""} exited with ${r.status ?? r.signal}${last ? `: ${last}` : ""}` };
  }
  return { ok: true, reason: "" };
}

function resolvable(id: string): boolean {
  try {
    require.resolve(id, { paths: [FUNCTIONS_DIR] });
    return true;
  } catch {
    return false;
  }
}

export interface Setup {
  /** Why a peer cannot run, by engine; absent when it can. */
  unavailable: Partial<Record<"chromium" | "pdfmake", string>>;
  /** Environment for the worker processes (FONTCONFIG_FILE for Chromium). */
  env: NodeJS.ProcessEnv;
  /** What setup did, for the report. */
  notes: string[];
}

export function ensureBuilt(): void {
  if (existsSync(join(FUNCTIONS_DIR, "lib", "index.js")) && existsSync(join(FUNCTIONS_DIR, "lib", "print", "render", "index.js"))) return;
  say("lib/ is missing: building the functions (npm run build)");
  const r = run("npm", ["run", "build"], { cwd: FUNCTIONS_DIR });
  if (!r.ok) throw new Error(`cannot build lib/: ${r.reason}`);
}

function ensurePackages(notes: string[]): string | undefined {
  const missing = ["puppeteer-core", "pdfmake"].filter((p) => !resolvable(p));
  if (missing.length === 0) {
    say("puppeteer-core and pdfmake: installed (devDependencies of functions/package.json)");
    return undefined;
  }
  say(`${missing.join(" and ")} not installed: installing the devDependencies of functions/package.json (npm install)`);
  const r = run("npm", ["install", "--no-audit", "--no-fund"], { cwd: FUNCTIONS_DIR });
  notes.push(`installed ${missing.join(", ")} with npm install`);
  if (!r.ok) return r.reason;
  const still = missing.filter((p) => !resolvable(p));
  return still.length ? `${still.join(", ")} still not installed after npm install` : undefined;
}

function ensureChromium(notes: string[]): string | undefined {
  if (existsSync(CHROMIUM_PATH)) {
    say(`chromium: ${CHROMIUM_PATH} is there`);
    return undefined;
  }
  if (process.env.BENCH_CHROMIUM) return `BENCH_CHROMIUM=${CHROMIUM_PATH} does not exist`;
  if (process.platform !== "linux") return `not Linux (${process.platform}): Debian's chromium cannot be installed here`;
  if (!existsSync("/usr/bin/apt-get")) return "no apt-get on this machine (not Debian-based)";
  let prefix: string[] = [];
  if (process.getuid?.() !== 0) {
    const sudo = spawnSync("sudo", ["-n", "true"], { stdio: "ignore" });
    if (sudo.status !== 0) return "not root and no password-less sudo, so apt-get cannot install chromium (install it: apt-get install -y chromium)";
    prefix = ["sudo", "-n"];
  }
  say(`${CHROMIUM_PATH} is missing: installing Debian's chromium with apt-get (about 300 MB, a minute or two)`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const exec = (args: string[]) => (prefix.length ? run(prefix[0], [...prefix.slice(1), ...args], { env }) : run(args[0], args.slice(1), { env }));
  const update = exec(["apt-get", "update"]);
  if (!update.ok) return `apt-get update failed: ${update.reason}`;
  const install = exec(["apt-get", "install", "-y", "--no-install-recommends", "chromium"]);
  if (!install.ok) return `apt-get install chromium failed: ${install.reason}`;
  if (!existsSync(CHROMIUM_PATH)) return `apt-get installed chromium but ${CHROMIUM_PATH} is missing`;
  notes.push("installed Debian's chromium with apt-get");
  return undefined;
}

/** A fontconfig file: the system's configuration plus the Noto Sans files of the npm package. */
function fontconfigFile(): string {
  const dir = join(tmpdir(), "print-bench-fontconfig");
  mkdirSync(join(dir, "cache"), { recursive: true });
  const file = join(dir, "fonts.conf");
  const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  writeFileSync(
    file,
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n` +
      `  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n` +
      NOTO_DIRS.map((d) => `  <dir>${esc(d)}</dir>\n`).join("") +
      `  <cachedir>${esc(join(dir, "cache"))}</cachedir>\n</fontconfig>\n`,
  );
  return file;
}

export function setup(engines: readonly string[]): Setup {
  const notes: string[] = [];
  const unavailable: Setup["unavailable"] = {};
  ensureBuilt();
  const packages = ensurePackages(notes);
  if (packages) {
    if (!resolvable("puppeteer-core")) unavailable.chromium = `puppeteer-core unavailable: ${packages}`;
    if (!resolvable("pdfmake")) unavailable.pdfmake = `pdfmake unavailable: ${packages}`;
  }
  if (engines.some((e) => e.startsWith("chromium")) && !unavailable.chromium) {
    const reason = ensureChromium(notes);
    if (reason) unavailable.chromium = `chromium unavailable: ${reason}`;
  }
  const env: NodeJS.ProcessEnv = { ...process.env, FONTCONFIG_FILE: fontconfigFile() };
  return { unavailable, env, notes };
}
