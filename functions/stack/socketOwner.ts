// Which process holds the other end of a loopback TCP connection (Linux /proc): the local stack's
// "a worker exits mid-chunk" fault (stack/faults.ts) kills the function worker that made a request.

import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** The pid of the process that owns the local end `port` of a 127.0.0.1 (or ::1) TCP connection, if one is found. */
export function pidOfLocalPort(port: number): number | undefined {
  const inode = socketInode(port);
  if (inode === undefined) return undefined;
  const target = `socket:[${inode}]`;
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to read
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return Number(pid);
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined;
}

/** The socket inode of the connection whose local port is `port` (columns: sl, local, remote, st, ..., inode). */
function socketInode(port: number): string | undefined {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let lines: string[];
    try {
      lines = readFileSync(table, "utf8").split("\n").slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      const columns = line.trim().split(/\s+/);
      if (columns[1]?.endsWith(`:${hex}`) && columns[9] !== "0") return columns[9];
    }
  }
  return undefined;
}

/** Whether a process is a function worker of the functions emulator (it sets FUNCTION_TARGET), and which function. */
export function functionOfProcess(pid: number): string | undefined {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
    return environ.find((entry) => entry.startsWith("FUNCTION_TARGET="))?.slice("FUNCTION_TARGET=".length);
  } catch {
    return undefined;
  }
}
