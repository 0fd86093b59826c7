import { URLS } from "../stack/config";
import { DEMO_PASSWORD } from "../stack/examples";
import { signInToStack } from "../stack/seedStack";

/** Every request of a test has a timeout: a function that failed to load makes the emulator hang. */
export const REQUEST_TIMEOUT_MS = 20_000;

export interface CallOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as JSON with its content type, unless it is a string (sent as is). */
  body?: unknown;
  auth?: { bearer: string } | { basic: string } | { header: string };
  /** Overrides REQUEST_TIMEOUT_MS (bursts of concurrent requests make the emulator start a worker for each). */
  timeoutMs?: number;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: any;  
}

export async function call(url: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth && "bearer" in options.auth) headers.authorization = `Bearer ${options.auth.bearer}`;
  if (options.auth && "basic" in options.auth) headers.authorization = basicHeader(options.auth.basic);
  if (options.auth && "header" in options.auth) headers.authorization = options.auth.header;
  let body: string | undefined;
  if (typeof options.body === "string") body = options.body;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(url, { method: options.method ?? "GET", headers, body, signal: AbortSignal.timeout(options.timeoutMs ?? REQUEST_TIMEOUT_MS) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export const basicHeader = (email: string, password = DEMO_PASSWORD) =>
  `Basic ${Buffer.from(`${email}:${password}`, "utf8").toString("base64")}`;

/** Signs a demo user in through the auth emulator and returns a fresh ID token. */
export const idTokenFor = (email: string, password = DEMO_PASSWORD): Promise<string> => signInToStack(email, password);

/** The base URLs under which both functions answer: their own URLs and the hosting rewrites. */
export const BASES = {
  api: { functionUrl: `${URLS.api}/api`, hosting: `${URLS.hosting}/api` },
  print: { functionUrl: `${URLS.print}/print`, hosting: `${URLS.hosting}/print` },
} as const;
