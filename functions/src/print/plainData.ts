import type * as firestore from "firebase-admin/firestore";

type FirestoreSdk = Pick<typeof firestore, "Timestamp" | "DocumentReference" | "GeoPoint">;

/** What a field value that is not plain data prints as. */
export const UNSUPPORTED_VALUE = "(unsupported value)";

/** "52.52° N, 13.405° W" */
export function formatGeoPoint(latitude: number, longitude: number): string {
  const part = (n: number, positive: string, negative: string) => `${Math.abs(n)}\u00b0 ${n < 0 ? negative : positive}`;
  return `${part(latitude, "N", "S")}, ${part(longitude, "E", "W")}`;
}

const isPlainObject = (value: object) => [Object.prototype, null].includes(Object.getPrototypeOf(value));

/**
 * An instance's data as the renderer may walk it: strings, numbers, booleans, null, Dates, arrays and
 * plain objects only. Firestore's own types print deliberately (a Timestamp as its instant, a reference
 * as its document path, a GeoPoint as coordinates, Bytes by their size); any other object (a vector
 * value among them) prints as UNSUPPORTED_VALUE and is not walked, so that no client internals
 * (project, host, library versions) can reach a PDF.
 */
export function plainData(value: unknown, sdk: FirestoreSdk): unknown {
  if (value === null || typeof value !== "object") return typeof value === "function" || typeof value === "symbol" ? undefined : value;
  if (value instanceof Date) return value;
  if (value instanceof sdk.Timestamp) return value.toDate();
  if (value instanceof sdk.DocumentReference) return value.path;
  if (value instanceof sdk.GeoPoint) return formatGeoPoint(value.latitude, value.longitude);
  if (value instanceof Uint8Array) return `(binary data, ${value.byteLength} bytes)`; // Firestore Bytes arrive as Buffers
  if (Array.isArray(value)) return value.map((item) => plainData(item, sdk));
  if (!isPlainObject(value)) return UNSUPPORTED_VALUE;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plainData(item, sdk)]));
}
