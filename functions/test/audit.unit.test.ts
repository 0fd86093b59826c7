import { describe, expect, it } from "vitest";
import { hourlyEventId } from "../src/audit";

// Acts recorded once an hour (a preview, a stored PDF printed again) share an event id within the
// hour of the clock for the same action, user and document, and never across any of them.
describe("hourlyEventId", () => {
  const hour = Date.parse("2026-11-22T10:00:00Z");
  const parts = ["north-reader", "generated-pdfs/tenants/acme-north/inspection-short/r2-1-a.pdf"];

  it("is one id within an hour of the clock, and another the next hour", () => {
    const id = hourlyEventId("pdf.printed", parts, hour);
    expect(id).toMatch(/^[0-9a-f]{20}$/);
    expect(hourlyEventId("pdf.printed", parts, hour + 59 * 60_000 + 59_999)).toBe(id);
    expect(hourlyEventId("pdf.printed", parts, hour + 60 * 60_000)).not.toBe(id);
    expect(hourlyEventId("pdf.printed", parts, hour - 1)).not.toBe(id);
  });

  it("differs by action, by user and by document (its target included)", () => {
    const ids = [
      hourlyEventId("pdf.printed", parts, hour),
      hourlyEventId("pdf.previewed", parts, hour),
      hourlyEventId("pdf.printed", ["north-admin", parts[1]], hour),
      hourlyEventId("pdf.printed", [parts[0], parts[1].replace("acme-north", "acme-south")], hour),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });
});
