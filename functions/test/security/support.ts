import { randomBytes } from "node:crypto";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { Agent, request, STATUS_CODES, type IncomingHttpHeaders, type OutgoingHttpHeaders } from "node:http";
import type { DocumentData } from "firebase-admin/firestore";
import { getStorage } from "firebase-admin/storage";
import { BUCKET, URLS } from "../../stack/config";
import { FIREBASE_LOG } from "../../stack/firebaseEmulators";
import { stackAdminApp } from "../../stack/seedStack";
import { firestore } from "../api/fixtures";

/** A short id unique to this run, so that the suites' fixtures never meet the demo data or each other. */
export const runId = () => randomBytes(3).toString("hex");

/** The functions' log lines (firebase-tools' output, which the stack keeps) appended since `from` (a size of the log). */
export function logSince(from: number): string {
  const size = statSync(FIREBASE_LOG).size;
  const fd = openSync(FIREBASE_LOG, "r");
  try {
    const buffer = Buffer.alloc(size - from);
    readSync(fd, buffer, 0, buffer.length, from);
    return buffer.toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** `Basic base64(email:password)`. */
export const basic = (email: string, password: string) => `Basic ${Buffer.from(`${email}:${password}`, "utf8").toString("base64")}`;

export interface RawRequest {
  method: string;
  /** Where to send it: an origin, or a base URL whose path is put before `path` (URLS.api, URLS.print). */
  origin: string;
  /** The path (and query) exactly as it goes on the wire: no URL normalisation, so `..` and `%2F` stay. */
  path: string;
  /** An array value sends the header once per element (duplicate headers). */
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  timeoutMs?: number;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body's bytes (a PDF's, say). */
  bytes: Buffer;
  /** The body parsed as JSON, or undefined. */
  json: any;
  elapsedMs: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 32 });

/**
 * One HTTP request through node:http, which (unlike fetch) sends the path byte for byte, allows
 * duplicate headers and any method. Rejects when no complete answer arrives within the timeout.
 * A kept-alive connection that the server closed while idle is retried once on a new one (Node's
 * documented `reusedSocket` pattern); a reset of a fresh connection is an error.
 */
export async function rawRequest(req: RawRequest): Promise<RawResponse> {
  try {
    return await rawRequestOnce(req, agent);
  } catch (error) {
    if ((error as { reusedSocket?: boolean }).reusedSocket) return rawRequestOnce(req, agent);
    throw error;
  }
}

