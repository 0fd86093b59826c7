import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkedAddress, deliveryError, newWebhookSecret, postTo, postWebhook, resolveJobWebhookUrl, webhookHeaders, WebhookUrlRefused } from "../../src/print/webhook";

describe("resolveJobWebhookUrl (the receiver of a target's jobs)", () => {
  const node = (path: string, jobWebhookUrl?: string | null) => ({ path, data: jobWebhookUrl === undefined ? {} : { print: { jobWebhookUrl } } });
  const org = node("organizations/o", "https://hooks.example.com/org");

  it("is the nearest target's that sets one; null there means none, whatever is above", () => {
    expect(resolveJobWebhookUrl([org, node("tenants/t")])).toEqual({ url: "https://hooks.example.com/org", source: "organizations/o" });
    expect(resolveJobWebhookUrl([org, node("tenants/t", "https://hooks.example.com:8443/t")])).toEqual({ url: "https://hooks.example.com:8443/t", source: "tenants/t" });
    expect(resolveJobWebhookUrl([org, node("tenants/t", null)])).toEqual({ url: null, source: "tenants/t" });
    expect(resolveJobWebhookUrl([node("tenants/t")])).toEqual({ url: null, source: "default" });
  });

  it("is none when the nearest stored URL is one the rules refuse now (a port allowed before): never the receiver above", () => {
    for (const stored of ["https://hooks.example.com:9443/t", "http://127.0.0.1:8080/t", 42]) {
      expect(resolveJobWebhookUrl([org, { path: "tenants/t", data: { print: { jobWebhookUrl: stored } } }])).toEqual({ url: null, source: "tenants/t" });
    }
  });
});

describe("webhook signatures", () => {
  const body = JSON.stringify({ type: "print_job.finished", data: { jobId: "j1" } });

  it("makes secrets in the Standard Webhooks format: whsec_ and the base64 of 32 random bytes, each new", () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it("signs with the clock it is given: verified now, refused when signed ten minutes ago, refused with another secret", () => {
    const secret = newWebhookSecret();
    const now = new Date();
    const headers = webhookHeaders(secret, "msg_j1", body, now);
    expect(headers["webhook-id"]).toBe("msg_j1");
    expect(headers["webhook-timestamp"]).toBe(String(Math.floor(now.getTime() / 1000)));
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body, webhookHeaders(secret, "msg_j1", body, new Date(now.getTime() - 10 * 60_000)))).toThrow(/too old/);
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow(/No matching signature/);
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow(/No matching signature/);
  });
});

describe("postWebhook", () => {
  let server: Server;
  let port: number;
  const received: { headers: IncomingHttpHeaders; body: string; url: string }[] = [];
  let answer = 204;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        received.push({ headers: req.headers, body, url: req.url ?? "" });
        if (answer === 302) res.writeHead(302, { location: `http://127.0.0.1:${port}/elsewhere` }).end();
        // A long answer: the sender reads none of it.
        else res.writeHead(answer, { "content-type": "text/plain" }).end("x".repeat(1_000_000));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("POSTs the body with its signature to http://127.0.0.1:<port> on the emulator, and resolves with the answer's status", async () => {
    received.length = 0;
    const secret = newWebhookSecret();
    const body = '{"type":"print_job.finished","data":{}}';
    expect(await postWebhook(`http://127.0.0.1:${port}/hook?token=t`, secret, "msg_1", body, new Date(), true)).toBe(204);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ body, url: "/hook?token=t", headers: { "content-type": "application/json", host: `127.0.0.1:${port}`, "webhook-id": "msg_1" } });
    expect(new Webhook(secret).verify(received[0].body, received[0].headers as Record<string, string>)).toEqual(JSON.parse(body));
  });

  it("follows no redirect, and reports a 500 as a status", async () => {
    received.length = 0;
    answer = 302;
    expect(await postWebhook(`http://127.0.0.1:${port}/hook`, newWebhookSecret(), "msg_2", "{}", new Date(), true)).toBe(302);
    answer = 500;
    expect(await postWebhook(`http://127.0.0.1:${port}/hook`, newWebhookSecret(), "msg_2", "{}", new Date(), true)).toBe(500);
    expect(received.map((r) => r.url)).toEqual(["/hook", "/hook"]);
    answer = 204;
  });

  it("never connects to a refused URL: the loopback receiver in production, private and metadata addresses anywhere", async () => {
    received.length = 0;
    for (const [url, emulator] of [
      [`http://127.0.0.1:${port}/hook`, false],
      [`https://127.0.0.1:${port}/hook`, false],
      ["https://10.0.0.1/hook", true],
      ["https://169.254.169.254/computeMetadata/v1/", true],
      ["https://metadata.google.internal/computeMetadata/v1/", true],
      [`http://localhost:${port}/hook`, true],
    ] as const) {
      const refused = await postWebhook(url, newWebhookSecret(), "msg_3", "{}", new Date(), emulator).catch((error: unknown) => error);
      expect(refused, url).toBeInstanceOf(WebhookUrlRefused);
      expect(deliveryError(refused)).toMatch(/^The URL is refused: it must/);
    }
    expect(received).toEqual([]);
  });

  it("reports a receiver that is not there without naming the URL", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const free = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await postWebhook(`http://127.0.0.1:${free}/hook?token=secret-token`, newWebhookSecret(), "msg_4", "{}", new Date(), true).catch((e: unknown) => e);
    expect(deliveryError(error)).toBe("The receiver could not be reached (ECONNREFUSED).");
  });

  it("connects to the checked address, not to what the host's name resolves to, and names the host in Host", async () => {
    received.length = 0;
    // receiver.invalid resolves nowhere: only the address given can have been used.
    expect(await postTo(new URL(`http://receiver.invalid:${port}/hook`), { address: "127.0.0.1", family: 4 }, { "content-type": "application/json" }, "{}")).toBe(204);
    expect(received.map((r) => [r.url, r.headers.host])).toEqual([["/hook", `receiver.invalid:${port}`]]);
  });

  it("gives up on a receiver that does not answer in time", async () => {
    const silent = createServer(() => undefined); // takes the request, never answers
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const url = new URL(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/hook`);
    // Given up after the 300 ms asked (the 10 s of a delivery would outlast the test's timeout).
    const error = await postTo(url, { address: "127.0.0.1", family: 4 }, {}, "{}", 300).catch((e: unknown) => e);
    expect(deliveryError(error)).toBe("No answer within 10 s.");
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it("checks an address given in the URL without DNS", async () => {
    expect(await checkedAddress("https://[2001:4860:4860::8888]/x", false)).toEqual({ address: "2001:4860:4860::8888", family: 6 });
    expect(await checkedAddress(`http://127.0.0.1:${port}/x`, true)).toEqual({ address: "127.0.0.1", family: 4 });
  });
});
