import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { URLS } from "./config";
import type { FaultControl } from "./faults";
import { isLoopbackHost, notLoopbackHost } from "./loopbackHost";

/** The origins of the playground, which lists the captured messages (the hosting emulator, by either host name). */
const PLAYGROUND_ORIGINS = [URLS.hosting, URLS.hosting.replace("127.0.0.1", "localhost")];

/**
 * A SendGrid-compatible capture server for the local stack. The print function sends through the
 * real @sendgrid/mail client with its base URL pointed here; this server answers like SendGrid's
 * v3 `POST /v3/mail/send` (202, `X-Message-Id`) and keeps every message for tests and developers:
 *   GET    /messages   every captured message, attachments included, oldest first
 *   DELETE /messages   forget them, and any send still delayed (see behaviour)
 *   PUT    /behaviour  { "status": 500 } or { "delayMs": 5000 } makes the next sends fail or hang;
 *                      {} restores normal behaviour (fault tests of send-pdf)
 * It is also the local stack's control endpoint for faults of its other parts (stack/faults.ts):
 *   GET    /faults     the Firestore and Storage faults in force
 *   PUT    /faults     { "storage": {...} | null, "firestore": {...} | null }; {} clears every fault
 * A request whose Host is not 127.0.0.1 or localhost with the sink's port is refused (403).
 */

export interface CapturedMessage {
  id: string;
  receivedAt: string;
  authorization: string | undefined;
  body: SendGridMail;
}

/** The part of SendGrid's v3 mail body that the sink checks; the rest is kept as sent. */
export interface SendGridMail {
  personalizations: { to: { email: string; name?: string }[]; cc?: { email: string }[]; bcc?: { email: string }[]; subject?: string }[];
  from: { email: string; name?: string };
  subject?: string;
  content?: { type: string; value: string }[];
  attachments?: { content: string; filename: string; type?: string; disposition?: string }[];
  [key: string]: unknown;
}

interface Behaviour {
  status?: number;
  delayMs?: number;
}

const MAX_BODY_BYTES = 40 * 1024 * 1024; // above SendGrid's own 30 MB request limit

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error("body too large"));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(body === undefined ? "" : JSON.stringify(body));
}

/** SendGrid answers malformed mail with 400 and `{ errors: [{ message, field }] }`; so does the sink. */
function mailErrors(mail: unknown): { message: string; field: string }[] {
  const errors: { message: string; field: string }[] = [];
  const m = mail as Partial<SendGridMail> | null;
  if (!m || typeof m !== "object") return [{ message: "The request body must be a JSON object.", field: "" }];
  if (!Array.isArray(m.personalizations) || m.personalizations.length === 0) {
    errors.push({ message: "The personalizations field is required.", field: "personalizations" });
  } else if (m.personalizations.some((p) => !Array.isArray(p?.to) || p.to.length === 0 || p.to.some((t) => typeof t?.email !== "string"))) {
    errors.push({ message: "Each personalization needs at least one recipient email.", field: "personalizations.to" });
  }
  // SendGrid's rule, with its words: an address once per personalization, in to, cc and bcc together, whatever its case.
  (m.personalizations ?? []).forEach((p, i) => {
    const seen = new Set<string>();
    for (const field of ["to", "cc", "bcc"] as const) {
      for (const { email } of (Array.isArray(p?.[field]) ? p[field] : []) as { email?: unknown }[]) {
        const key = String(email).toLowerCase();
        if (!seen.has(key)) {
          seen.add(key);
          continue;
        }
        errors.push({
          message: `Each email address in the personalization block should be unique between to, cc, and bcc. We found the first duplicate instance of [${String(email)}] in the personalizations.${i}.${field} field.`,
          field: `personalizations.${i}.${field}`,
        });
        return;
      }
    }
  });
  if (typeof m.from?.email !== "string") errors.push({ message: "The from email is required.", field: "from.email" });
  const hasSubject = typeof m.subject === "string" || (m.personalizations ?? []).every((p) => typeof p?.subject === "string");
  if (!hasSubject) errors.push({ message: "The subject is required.", field: "subject" });
  if (!Array.isArray(m.content) || m.content.length === 0) errors.push({ message: "The content is required.", field: "content" });
  return errors;
}

