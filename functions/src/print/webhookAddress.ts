// Where a job webhook may be sent (SSRF): only to https URLs whose addresses are public. Pure: the
// settings route checks a URL with it when it is set, and the delivery checks the addresses the
// host resolves to, then connects to the checked one (print/webhook.ts).

import { BlockList, isIP } from "node:net";

/** IPv4 ranges that are not public (IANA's special-purpose registry); they also cover IPv4-mapped IPv6 (::ffff:10.0.0.1). */
const NOT_PUBLIC_V4 = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, the metadata server 169.254.169.254 among them
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relays
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, 255.255.255.255 (broadcast) among them
] as const) {
  NOT_PUBLIC_V4.addSubnet(network, prefix, "ipv4");
}

/**
 * IPv6: only global unicast (2000::/3) is public. Everything outside it is refused whole (a rule
 * per range would miss one): ::/3 holds ::, ::1, IPv4-mapped ::ffff:0:0/96, NAT64 64:ff9b::/96 and
 * 64:ff9b:1::/48, discard 100::/64; 8000::/1 holds unique-local fc00::/7, link-local fe80::/10 and
 * multicast ff00::/8. Kept apart from the IPv4 list: a BlockList matches IPv4 addresses against
 * IPv6 rules as IPv4-mapped, so ::/3 there would refuse every IPv4 address.
 */
const NOT_PUBLIC_V6 = new BlockList();
for (const [network, prefix] of [
  ["::", 3],
  ["4000::", 2],
  ["8000::", 1],
  ["2001::", 23], // IETF protocol assignments: Teredo (2001::/32, which carries an IPv4 address) among them
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4: carries an IPv4 address
  ["3fff::", 20], // documentation
] as const) {
  NOT_PUBLIC_V6.addSubnet(network, prefix, "ipv6");
}

/** True for an IP address a webhook may be sent to: public unicast, IPv4 or IPv6. */
export function isPublicAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return !NOT_PUBLIC_V4.check(address, "ipv4");
  if (version === 6) return !NOT_PUBLIC_V6.check(address, "ipv6");
  return false;
}

/** Names that mean a machine of the network the service runs in, whatever DNS says: the metadata server (metadata.google.internal, metadata), localhost. */
const LOCAL_NAME = /(^|\.)(localhost|internal|local|localdomain|home\.arpa)$/;

/** Ports a webhook may name (the URL parser leaves 443, https's default, out of `url.port`). */
export const WEBHOOK_PORTS: readonly string[] = ["443", "8443"];

/** Longest URL accepted: receivers' URLs are short; a long one is a mistake or an attack. */
export const MAX_WEBHOOK_URL = 2048;

/**
 * Why `raw` cannot be set as a webhook URL now: webhookUrlProblem, and no spaces or control
 * characters. The URL parser drops tabs and line breaks and trims spaces, so the URL checked would
 * not be the one stored and answered (a header's line break, say); a URL writes them as %20 and the
 * like. (One stored before this check is used as the parser reads it.)
 */
export function newWebhookUrlProblem(raw: string, emulator: boolean): string | undefined {
  if (/[\s\p{Cc}]/u.test(raw)) return "must not hold spaces or control characters";
  return webhookUrlProblem(raw, emulator);
}

/**
 * Why `raw` cannot be a webhook URL, or undefined if it can (its host's addresses are checked when
 * it is resolved). `https` only, with a public host: not an address of the ranges above, not a
 * local name, no user name or password, on port 443 or 8443. The emulator also takes `http://127.0.0.1:<port>`, so that
 * tests can run a receiver.
 */
export function webhookUrlProblem(raw: string, emulator: boolean): string | undefined {
  if (raw.length > MAX_WEBHOOK_URL) return `must be at most ${MAX_WEBHOOK_URL} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute https URL";
  }
  if (emulator && url.protocol === "http:" && url.hostname === "127.0.0.1" && url.port !== "") return undefined;
  if (url.protocol !== "https:") return emulator ? "must be an https URL (or, on the emulator, http://127.0.0.1:<port>)" : "must be an https URL";
  if (url.username !== "" || url.password !== "") return "must not hold a user name or password";
  // A job's webhook result (refused, timed out) is shown to every reader of the job: on any port, the
  // service would tell them which ports of any public host answer. Receivers listen on HTTPS ports.
  if (url.port !== "" && !WEBHOOK_PORTS.includes(url.port)) return `must use port ${WEBHOOK_PORTS.join(" or ")}`;
  // The URL parser writes IPv6 hosts in brackets, and IPv4 in any notation (0x7f.1, 2130706433) as dotted decimal.
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
  if (isIP(host) !== 0) return isPublicAddress(host) ? undefined : "must not name a loopback, private, link-local or other non-public address";
  if (!host.includes(".") || LOCAL_NAME.test(host)) return "must name a public host, not a local or internal name";
  return undefined;
}
