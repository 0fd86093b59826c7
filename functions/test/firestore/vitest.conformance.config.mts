import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

// Runs only the Firestore conformance suite, against an already running Firestore emulator
// (CONFORMANCE_FIRESTORE_HOST, default 127.0.0.1:8080), without starting the local stack:
//   cd functions && CONFORMANCE_FIRESTORE_HOST=127.0.0.1:8080 npx vitest run --config test/firestore/vitest.conformance.config.mts
export default defineConfig({
  test: {
    root: resolve(__dirname, "../.."), // functions/ (Vite defines __dirname in config files)
    include: ["test/firestore/conformance.stack.test.ts"],
    testTimeout: 30_000,
  },
});
