import { DocumentReference, Firestore, GeoPoint, Timestamp } from "@google-cloud/firestore";
import { describe, expect, it } from "vitest";
import { UNSUPPORTED_VALUE, formatGeoPoint, plainData } from "../../src/print/plainData";

// A client that never connects: a reference only needs its database and path.
const db = new Firestore({ projectId: "example-project" });
const sdk = { Timestamp, DocumentReference, GeoPoint };

describe("plainData", () => {
  it("prints Firestore's own types deliberately: a reference as its path, a GeoPoint as coordinates, Bytes by size, a Timestamp as a Date", () => {
    const at = Timestamp.fromMillis(Date.UTC(2026, 4, 4, 13, 45));
    expect(plainData({ ref: db.doc("tenants/t/objectInstances/x"), where: new GeoPoint(52.52, -13.405), blob: Buffer.from([1, 2, 3]), at }, sdk)).toEqual({
      ref: "tenants/t/objectInstances/x",
      where: "52.52\u00b0 N, 13.405\u00b0 W",
      blob: "(binary data, 3 bytes)",
      at: new Date(Date.UTC(2026, 4, 4, 13, 45)),
    });
  });

  it("keeps plain data as it is, inside arrays and objects, at any depth", () => {
    const value = { a: [1, "two", null, true, { b: [{ c: "deep" }] }], d: Object.assign(Object.create(null), { e: 1 }) };
    expect(plainData(value, sdk)).toEqual({ a: [1, "two", null, true, { b: [{ c: "deep" }] }], d: { e: 1 } });
  });

  it("never walks another object, so a client's internals cannot reach a PDF", () => {
    const text = JSON.stringify(plainData({ client: db, map: new Map([["k", "v"]]), nested: [{ x: new URL("https://internal.example/") }] }, sdk));
    expect(text).toBe(JSON.stringify({ client: UNSUPPORTED_VALUE, map: UNSUPPORTED_VALUE, nested: [{ x: UNSUPPORTED_VALUE }] }));
    expect(text).not.toMatch(/example-project|googleapis|internal\.example/);
  });

  it("formats the four quadrants of a GeoPoint", () => {
    expect([formatGeoPoint(1, 2), formatGeoPoint(-1, 2), formatGeoPoint(1, -2), formatGeoPoint(-1.5, -2.25)]).toEqual(["1° N, 2° E", "1° S, 2° E", "1° N, 2° W", "1.5° S, 2.25° W"]);
  });
});
