// Debian packages that tests and benchmarks need besides npm's (poppler-utils and qpdf to read PDFs back,
// chromium for the browser engine): installed with apt-get when missing, as root or with
// password-less sudo, so that a clean clone needs no manual step (README, "Tests").

import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

/** Installs `pkg` when `binary` is missing. Returns why it could not, or undefined when it is there. */
export function ensureDebianPackage(pkg: string, binary: string, say: (line: string) => void = () => {}): string | undefined {
  if (existsSync(binary)) return undefined;
  if (process.platform !== "linux") return `not Linux (${process.platform}): install ${pkg} yourself`;
  if (!existsSync("/usr/bin/apt-get")) return `no apt-get on this machine (not Debian-based): install ${pkg} yourself`;
  let prefix: string[] = [];
  if (process.getuid?.() !== 0) {
    if (spawnSync("sudo", ["-n", "true"], { stdio: "ignore" }).status !== 0) {
      return `not root and no password-less sudo, so apt-get cannot install ${pkg} (install it: apt-get install -y ${pkg})`;
    }
    prefix = ["sudo", "-n"];
  }
  say(`${binary} is missing: installing Debian's ${pkg} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const apt = (args: string[]): string | undefined => {
    // Waits for dpkg's lock rather than failing when another install (a second test project) holds it.
    const [command, ...rest] = [...prefix, "apt-get", "-o", "DPkg::Lock::Timeout=300", ...args];
    const r = spawnSync(command, rest, { env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    return r.status === 0 ? undefined : `apt-get ${args.join(" ")} failed (${r.status}): ${(r.stderr || r.stdout || "").trim().split("\n").slice(-3).join(" ")}`;
  };
  // Straight to install (the package lists are usually there); on failure, refresh them and retry.
  if (apt(["install", "-y", "--no-install-recommends", pkg])) {
    const update = apt(["update"]);
    if (update) return update;
    const install = apt(["install", "-y", "--no-install-recommends", pkg]);
    if (install) return install;
  }
  return existsSync(binary) ? undefined : `apt-get installed ${pkg} but ${binary} is missing`;
}
