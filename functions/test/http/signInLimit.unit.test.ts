import { describe, expect, it } from "vitest";
import { clientAddress, countedAddress, trustedProxyHops } from "../../src/http/signInLimit";

// Which X-Forwarded-For hop is the client whose failed sign-ins are counted (src/http/signInLimit.ts).
// Google's front end appends the address it received the request from; an external Application Load
// Balancer in front appends `<client>, <forwarding rule>` before that reaches the function.

const request = (forwardedFor?: string | string[]) => ({ headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor } });
const BALANCER = "34.117.10.20";

describe("clientAddress", () => {
  it("by default (no proxy of ours) is the last hop: hops a caller forges before it are ignored", () => {
    expect(clientAddress(request("203.0.113.7"), 0)).toBe("203.0.113.7");
    expect(clientAddress(request("192.0.2.1, 10.0.0.1,203.0.113.7"), 0)).toBe("203.0.113.7");
    expect(clientAddress(request(["192.0.2.1", " 203.0.113.7 "]), 0)).toBe("203.0.113.7");
  });

  it("with one trusted hop (a load balancer) is the hop before the balancer's: two clients behind it are two addresses", () => {
    expect(clientAddress(request(`203.0.113.7, ${BALANCER}`), 1)).toBe("203.0.113.7");
    expect(clientAddress(request(`198.51.100.9, ${BALANCER}`), 1)).toBe("198.51.100.9");
    // What the client sent comes before what the balancer appends, and is ignored.
    expect(clientAddress(request(`192.0.2.1, 10.0.0.1, 203.0.113.7, ${BALANCER}`), 1)).toBe("203.0.113.7");
    expect(clientAddress(request(["192.0.2.1", `203.0.113.7, ${BALANCER}`]), 1)).toBe("203.0.113.7");
    expect(clientAddress(request(`203.0.113.7, 10.1.1.1, ${BALANCER}`), 2)).toBe("203.0.113.7");
  });

  it("with fewer hops than trusted (a request that did not come through the proxies) is the last hop, the one no caller writes", () => {
    expect(clientAddress(request("203.0.113.7"), 1)).toBe("203.0.113.7");
    expect(clientAddress(request("192.0.2.1, 203.0.113.7"), 2)).toBe("203.0.113.7");
  });

  it("is unknown without X-Forwarded-For (the functions emulator), or with empty hops only", () => {
    expect(clientAddress(request(), 0)).toBeUndefined();
    expect(clientAddress(request(), 1)).toBeUndefined();
    expect(clientAddress(request(" , "), 1)).toBeUndefined();
  });
});

describe("countedAddress (what a client's failures are counted under)", () => {
  it("counts an IPv4 address as it is", () => {
    expect(countedAddress("203.0.113.7")).toBe("203.0.113.7");
    expect(countedAddress("203.0.113.8")).toBe("203.0.113.8");
  });

  it("counts an IPv6 address by its /64, however it is written: one client cannot spread its failures over its block", () => {
    const block = "2001:db8:85a3:42::/64";
    for (const address of ["2001:db8:85a3:42::1", "2001:db8:85a3:42:ffff:ffff:ffff:fffe", "2001:0DB8:85A3:0042:0000:0000:0000:0001", "2001:db8:85a3:42:1::"]) {
      expect(countedAddress(address)).toBe(block);
    }
    expect(countedAddress("2001:db8:85a3:43::1")).toBe("2001:db8:85a3:43::/64");
    expect(countedAddress("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(countedAddress("::1")).toBe("0:0:0:0::/64");
  });

  it("counts an IPv4-mapped IPv6 address as its IPv4 address, and anything else as it is", () => {
    expect(countedAddress("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(countedAddress("::ffff:cb00:7107")).toBe("203.0.113.7");
    expect(countedAddress("fe80::1%eth0")).toBe("fe80::1%eth0");
    expect(countedAddress("unknown")).toBe("unknown");
    expect(countedAddress("")).toBe("");
  });
});

describe("trustedProxyHops (the TRUSTED_PROXY_HOPS param)", () => {
  it("accepts 0 to 5", () => {
    for (const hops of [0, 1, 2, 5]) expect(trustedProxyHops(hops)).toBe(hops);
  });

  it("refuses anything else with a 503 naming the param, rather than counting the wrong hop", () => {
    for (const hops of [-1, 6, 1.5, Number.NaN]) {
      expect(() => trustedProxyHops(hops)).toThrow(expect.objectContaining({ statusCode: 503, message: expect.stringMatching(/TRUSTED_PROXY_HOPS must be a whole number from 0 to 5/) }));
    }
  });
});
