import { describe, expect, it } from "vitest";
import { isPublicAddress, MAX_WEBHOOK_URL, newWebhookUrlProblem, webhookUrlProblem } from "../../src/print/webhookAddress";

describe("isPublicAddress", () => {
  // Each range's first and last address, and the famous ones.
  it.each([
    ["0.0.0.0", "this network"],
    ["0.255.255.255", "this network"],
    ["10.0.0.0", "private 10/8"],
    ["10.255.255.255", "private 10/8"],
    ["100.64.0.0", "CGNAT 100.64/10"],
    ["100.127.255.255", "CGNAT 100.64/10"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["169.254.0.1", "link-local"],
    ["169.254.169.254", "the metadata server"],
    ["172.16.0.0", "private 172.16/12"],
    ["172.31.255.255", "private 172.16/12"],
    ["192.0.0.8", "IETF protocol assignments"],
    ["192.0.2.1", "documentation"],
    ["192.88.99.1", "6to4 relay"],
    ["192.168.0.1", "private 192.168/16"],
    ["192.168.255.255", "private 192.168/16"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.9", "documentation"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "broadcast"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["::ffff:10.0.0.1", "IPv4-mapped private"],
    ["::ffff:a00:1", "IPv4-mapped private, in hex"],
    ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
    ["::ffff:169.254.169.254", "IPv4-mapped metadata"],
    ["::ffff:8.8.8.8", "IPv4-mapped, even of a public address"],
    ["::10.0.0.1", "IPv4-compatible"],
    ["64:ff9b::a00:1", "NAT64 of 10.0.0.1"],
    ["64:ff9b::7f00:1", "NAT64 of 127.0.0.1"],
    ["64:ff9b:1::a9fe:a9fe", "local-use NAT64"],
    ["100::1", "discard-only"],
    ["2001::1", "Teredo"],
    ["2001:2::1", "benchmarking"],
    ["2001:db8::1", "documentation"],
    ["2002:a00:1::1", "6to4 of 10.0.0.1"],
    ["3fff::1", "documentation"],
    ["fc00::1", "unique-local"],
    ["fd12:3456:789a::1", "unique-local"],
    ["fe80::1", "link-local"],
    ["febf:ffff::1", "link-local"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
    ["fd00:ec2::254", "a cloud's metadata address (unique-local)"],
    ["metadata.google.internal", "a name, not an address"],
    ["", "nothing"],
  ])("refuses %s (%s)", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(["8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0", "192.167.255.255", "192.169.0.0", "223.255.255.255", "2001:4860:4860::8888", "2606:4700::1111", "2a00:1450:4001::200e", "2400:cb00::1"])(
    "accepts %s",
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );
});

describe("webhookUrlProblem", () => {
  it.each([
    ["http://hooks.example.com/x", /https/],
    ["ftp://hooks.example.com/x", /https/],
    ["hooks.example.com/x", /absolute https URL/],
    ["https://user:pass@hooks.example.com/x", /user name or password/],
    ["https://10.0.0.1/", /non-public address/],
    ["https://169.254.169.254/computeMetadata/v1/", /non-public address/],
    ["https://[::1]/", /non-public address/],
    ["https://[::ffff:10.0.0.1]/", /non-public address/],
    ["https://[64:ff9b::10.0.0.1]/", /non-public address/],
    ["https://[fd00::1]:8443/", /non-public address/],
    ["https://0x7f.1/", /non-public address/],
    ["https://2130706433/", /non-public address/],
    ["https://017700000001/", /non-public address/],
    ["https://localhost/", /local or internal name/],
    ["https://api.localhost/", /local or internal name/],
    ["https://metadata.google.internal/computeMetadata/v1/", /local or internal name/],
    ["https://METADATA.GOOGLE.INTERNAL./", /local or internal name/],
    ["https://metadata/", /local or internal name/],
    ["https://printer.local/", /local or internal name/],
    ["https://router.home.arpa/", /local or internal name/],
    [`https://hooks.example.com/${"x".repeat(MAX_WEBHOOK_URL)}`, /at most/],
    ["http://127.0.0.1:8080/hook", /https/],
    // Other ports: the job's delivery result would tell its readers which ports of a host answer.
    ["https://hooks.example.com:22/x", /^must use port 443 or 8443$/],
    ["https://hooks.example.com:8080/x", /port 443/],
    ["https://8.8.8.8:53/hook", /port 443/],
  ])("refuses %s in production", (url, reason) => {
    expect(webhookUrlProblem(url, false)).toMatch(reason);
    expect(newWebhookUrlProblem(url, false)).toMatch(reason);
  });

  it.each([
    // The parser would drop these: the URL checked would not be the one stored and shown.
    ["https://hooks.example.com/x\r\nX-Injected: y", false],
    ["https://hooks.example.com/\tx", false],
    [" https://hooks.example.com/x", false],
    ["https://hooks.example.com/x\u0000", false],
    ["https://hooks.example.com/a b", false],
    ["http://127.0.0.1:8080/\r\nX: y", true],
  ])("refuses %j as a new setting (emulator: %s), spaces and control characters", (url, emulator) => {
    expect(newWebhookUrlProblem(url, emulator)).toBe("must not hold spaces or control characters");
  });

  it("still uses one stored before that check as the URL parser reads it (a pasted line break at its end)", () => {
    expect(webhookUrlProblem("https://hooks.example.com/x\n", false)).toBeUndefined();
    expect(newWebhookUrlProblem("https://hooks.example.com/x", false)).toBeUndefined();
  });

  it.each(["https://hooks.example.com/print?token=abc", "https://hooks.example.com:8443/x", "https://hooks.example.com:443/x", "https://8.8.8.8/hook", "https://[2001:4860:4860::8888]/hook", "https://hooks.example.com./x"])("accepts %s in production", (url) => {
    expect(webhookUrlProblem(url, false)).toBeUndefined();
  });

  it("takes http://127.0.0.1:<port> on the emulator only, and nothing else local there either", () => {
    expect(webhookUrlProblem("http://127.0.0.1:8080/hook", true)).toBeUndefined();
    for (const url of ["http://127.0.0.1/hook", "http://localhost:8080/", "http://127.0.0.2:8080/", "https://127.0.0.1:8443/", "http://10.0.0.1/", "http://[::1]:8080/"]) {
      expect(webhookUrlProblem(url, true), url).toBeDefined();
    }
  });
});
