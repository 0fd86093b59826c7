import type { Request, Response } from "express";
import { afterEach, describe, expect, it, vi } from "vitest";
import { suiteClock } from "../suiteClock";
import { withDeadline } from "../../src/http/deadline";
import { errorHandler } from "../../src/http/errorHandler";
import * as logs from "../../src/logs";

vi.mock("../../src/logs", () => ({ backendUnavailable: vi.fn(), unexpectedError: vi.fn(), requestRefused: vi.fn() }));

describe("withDeadline", () => {
  afterEach(suiteClock);

  it("settles as the work does when it finishes in time", async () => {
    await expect(withDeadline(Promise.resolve(42), 1_000, () => new Error("late"))).resolves.toBe(42);
    await expect(withDeadline(Promise.reject(new Error("failed")), 1_000, () => new Error("late"))).rejects.toThrow("failed");
  });

  it("rejects with the deadline's error once the time has passed, and ignores a later failure of the work", async () => {
    vi.useFakeTimers();
    let fail!: (e: Error) => void;
    const work = new Promise<number>((_, reject) => (fail = reject));
    const bounded = withDeadline(work, 10_000, () => new Error("late"));
    const settled = expect(bounded).rejects.toThrow("late");
    await vi.advanceTimersByTimeAsync(10_000);
    await settled;
    fail(new Error("after the deadline")); // no unhandled rejection
  });
});

function fakeResponse() {
  const res = { statusCode: 0, body: undefined as unknown, headers: {} as Record<string, string> };
  const api = {
    status: (code: number) => ((res.statusCode = code), api),
    json: (body: unknown) => ((res.body = body), api),
    set: (headers: Record<string, string>) => (Object.assign(res.headers, headers), api),
  };
  return { res, api: api as unknown as Response };
}

describe("errorHandler and Firestore's gRPC errors", () => {
  it.each([
    ["UNAVAILABLE", 14],
    ["DEADLINE_EXCEEDED", 4],
    ["RESOURCE_EXHAUSTED", 8],
    ["ABORTED", 10],
  ])("answers %s, which firebase-admin gave up retrying, with 503 and no internals", (_name, code) => {
    const { res, api } = fakeResponse();
    const error = Object.assign(new Error(`${code} X: No connection established. Last error: connect ECONNREFUSED 10.0.0.7:443`), { code, details: "No connection established" });
    errorHandler(error, {} as Request, api, () => undefined);
    expect(res.statusCode).toBe(503);
    expect(res.body).toEqual({ statusCode: 503, error: "Service Unavailable", message: "Firestore is unavailable; try again shortly." });
    expect(logs.backendUnavailable).toHaveBeenCalledWith(error);
  });

  it("leaves other errors with a numeric code a 500 (a bug, not an outage)", () => {
    const { res, api } = fakeResponse();
    errorHandler(Object.assign(new Error("3 INVALID_ARGUMENT: bad path"), { code: 3, details: "bad path" }), {} as Request, api, () => undefined);
    expect(res.statusCode).toBe(500);
    expect(res.body).toEqual({ statusCode: 500, error: "Internal Server Error", message: "The server could not complete the request." });
  });
});
