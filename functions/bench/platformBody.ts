/**
 * What a compressed request body costs an instance before the function's code runs. Cloud Functions'
 * Node.js framework parses every body, gunzipping it, with body-parser at a 1,024 MB limit and keeps
 * the inflated bytes as `req.rawBody`; only then does the function's Express app (and its 100 KiB
 * check) see the request. This script runs the same parsers, configured the same way, in a fresh
 * process per body, sends one gzip JSON body of each inflated size, and prints the process's peak
 * resident memory. Linux only (/proc). Run:  npm run bench:platform-body   (figures: SECURITY.md, 14)
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { gzipSync } from "node:zlib";
import { FUNCTIONS_DIR } from "./cases";

// The functions framework's parsers (its server.ts): raw, json, text and urlencoded at 1024mb, each
// keeping the inflated body. Express 5's parsers are body-parser's, as the framework's are.
const SERVER = `
const express = require("express");
const app = express();
const keep = (req, _res, buf) => { req.rawBody = buf; };
app.use(express.json({ limit: "1024mb", verify: keep }));
app.use(express.text({ limit: "1024mb", verify: keep }));
app.use(express.urlencoded({ limit: "1024mb", verify: keep, extended: true }));
app.use(express.raw({ limit: "1024mb", verify: keep, type: "*/*" }));
app.post("/", (req, res) => res.json({ rawBytes: req.rawBody ? req.rawBody.length : 0 }));
const server = app.listen(0, "127.0.0.1", () => console.log(server.address().port));
`;

const MiB = 1024 * 1024;
const peakRssMiB = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

async function measure(inflatedMiB: number): Promise<{ gzipKiB: number; baseMiB: number; peakMiB: number; answer: string }> {
  const child = spawn(process.execPath, ["-e", SERVER], { cwd: FUNCTIONS_DIR, stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve) => child.stdout!.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))));
  const baseMiB = peakRssMiB(child.pid!);
  // A JSON object holding one long string: the most compressible body there is (about 1,000 : 1).
  const json = Buffer.alloc(inflatedMiB * MiB, "a");
  json.write('{"a":"', 0);
  json.write('"}', json.length - 2);
  const gzip = gzipSync(json, { level: 9 });
  const answer = await new Promise<string>((resolve) => {
    const req = request({ host: "127.0.0.1", port, method: "POST", path: "/", headers: { "content-type": "application/json", "content-encoding": "gzip", "content-length": gzip.length } }, (res) => {
      res.resume();
      res.on("end", () => resolve(String(res.statusCode)));
    });
    req.on("error", (error) => resolve(`no answer (${error.message})`));
    req.end(gzip);
  });
  const peakMiB = child.exitCode === null ? peakRssMiB(child.pid!) : NaN;
  child.kill();
  return { gzipKiB: gzip.length / 1024, baseMiB, peakMiB, answer };
}

async function main(): Promise<void> {
  console.log("| body as sent (gzip) | inflated | answer | peak RSS of the process | above the idle process | per inflated MiB |");
  console.log("| ---: | ---: | --- | ---: | ---: | ---: |");
  for (const inflatedMiB of [16, 32, 64, 128, 256, 512]) {
    const m = await measure(inflatedMiB);
    const above = m.peakMiB - m.baseMiB;
    console.log(`| ${m.gzipKiB.toFixed(0)} KiB | ${inflatedMiB} MiB | ${m.answer} | ${m.peakMiB.toFixed(0)} MiB | ${above.toFixed(0)} MiB | ${(above / inflatedMiB).toFixed(2)} |`);
  }
}

void main();
