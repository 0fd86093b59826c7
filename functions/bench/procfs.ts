// Linux /proc readers: the CPU time and memory of a process tree (Chromium's browser, zygote,
// renderer and utility processes), read by the worker that drives the browser.

import { readdirSync, readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

interface Stat {
  pid: number;
  ppid: number;
  /** utime + stime + cutime + cstime, in clock ticks (cutime/cstime: children already reaped). */
  ticks: number;
}

function readStat(pid: number): Stat | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may hold spaces.
    const rest = raw.slice(raw.lastIndexOf(")") + 2).split(" ");
    // rest[0] is field 3 (state): ppid is field 4, utime..cstime are fields 14..17.
    return { pid, ppid: Number(rest[1]), ticks: Number(rest[11]) + Number(rest[12]) + Number(rest[13]) + Number(rest[14]) };
  } catch {
    return undefined;
  }
}

/** Direct children, from /proc/<pid>/task/<tid>/children (Linux 3.5+), else by scanning /proc. */
function childrenOf(pid: number): number[] {
  try {
    const out: number[] = [];
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" ")) if (c.trim()) out.push(Number(c));
    }
    return out;
  } catch {
    const out: number[] = [];
    for (const name of readdirSync("/proc")) {
      if (/^\d+$/.test(name) && readStat(Number(name))?.ppid === pid) out.push(Number(name));
    }
    return out;
  }
}

/** The process and all its live descendants. */
export function processTree(root: number): number[] {
  const out: number[] = [];
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...childrenOf(pid));
  }
  return out;
}

/** CPU time (ms) of the tree: live processes plus the children they have reaped. */
export function treeCpuMs(root: number): number {
  let ticks = 0;
  for (const pid of processTree(root)) ticks += readStat(pid)?.ticks ?? 0;
  return (ticks * 1000) / clockTicks();
}

/** Proportional set size (bytes) of the tree: shared pages split between the processes sharing them. */
export function treePssBytes(root: number): number {
  let kb = 0;
  for (const pid of processTree(root)) {
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
      if (m) kb += Number(m[1]);
    } catch {
      // exited meanwhile
    }
  }
  return kb * 1024;
}
