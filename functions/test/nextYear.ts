import { vi } from "vitest";
import { YEAR_AHEAD_MS } from "./suiteClock";

// Setup of the "unit, a year ahead" project: the unit tests again with the clock (Date, as the code and
// the libraries read it) 400 days ahead, so a test that depends on the date it runs fails today, not
// next year. Timers stay real. Debian's faketime moves the whole process's clock the same way:
// `faketime '+400 days' npx vitest run --project unit` (README, Tests). A test that fakes timers of its
// own gives the clock back with suiteClock(), not vi.useRealTimers(), which would end the year ahead.
(globalThis as { yearAhead?: boolean }).yearAhead = true;
vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + YEAR_AHEAD_MS, shouldAdvanceTime: true });
