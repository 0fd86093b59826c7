/**
 * DNS rebinding: a page of any site whose name later resolves to 127.0.0.1 reaches a loopback
 * server as its own origin, so CORS never applies; but its requests still name that site in `Host`.
 * The stack's own HTTP servers answer only the names they are reached by: 127.0.0.1 and localhost,
 * with their port (the functions, the tests and the playground use these).
 */
export function isLoopbackHost(host: string | undefined, port: number): boolean {
  const name = host?.toLowerCase();
  return name === `127.0.0.1:${port}` || name === `localhost:${port}`;
}

/** The refusal's message: which Host was refused and which ones are answered. */
export const notLoopbackHost = (host: string | undefined, port: number): string =>
  `Host '${host ?? ""}' refused: this local server answers only Host 127.0.0.1:${port} or localhost:${port} (a page of another name could be DNS rebinding).`;
