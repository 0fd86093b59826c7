// What the benchmark needs before it can run, installed by the benchmark itself (and said so):
// - lib/ (the compiled functions, what the bench measures), built with `npm run build` when missing,
//   compiled again when older than a file of src/;
// - puppeteer-core, pdfmake and @myriaddreamin/typst-ts-node-compiler (with its prebuilt binary, an
//   optional per-platform package), devDependencies of functions/package.json: `npm install` when missing;
// - Debian's chromium (/usr/bin/chromium), through apt-get when missing (as root, or with sudo -n);
// - a fontconfig file that makes our renderer's Noto files (every family) visible to Chromium;
// - Typst: the addon loads, finds every Noto family in those files and compiles a test document.
// Each step that fails leaves a reason; the peer it concerns is then reported as unavailable.

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureDebianPackage } from "../stack/debianPackages";
import { FUNCTIONS_DIR } from "./cases";
import { CHROMIUM_PATH } from "./engines/chromium";
import { notoDirs } from "./engines/fonts";
import { TYPST_PACKAGE } from "./engines/typst";
import type { Peer } from "./engines/types";

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
  unavailable: Partial<Record<Peer, string>>;
  /** Environment for the worker processes (FONTCONFIG_FILE for Chromium). */
  env: NodeJS.ProcessEnv;
  /** What setup did, for the report. */
  notes: string[];
}

/** The newest modification time of a file under `dir`, ms. */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

let built = false;

/**
 * Builds lib/ when it is missing, and compiles src/ into it again when a file of src/ is newer (the
 * bench would otherwise time code that is not the source's): in place, without the build's clean
 * and web steps, which would pull lib/ and the playground from under a running stack, and without
 * writing anything on a type error (else a failed build would look fresh to the next run). Once a
 * process: an edit made during a run does not mix two builds into one report.
 */
export function ensureBuilt(): void {
  if (built) return;
  const outputs = [join(FUNCTIONS_DIR, "lib", "index.js"), join(FUNCTIONS_DIR, "lib", "print", "render", "index.js")];
  let r: { ok: boolean; reason: string } | undefined;
  if (!outputs.every((f) => existsSync(f))) {
    say("lib/ is missing: building the functions (npm run build)");
    r = run("npm", ["run", "build"], { cwd: FUNCTIONS_DIR });
  } else if (newestMtime(join(FUNCTIONS_DIR, "src")) > Math.min(...outputs.map((f) => statSync(f).mtimeMs))) {
    say("lib/ is older than src/: compiling src/ into it again");
    r = run("npx", ["tsc", "-p", "tsconfig.build.json", "--noEmitOnError"], { cwd: FUNCTIONS_DIR });
  }
  if (r && !r.ok) throw new Error(`cannot build lib/: ${r.reason}`);
  built = true;
}

const PACKAGES = ["puppeteer-core", "pdfmake", TYPST_PACKAGE];

function ensurePackages(notes: string[]): string | undefined {
  const missing = PACKAGES.filter((p) => !resolvable(p));
  if (missing.length === 0) {
    say(`${PACKAGES.join(", ")}: installed (devDependencies of functions/package.json)`);
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
  const reason = ensureDebianPackage("chromium", CHROMIUM_PATH, (line) => say(`${line} (about 300 MB, a minute or two)`));
  if (!reason) notes.push("installed Debian's chromium with apt-get");
  return reason;
}

/** A fontconfig file: the system's configuration plus the folders of our renderer's Noto files. */
function fontconfigFile(): string {
  const dir = join(tmpdir(), "print-bench-fontconfig");
  mkdirSync(join(dir, "cache"), { recursive: true });
  const file = join(dir, "fonts.conf");
  const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  writeFileSync(
    file,
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n` +
      `  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n` +
      notoDirs().map((d) => `  <dir>${esc(d)}</dir>\n`).join("") +
      `  <cachedir>${esc(join(dir, "cache"))}</cachedir>\n</fontconfig>\n`,
  );
  return file;
}

/**
 * Typst runs in process from a native addon: npm installs the binary of this platform as an optional
 * package (nothing is downloaded at run time), which may be missing (an unsupported platform, or
 * optional dependencies left out). Checked in a child process, so that a crash is a reason, not the end
 * of the run: the addon loads, and a document in every Noto family of ours compiles without warnings.
 */
function checkTypst(): string | undefined {
  const script =
    `const t = require("./engines/typst"); const f = require("./engines/fonts"); const c = t.typstCompiler();` +
    `const names = f.fontList("japanese").map((x) => JSON.stringify(x.name)).join(", ");` +
    `t.compilePdf(c, "#set text(font: (" + names + "), fallback: false)\\nTypst"); console.log(t.typstVersion(c));`;
  const r = spawnSync(process.execPath, ["--import", "tsx", "-e", script], { cwd: __dirname, encoding: "utf8", timeout: 120_000 });
  if (r.status !== 0) {
    const lines = (r.stderr || r.error?.message || "").trim().split("\n");
    const err = lines.find((l) => /^\s*\w*Error\b/.test(l)) ?? lines.pop() ?? `exit ${r.status ?? r.signal}`;
    return `${TYPST_PACKAGE} does not load or compile here (${process.platform}-${process.arch}): ${err.trim()}`;
  }
  say(`typst ${r.stdout.trim()}: ${TYPST_PACKAGE} loads and finds every Noto family`);
  return undefined;
}

export function setup(engines: readonly string[]): Setup {
  const notes: string[] = [];
  const unavailable: Setup["unavailable"] = {};
  ensureBuilt();
  const packages = ensurePackages(notes);
  if (packages) {
    if (!resolvable("puppeteer-core")) unavailable.chromium = `puppeteer-core unavailable: ${packages}`;
    if (!resolvable("pdfmake")) unavailable.pdfmake = `pdfmake unavailable: ${packages}`;
    if (!resolvable(TYPST_PACKAGE)) unavailable.typst = `${TYPST_PACKAGE} unavailable: ${packages}`;
  }
  if (engines.includes("typst") && !unavailable.typst) {
    const reason = checkTypst();
    if (reason) unavailable.typst = `typst unavailable: ${reason}`;
  }
  if (engines.some((e) => e.startsWith("chromium")) && !unavailable.chromium) {
    const reason = ensureChromium(notes);
    if (reason) unavailable.chromium = `chromium unavailable: ${reason}`;
  }
  const env: NodeJS.ProcessEnv = { ...process.env, FONTCONFIG_FILE: fontconfigFile() };
  return { unavailable, env, notes };
}
