import { describe, expect, it } from "vitest";
import { PORTS, URLS } from "../../stack/config";
import { StackError, startStack } from "../../stack/stack";
import { call } from "../helpers";

describe("the launcher", () => {
  it("refuses to start a second stack, naming the part whose port is taken, and leaves the running one alone", async () => {
    const attempt = startStack();
    await expect(attempt).rejects.toBeInstanceOf(StackError);
    await expect(attempt).rejects.toThrow(new RegExp(`^auth emulator: port ${PORTS.auth} is already in use`));
    // The stack under test still answers: the failed start stopped only what it had started.
    expect((await call(`${URLS.mailSink}/messages`)).status).toBe(200);
    expect((await call(`${URLS.auth}/`)).status).toBe(200);
  });
});
