// The machine a run happened on, for the report.

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import { CHROMIUM_PATH } from "./engines/chromium";
import { TYPST_PACKAGE, typstVersion } from "./engines/typst";
import { FUNCTIONS_DIR } from "./cases";

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  os: string;
  date: string;
  load: string;
  versions: Record<string, string>;
}

function cpuModel(): string {
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"));
    if (m) return m[1].trim();
  } catch {
    // not Linux
  }
  return os.cpus()[0]?.model ?? "unknown";
}

function packageVersion(name: string): string {
  try {
    const file = require.resolve(`${name}/package.json`, { paths: [FUNCTIONS_DIR] });
    return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
  } catch {
    return "not installed";
  }
}

function chromiumVersion(): string {
  if (!existsSync(CHROMIUM_PATH)) return "not installed";
  try {
    return execFileSync(CHROMIUM_PATH, ["--version"], { encoding: "utf8", timeout: 20_000, stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "unknown";
  }
}

/** Typst's own version, from the addon (loaded in this process: cheap, and only when installed). */
function typstCompilerVersion(): string {
  if (packageVersion(TYPST_PACKAGE) === "not installed") return "not installed";
  try {
    return typstVersion();
  } catch {
    return "unknown (the addon does not load here)";
  }
}

export const loadAverage = (): string => os.loadavg().map((l) => l.toFixed(2)).join(" ");

export function machine(): Machine {
  let distro = "";
  try {
    distro = /^PRETTY_NAME="?([^"\n]+)"?$/m.exec(readFileSync("/etc/os-release", "utf8"))?.[1] ?? "";
  } catch {
    // no os-release
  }
  return {
    cpu: cpuModel(),
    cores: os.cpus().length,
    memoryGiB: os.totalmem() / 1024 ** 3,
    node: process.version,
    os: `${distro || os.type()} (${os.platform()} ${os.release()}, ${os.arch()})`,
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    load: loadAverage(),
    versions: {
      chromium: chromiumVersion(),
      "puppeteer-core": packageVersion("puppeteer-core"),
      pdfmake: packageVersion("pdfmake"),
      [TYPST_PACKAGE]: packageVersion(TYPST_PACKAGE),
      "typst (the compiler in that addon)": typstCompilerVersion(),
    },
  };
}
