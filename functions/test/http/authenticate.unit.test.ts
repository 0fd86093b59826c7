import { describe, expect, it } from "vitest";
import { parseBasicCredentials, signInOutcome } from "../../src/http/authenticate";

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

describe("parseBasicCredentials", () => {
  it("splits at the first colon, so passwords may hold colons, and keeps Unicode", () => {
    expect(parseBasicCredentials(b64("zoë@example.test:pa:ss:wörd"))).toEqual({ email: "zoë@example.test", password: "pa:ss:wörd" });
  });

  it("accepts base64 with or without padding", () => {
    const padded = b64("a@b.c:pw");
    expect(parseBasicCredentials(padded.replace(/=+$/, ""))).toEqual({ email: "a@b.c", password: "pw" });
  });

  it.each([
    ["not base64", "!!!"],
    ["base64 with junk inside", `${b64("a@b.c:pw").slice(0, 4)}*${b64("a@b.c:pw").slice(4)}`],
    ["no colon", b64("a@b.c")],
    ["an empty email", b64(":pw")],
    ["an empty password", b64("a@b.c:")],
  ])("refuses %s with 401", (_name, encoded) => {
    expect(() => parseBasicCredentials(encoded)).toThrow(expect.objectContaining({ statusCode: 401 }));
  });
});

describe("signInOutcome", () => {
  it("gives the ID token of a successful sign-in, which the caller is then verified with", () => {
    expect(signInOutcome(200, { idToken: "header.payload.signature" })).toBe("header.payload.signature");
  });

  it("refuses a password that is only the first factor (a pending MFA credential, no token) with 401 naming Bearer", () => {
    // The answer that let a password alone through before: 200, a uid, no ID token.
    const outcome = signInOutcome(200, { mfaPendingCredential: "pending", localId: "uid-1" } as never);
    expect(outcome).toMatchObject({ statusCode: 401, message: expect.stringMatching(/multi-factor.*Bearer/) });
    expect(signInOutcome(200, { localId: "uid-1" } as never)).toMatchObject({ statusCode: 503 });
  });

  it.each(["INVALID_LOGIN_CREDENTIALS", "EMAIL_NOT_FOUND", "INVALID_PASSWORD", "USER_DISABLED", "INVALID_EMAIL", "MISSING_PASSWORD"])(
    "maps %s to one indistinct 401",
    (reason) => {
      expect(signInOutcome(400, { error: { message: reason } })).toMatchObject({ statusCode: 401, message: "The email or password is incorrect, or the account is disabled." });
    },
  );

  it("maps TOO_MANY_ATTEMPTS_TRY_LATER to 429 with Retry-After", () => {
    const outcome = signInOutcome(400, { error: { message: "TOO_MANY_ATTEMPTS_TRY_LATER : Access to this account has been temporarily disabled" } });
    expect(outcome).toMatchObject({ statusCode: 429, headers: { "Retry-After": "60" } });
  });

  it.each([
    [400, "API key not valid. Please pass a valid API key."],
    [400, "OPERATION_NOT_ALLOWED"],
    [500, "INTERNAL"],
    [503, ""],
    [200, ""],
  ])("maps %i %j (ours to fix) to 503", (status, reason) => {
    expect(signInOutcome(status, { error: { message: reason } })).toMatchObject({ statusCode: 503 });
  });
});
