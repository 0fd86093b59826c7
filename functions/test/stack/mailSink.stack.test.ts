import { Client } from "@sendgrid/client";
import { MailService } from "@sendgrid/mail";
import { beforeEach, describe, expect, it } from "vitest";
import { PORTS, URLS } from "../../stack/config";
import { call } from "../helpers";
import { rawRequest } from "../security/support";

// The real @sendgrid/mail client, with only its base URL changed, as the print function uses it.
const client = new Client();
const sgMail = new MailService();
sgMail.setClient(client);
sgMail.setApiKey("SG.local-test-key");
client.setDefaultRequest("baseUrl", URLS.mailSink); // after setApiKey, which resets the base URL

const pdfBytes = Buffer.from("%PDF-1.7\n% a tiny stand-in\n%%EOF\n");

describe("mail sink", () => {
  beforeEach(async () => {
    await call(`${URLS.mailSink}/behaviour`, { method: "PUT", body: {} });
    await call(`${URLS.mailSink}/messages`, { method: "DELETE" });
  });

  it("captures a message sent by @sendgrid/mail, attachment included, and answers like SendGrid", async () => {
    const [response] = await sgMail.send({
      to: ["one@example.com", "two@example.com"],
      from: { email: "print@example.com", name: "Print service" },
      subject: "Your PDF",
      text: "Attached.",
      attachments: [{ content: pdfBytes.toString("base64"), filename: "report.pdf", type: "application/pdf", disposition: "attachment" }],
    });
    expect(response.statusCode).toBe(202);
    const messageId = response.headers["x-message-id"];
    expect(messageId).toEqual(expect.any(String));

    const { json: messages } = await call(`${URLS.mailSink}/messages`);
    expect(messages).toHaveLength(1);
    const [message] = messages;
    expect(message.id).toBe(messageId);
    expect(message.authorization).toBe("Bearer SG.local-test-key");
    expect(message.body.personalizations[0].to.map((t: { email: string }) => t.email)).toEqual(["one@example.com", "two@example.com"]);
    expect(message.body.subject).toBe("Your PDF");
    expect(message.body.content).toEqual([{ type: "text/plain", value: "Attached." }]);
    expect(Buffer.from(message.body.attachments[0].content, "base64").equals(pdfBytes)).toBe(true);
    expect(message.body.attachments[0]).toMatchObject({ filename: "report.pdf", type: "application/pdf" });
  });

  it("rejects malformed mail with 400 and SendGrid's error shape, capturing nothing", async () => {
    const res = await call(`${URLS.mailSink}/v3/mail/send`, {
      method: "POST",
      auth: { bearer: "SG.key" },
      body: { from: { email: "a@example.com" }, subject: "s", content: [{ type: "text/plain", value: "x" }] },
    });
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toMatchObject({ field: "personalizations" });
    expect((await call(`${URLS.mailSink}/messages`)).json).toEqual([]);
  });

  it("rejects an address named twice in to and cc, whatever its case, as SendGrid does", async () => {
    const mail = { from: "print@example.com", subject: "Your PDF", text: "Attached." };
    await expect(sgMail.send({ ...mail, to: "one@example.com", cc: "ONE@example.com" })).rejects.toMatchObject({
      code: 400,
      response: { body: { errors: [expect.objectContaining({ field: "personalizations.0.cc", message: expect.stringContaining("[ONE@example.com]") })] } },
    });
    expect((await call(`${URLS.mailSink}/messages`)).json).toEqual([]);
    // One address in to and another in cc is a message.
    const [response] = await sgMail.send({ ...mail, to: "one@example.com", cc: "two@example.com" });
    expect(response.statusCode).toBe(202);
  });

  it("rejects a send without an API key with 401", async () => {
    const res = await call(`${URLS.mailSink}/v3/mail/send`, { method: "POST", body: {} });
    expect(res.status).toBe(401);
  });

  it("fails sends on request, for fault tests, and recovers", async () => {
    await call(`${URLS.mailSink}/behaviour`, { method: "PUT", body: { status: 500 } });
    const mail = { to: "a@example.com", from: "b@example.com", subject: "s", text: "t" };
    await expect(sgMail.send(mail)).rejects.toMatchObject({ code: 500 });
    await call(`${URLS.mailSink}/behaviour`, { method: "PUT", body: {} });
    const [ok] = await sgMail.send(mail);
    expect(ok.statusCode).toBe(202);
  });

  // DNS rebinding: a page of evil.example whose name now resolves to 127.0.0.1 is same-origin with
  // the sink as far as the browser knows, so CORS does not apply; only the Host it sends tells.
  it("refuses a request whose Host is not its own loopback name (DNS rebinding), and serves the ones that are", async () => {
    await sgMail.send({ to: "a@example.com", from: "b@example.com", subject: "kept", text: "t" });
    const port = PORTS.mailSink;
    for (const [method, path, body] of [
      ["GET", "/messages", undefined],
      ["DELETE", "/messages", undefined],
      ["PUT", "/behaviour", JSON.stringify({ status: 500 })],
      ["PUT", "/faults", JSON.stringify({ storage: { mode: "unavailable" } })],
      ["GET", "/faults", undefined],
      ["GET", "/", undefined],
    ] as const) {
      for (const host of [`evil.example:${port}`, "evil.example", `127.0.0.1.evil.example:${port}`, `localhost:${port + 1}`]) {
        const res = await rawRequest({ method, origin: URLS.mailSink, path, headers: { host }, body });
        expect({ status: res.status, json: res.json }, `${method} ${path} with Host ${host}`).toEqual({ status: 403, json: { errors: [{ message: expect.stringMatching(/Host/), field: "" }] } });
      }
    }
    // Nothing was changed by the refused requests: the message is still there, sends and faults as before.
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      const res = await rawRequest({ method: "GET", origin: URLS.mailSink, path: "/messages", headers: { host } });
      expect(res.status, host).toBe(200);
      expect(res.json.map((m: { body: { subject: string } }) => m.body.subject)).toEqual(["kept"]);
    }
    expect((await call(`${URLS.mailSink}/faults`)).json).not.toMatchObject({ storage: { mode: "unavailable" } });
    const [ok] = await sgMail.send({ to: "a@example.com", from: "b@example.com", subject: "s", text: "t" });
    expect(ok.statusCode).toBe(202);
  });
});
