import { vi } from "vitest";

// Setup of the "unit, a year ahead" project: the unit tests again with the clock (Date, as the code and
// the libraries read it) 400 days ahead, so a test that depends on the date it runs fails today, not
// next year. Timers stay real. Debian's faketime moves the whole process's clock the same way:
// `faketime '+400 days' npx vitest run --project unit` (README, Tests).
vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 400 * 24 * 60 * 60 * 1000, shouldAdvanceTime: true });