function rawRequestOnce(req: RawRequest, via: Agent): Promise<RawResponse> {
  const started = performance.now();
  const timeoutMs = req.timeoutMs ?? 20_000;
  return new Promise((resolve, reject) => {
    const url = new URL(req.origin);
    const headers: OutgoingHttpHeaders = { ...req.headers };
    if (req.body !== undefined) headers["content-length"] = Buffer.byteLength(req.body);
    const path = `${url.pathname.replace(/\/$/, "")}${req.path}`;
    const outgoing = request({ host: url.hostname, port: url.port, method: req.method, path, headers, agent: via }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => {
        clearTimeout(timer);
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString("utf8");
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, bytes, json, elapsedMs: performance.now() - started });
      });
    });
    const timer = setTimeout(() => {
      outgoing.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms: ${req.method} ${req.origin}${req.path.slice(0, 200)}`));
    }, timeoutMs);
    outgoing.on("error", (error: NodeJS.ErrnoException & { reusedSocket?: boolean }) => {
      clearTimeout(timer);
      if (outgoing.reusedSocket && error.code === "ECONNRESET") error.reusedSocket = true;
      reject(error);
    });
    outgoing.end(req.body);
  });
}

/** Text that betrays a stack trace or a server file path (`    at fn (/path/file.js:12:34)`). */
export const STACK_TRACE = /\n\s+at \S|\(\/[^)\s]*:\d+:\d+\)|\/work\/main\/functions\/|\/node_modules\//;

/** Why `res` is not the service's error body `{ statusCode, error, message }` with its status, or undefined when it is. */
export function errorBodyProblem(res: RawResponse): string | undefined {
  if (!/^application\/json\b/.test(String(res.headers["content-type"] ?? ""))) return `content type ${res.headers["content-type"]}`;
  const body = res.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== "object" || Array.isArray(body)) return "body is not a JSON object";
  const keys = Object.keys(body).sort().join(",");
  if (keys !== "error,message,statusCode") return `keys ${keys}`;
  if (body.statusCode !== res.status) return `statusCode ${String(body.statusCode)} for HTTP ${res.status}`;
  if (body.error !== STATUS_CODES[res.status]) return `error '${String(body.error)}' for HTTP ${res.status}`;
  if (typeof body.message !== "string" || body.message.length === 0) return "empty message";
  if (STACK_TRACE.test(res.text)) return "stack trace";
  return undefined;
}

// --- State snapshots ------------------------------------------------------------------------------

/** The subcollections DESIGN.md's layout puts under a target document. */
const TARGET_SUBCOLLECTIONS = ["members", "users", "roles", "objectInstances", "printTemplates"];

const serialise = (data: DocumentData | undefined) => JSON.stringify(data, (_k, v) => (v && typeof v === "object" && typeof v.toDate === "function" ? `ts:${v.toDate().toISOString()}` : v));

/**
 * Every document of DESIGN.md's layout that exists now: organizations, tenants, their divisions
 * and sites, each with its members, users, roles, object instances and print templates, and authOwnership. Not
 * rateLimits: the send-pdf quota counts refused attempts by design (README, send-pdf).
 */
export async function snapshotFirestore(): Promise<Map<string, string>> {
  const db = firestore();
  const out = new Map<string, string>();
  const targets: string[] = [];
  for (const collection of ["organizations", "tenants", "sites"]) {
    const page = await db.collection(collection).get();
    for (const doc of page.docs) {
      out.set(doc.ref.path, serialise(doc.data()));
      targets.push(doc.ref.path);
      if (collection === "tenants") {
        const divisions = await doc.ref.collection("divisions").get();
        for (const d of divisions.docs) {
          out.set(d.ref.path, serialise(d.data()));
          targets.push(d.ref.path);
        }
      }
    }
  }
  await Promise.all(
    targets.flatMap((target) =>
      TARGET_SUBCOLLECTIONS.map(async (sub) => {
        const page = await db.collection(`${target}/${sub}`).get();
        for (const doc of page.docs) out.set(doc.ref.path, serialise(doc.data()));
      }),
    ),
  );
  for (const doc of (await db.collection("authOwnership").get()).docs) out.set(doc.ref.path, serialise(doc.data()));
  return out;
}

/** Every object under `generated-pdfs/`, with its generation and checksum. */
export async function snapshotBucket(prefix = "generated-pdfs/"): Promise<Map<string, string>> {
  const [files] = await getStorage(stackAdminApp()).bucket(BUCKET).getFiles({ prefix });
  return new Map(files.map((f) => [f.name, `${f.metadata.generation}:${f.metadata.md5Hash}:${f.metadata.size}`]));
}

/** The differences between two snapshots, as readable lines (empty when equal). */
export function diffSnapshots(before: Map<string, string>, after: Map<string, string>): string[] {
  const lines: string[] = [];
  for (const [key, value] of after) {
    if (!before.has(key)) lines.push(`created ${key}`);
    else if (before.get(key) !== value) lines.push(`changed ${key}: ${before.get(key)} -> ${value}`);
  }
  for (const key of before.keys()) if (!after.has(key)) lines.push(`deleted ${key}`);
  return lines;
}

/** The mail sink (captured mail and its failure switch) and the stack's fault switches. */
export const mailSink = (path: string, init: { method?: string; body?: unknown } = {}) =>
  rawRequest({
    method: init.method ?? "GET",
    origin: URLS.mailSink,
    path,
    headers: init.body === undefined ? {} : { "content-type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
