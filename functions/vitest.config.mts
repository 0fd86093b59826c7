import { defineConfig } from "vitest/config";

// Two kinds of tests, mirroring src/ and stack/:
//   *.unit.test.ts   pure functions, no emulator; run twice, today and with the clock a year ahead
//   *.stack.test.ts  through the local stack, which test/globalSetup.ts starts once with the real
//                    launcher (`npm start`'s) and stops at the end, checking that nothing is left.
export default defineConfig({
  test: {
    projects: [
      { test: { name: "unit", include: ["test/**/*.unit.test.ts"], globalSetup: ["test/unitSetup.ts"] } },
      // The same tests with the clock 400 days ahead (test/nextYear.ts): no test may depend on the date.
      {
        test: { name: "unit, a year ahead", include: ["test/**/*.unit.test.ts"], setupFiles: ["test/nextYear.ts"], globalSetup: ["test/unitSetup.ts"] },
      },
      {
        test: {
          name: "stack",
          include: ["test/**/*.stack.test.ts"],
          // Google's client libraries in the test process would otherwise probe the cloud metadata server.
          env: { METADATA_SERVER_DETECTION: "none" },
          globalSetup: ["test/globalSetup.ts"],
          fileParallelism: false, // the files share one stack and its demo data
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
