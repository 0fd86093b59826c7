/**
 * Log leakage: the functions' log lines (README: "Logs never hold tokens, passwords or bodies")
 * hold none of the secrets a request carries, whether it succeeds or fails. The functions
 * emulator writes every log line of the functions to firebase-tools' output, which the stack keeps
 * in .cache/emulators*.log; this reads what was written while the test ran. The test first checks
 * that the log does show these requests (by their X-Request-Id), so that it cannot pass vacuously.
 */
import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { URLS } from "../../stack/config";
import { FIREBASE_LOG } from "../../stack/firebaseEmulators";
import { seedStack } from "../../stack/seedStack";
import { idTokenFor } from "../helpers";
import { basic, logSince, mailSink, rawRequest, runId, type RawResponse } from "./support";

const r = runId();
const TENANT = `log-tenant-${r}`;
/** The user's real password is itself a marker: it must never reach a log line. */
const PASSWORD = `log-password-${randomUUID()}`;
const USER = { uid: `log-user-${r}`, email: `log-user-${r}@log.test` };
const MARKERS = {
  wrongPassword: `wrong-password-${randomUUID()}`,
  body: `body-secret-${randomUUID()}`,
  junkToken: `junk-token-${randomUUID()}`,
};

describe("log leakage", () => {
  let idToken: string;
  beforeAll(async () => {
    await seedStack({
      users: [{ uid: USER.uid, email: USER.email, password: PASSWORD }],
      documents: {
        [`tenants/${TENANT}`]: { name: "Log tenant", organizationId: null, features: { PEOPLE_MANAGEMENT: true } },
        [`tenants/${TENANT}/members/${USER.uid}`]: { permissions: ["ADMIN", "READ"] },
        [`tenants/${TENANT}/objectInstances/doc`]: { title: "Log test", objectTypeName: "T", sections: [] },
      },
    });
    idToken = await idTokenFor(USER.email, PASSWORD);
  }, 60_000);

  it("holds no password, token, credential, email address or body of requests that succeed or fail, and does show the requests", async () => {
    const from = statSync(FIREBASE_LOG).size;
    const json = { "content-type": "application/json" };
    const answers: RawResponse[] = await Promise.all([
      // Succeeding, with the password and with the ID token.
      rawRequest({ method: "GET", origin: URLS.api, path: `/api/tenant/${TENANT}/roles`, headers: { authorization: basic(USER.email, PASSWORD) } }),
      rawRequest({ method: "GET", origin: URLS.api, path: `/api/tenant/${TENANT}/roles`, headers: { authorization: `Bearer ${idToken}` } }),
      rawRequest({
        method: "POST",
        origin: URLS.print,
        path: `/print/tenant/${TENANT}/send-pdf`,
        headers: { authorization: `Bearer ${idToken}`, ...json },
        body: JSON.stringify({ objectInstanceId: "doc", to: `log-${r}@example.test`, message: MARKERS.body, subject: MARKERS.body }),
      }),
      // Failing: a wrong password, a junk token, a body refused by validation.
      rawRequest({ method: "GET", origin: URLS.api, path: `/api/tenant/${TENANT}/roles`, headers: { authorization: basic(USER.email, MARKERS.wrongPassword) } }),
      rawRequest({ method: "GET", origin: URLS.api, path: `/api/tenant/${TENANT}/roles`, headers: { authorization: `Bearer ${MARKERS.junkToken}` } }),
      rawRequest({
        method: "POST",
        origin: URLS.print,
        path: `/print/tenant/${TENANT}/send-pdf`,
        headers: { authorization: basic(USER.email, PASSWORD), ...json },
        body: JSON.stringify({ objectInstanceId: "doc", to: `not an address ${MARKERS.body}`, message: MARKERS.body }),
      }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 401, 401, 400]);
    // firebase-tools writes the workers' output asynchronously: wait until every request shows.
    const ids = answers.map((a) => String(a.headers["x-request-id"]));
    let log = "";
    for (let i = 0; i < 50 && !ids.every((id) => log.includes(id)); i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      log = logSince(from);
    }
    expect(ids.filter((id) => !log.includes(id)), "request ids missing from the log").toEqual([]);

    const secrets = [
      USER.email, // logs.ts: no email address either
      `log-${r}@example.test`,
      PASSWORD,
      MARKERS.wrongPassword,
      MARKERS.junkToken,
      MARKERS.body,
      idToken,
      idToken.split(".")[1], // the token's payload alone (the emulator's tokens are unsigned)
      Buffer.from(`${USER.email}:${PASSWORD}`).toString("base64"),
      Buffer.from(`${USER.email}:${MARKERS.wrongPassword}`).toString("base64"),
    ];
    expect(secrets.filter((secret) => secret.length >= 16 && log.includes(secret)).map((s) => s.slice(0, 24))).toEqual([]);
    await mailSink("/messages", { method: "DELETE" });
  }, 60_000);
});
