import { describe, expect, it } from "vitest";
import { instanceFilter, timestampOf } from "../../src/print/jobs/selection";

describe("a print job's filter (the instances it names)", () => {
  it("turns an ISO time with Z or an offset into a timestamp to the nanosecond, in years 1 to 9999", () => {
    expect([timestampOf("2026-05-04T16:12:00Z").seconds, timestampOf("2026-05-04T16:12:00Z").nanoseconds]).toEqual([1_777_911_120, 0]);
    expect(timestampOf("2026-05-04T18:12:00.000500+02:00").isEqual(timestampOf("2026-05-04T16:12:00.0005Z"))).toBe(true);
    expect(timestampOf("2026-05-04T16:12:00.123456789Z").nanoseconds).toBe(123_456_789);
    expect([timestampOf("0001-01-01T00:00:00.5Z").seconds, timestampOf("0001-01-01T00:00:00.5Z").nanoseconds]).toEqual([-62_135_596_800, 500_000_000]);
  });

  it("takes {} and any of its three keys; refuses a time without an offset, one outside Firestore's years, an empty or a reversed window, and unknown keys", () => {
    for (const ok of [{}, { objectTypeName: "Safety Inspection" }, { updatedFrom: "2026-01-01T00:00:00Z", updatedTo: "2026-01-01T00:00:00.000001Z" }]) expect(instanceFilter.safeParse(ok).success, JSON.stringify(ok)).toBe(true);
    for (const [bad, field] of [
      [{ updatedFrom: "2026-01-01T00:00:00" }, "updatedFrom"],
      [{ updatedFrom: "2026-01-01" }, "updatedFrom"],
      [{ updatedTo: "0000-12-31T23:00:00Z" }, "updatedTo"],
      [{ updatedFrom: "2026-02-01T00:00:00Z", updatedTo: "2026-01-01T00:00:00Z" }, "updatedTo"],
      [{ updatedFrom: "2026-01-01T02:00:00+02:00", updatedTo: "2026-01-01T00:00:00Z" }, "updatedTo"],
      [{ updatedFrom: "2026-01-01T00:00:00.0005Z", updatedTo: "2026-01-01T00:00:00.0005Z" }, "updatedTo"],
      [{ objectTypeName: "" }, "objectTypeName"],
      [{ objectTypeName: 7 }, "objectTypeName"],
      [{ objectTypeName: "x".repeat(501) }, "objectTypeName"],
    ] as const) {
      const result = instanceFilter.safeParse(bad);
      expect(result.success, JSON.stringify(bad)).toBe(false);
      expect(result.error!.issues.map((issue) => issue.path.join("."))).toEqual([field]);
    }
    expect(instanceFilter.safeParse({ type: "x" }).error!.issues[0].code).toBe("unrecognized_keys");
  });
});
