import { PORTS, PROJECT_ID, URLS, type EmulatorSource } from "./config";
import { DEMO_PASSWORD, DEMO_USERS, EXAMPLES, TOKEN_COMMAND, curlCommand, jobExample, previewExample } from "./examples";

/** The block `npm start` prints once every part answers: where things are and how to call them. */
export function readyBlock(source: EmulatorSource, seeded: { users: number; documents: number }): string {
  const firestore = source === "google" ? "Google's Firestore emulator" : "JavaScript fallback (@firestore-emulator/server, patched)";
  const storage = source === "google" ? "firebase-tools storage emulator with Google's rules runtime" : "firebase-tools storage emulator, rules runtime replaced";
  const lines = [
    "",
    "==================== local stack ready ====================",
    `project ${PROJECT_ID}; seeded ${seeded.users} users and ${seeded.documents} documents from emulator-data/demo.json`,
    "",
    `  playground ${URLS.hosting}/playground/   (sign in, call any route, preview PDFs, captured mail)`,
    `  reference  ${URLS.hosting}/reference/    (both OpenAPI documents, rendered)`,
    `  api        ${URLS.hosting}/api/...      (function URL ${URLS.api}/api/...)`,
    `  print      ${URLS.hosting}/print/...    (function URL ${URLS.print}/print/...)`,
    `  auth       ${URLS.auth}`,
    `  firestore  127.0.0.1:${PORTS.firestore}  ${firestore}`,
    `  storage    ${URLS.storage}  ${storage}`,
    `  mail sink  ${URLS.mailSink}/messages  (captured email, as JSON)`,
    "",
    `Demo users (password "${DEMO_PASSWORD}"):`,
    ...DEMO_USERS.map((u) => `  ${u.email.padEnd(24)} ${u.role}`),
    "",
    "Try it (Bearer: an ID token from the auth emulator; Basic: curl -u email:password):",
    `  ${TOKEN_COMMAND}`,
    ...EXAMPLES.flatMap((e) => [`  # ${e.title}`, `  ${curlCommand(e)}`]),
    ...previewExample().flatMap((e) => [`  # ${e.title}`, ...e.lines.map((line) => `  ${line}`)]),
    ...jobExample().flatMap((e) => [`  # ${e.title}`, ...e.lines.map((line) => `  ${line}`)]),
    "  # Captured mail",
    `  curl -s ${URLS.mailSink}/messages`,
    "",
    "Ctrl-C stops every part.",
    "===========================================================",
    "",
  ];
  return lines.join("\n");
}
