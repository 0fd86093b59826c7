import { vi } from "vitest";

/** How far ahead the "unit, a year ahead" project sets the clock (test/nextYear.ts). */
export const YEAR_AHEAD_MS = 400 * 24 * 60 * 60 * 1000;

/**
 * Gives the clock back to the suite after a test faked timers of its own: real timers, and in the
 * "unit, a year ahead" project its clock a year ahead again (vi.useRealTimers alone would run the rest
 * of the file on today's date there).
 */
export function suiteClock(): void {
  vi.useRealTimers();
  if ((globalThis as { yearAhead?: boolean }).yearAhead) vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + YEAR_AHEAD_MS, shouldAdvanceTime: true });
}