export class MailSink {
  private readonly messages: CapturedMessage[] = [];
  private behaviour: Behaviour = {};
  /** Counts DELETE /messages: a send that was in flight across one is dropped. */
  private generation = 0;
  private server: Server | undefined;

  /** `faults`: the stack's fault switches, served at /faults (absent: /faults answers 501). */
  constructor(private readonly faults?: FaultControl) {}

  async start(port: number, host = "127.0.0.1"): Promise<void> {
    const server = createServer((req, res) => {
      // Captured mail, its PDFs and the fault switches are for this machine's names only (stack/loopbackHost.ts).
      if (!isLoopbackHost(req.headers.host, this.port)) {
        return sendJson(res, 403, { errors: [{ message: notLoopbackHost(req.headers.host, this.port), field: "" }] }, { connection: "close" });
      }
      this.handle(req, res).catch(() => sendJson(res, 400, { errors: [{ message: "Unreadable request.", field: "" }] }));
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
  }

  get port(): number {
    return (this.server?.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://sink").pathname;
    if (path === "/v3/mail/send" && req.method === "POST") return this.send(req, res);
    // The playground (the hosting origin) lists them: readable from that origin only, not from any site the developer visits.
    if (path === "/messages" && req.method === "GET") {
      const origin = req.headers.origin;
      const allowed: Record<string, string> = origin && PLAYGROUND_ORIGINS.includes(origin) ? { "access-control-allow-origin": origin, vary: "Origin" } : { vary: "Origin" };
      return sendJson(res, 200, this.messages, allowed);
    }
    if (path === "/messages" && req.method === "DELETE") {
      this.messages.length = 0;
      this.generation++;
      return sendJson(res, 204, undefined);
    }
    if (path === "/behaviour" && req.method === "PUT") {
      this.behaviour = JSON.parse((await readBody(req)).toString("utf8") || "{}") as Behaviour;
      return sendJson(res, 200, this.behaviour);
    }
    if (path === "/faults" && (req.method === "GET" || req.method === "PUT")) return this.faultsRoute(req, res);
    if (path === "/" && req.method === "GET") return sendJson(res, 200, { service: "mail sink", messages: this.messages.length });
    sendJson(res, 404, { errors: [{ message: `No route for ${req.method} ${path}`, field: "" }] });
  }

  private async faultsRoute(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const faults = this.faults;
    if (!faults?.available) {
      return sendJson(res, 501, { error: "Fault injection needs the stack's JavaScript Firestore and Storage emulators (STACK_EMULATORS=fallback)." });
    }
    if (req.method === "GET") return sendJson(res, 200, faults.current);
    let body: unknown;
    try {
      body = JSON.parse((await readBody(req)).toString("utf8") || "{}");
      return sendJson(res, 200, faults.apply(body));
    } catch (error) {
      return sendJson(res, 400, { error: (error as Error).message });
    }
  }

  private async send(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const generation = this.generation;
    if (this.behaviour.delayMs) await new Promise((r) => setTimeout(r, this.behaviour.delayMs));
    // A send still delayed when the messages were cleared belongs to an earlier test: it is not kept.
    if (generation !== this.generation) return sendJson(res, 202, undefined);
    if (this.behaviour.status) {
      return sendJson(res, this.behaviour.status, { errors: [{ message: "Failure requested through PUT /behaviour.", field: "" }] });
    }
    if (!/^Bearer \S+$/.test(req.headers.authorization ?? "")) {
      return sendJson(res, 401, { errors: [{ message: "The provided authorization grant is invalid, expired, or revoked", field: null }] });
    }
    let mail: unknown;
    try {
      mail = JSON.parse(raw.toString("utf8"));
    } catch {
      return sendJson(res, 400, { errors: [{ message: "Invalid JSON.", field: "" }] });
    }
    const errors = mailErrors(mail);
    if (errors.length > 0) return sendJson(res, 400, { errors });
    const id = randomUUID().replace(/-/g, "").slice(0, 22);
    this.messages.push({ id, receivedAt: new Date().toISOString(), authorization: req.headers.authorization, body: mail as SendGridMail });
    sendJson(res, 202, undefined, { "x-message-id": id });
  }
}
