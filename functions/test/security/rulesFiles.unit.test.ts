// The rules files deny every client read and write (SECURITY.md, threat 12), checked everywhere:
// security/rules.stack.test.ts proves it with Google's emulators, which need Java 21 and are skipped
// on this project's machines. This reads the files themselves (test/security/rulesLanguage.ts) and
// shows, on mutated copies, that the check fails for any allow that is not `if false`.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT_DIR } from "../../stack/config";
import { denyAllProblems, parseRules } from "./rulesLanguage";

const FILES = [
  { file: "firestore.rules", service: "cloud.firestore", matches: [["/databases/{database}/documents"], ["/databases/{database}/documents", "/{document=**}"]] },
  { file: "storage.rules", service: "firebase.storage", matches: [["/b/{bucket}/o"], ["/b/{bucket}/o", "/{allPaths=**}"]] },
] as const;

/** Grants a client could use, as a careless edit would add them. */
const GRANTS = [
  "allow read: if true;",
  "allow write: if request.auth != null;",
  "allow read;", // no condition: always
  "allow get, list: if false || true;",
  "allow create: if (false) || request.auth.uid == 'x';",
  "allow update: if !false;",
  "allow delete: if true && false == false;",
];

/** Copies of `source` with `statement` added at the start of each match block, and in a new match nested in each. */
function mutations(source: string, statement: string): { where: string; source: string }[] {
  const openings = [...source.matchAll(/match\s+\S+\s*\{/g)].map((m) => m.index + m[0].length);
  expect(openings.length).toBeGreaterThanOrEqual(2);
  return openings.flatMap((at) => [
    { where: `in the match at offset ${at}`, source: `${source.slice(0, at)}\n  ${statement}\n${source.slice(at)}` },
    { where: `in a match nested in the one at offset ${at}`, source: `${source.slice(0, at)}\n  match /added/{id} {\n    ${statement}\n  }\n${source.slice(at)}` },
  ]);
}

describe.each(FILES)("$file", ({ file, service, matches }) => {
  const source = readFileSync(join(ROOT_DIR, file), "utf8");

  it("denies every client read and write: each allow of each match is `if false`", () => {
    const rules = parseRules(source);
    expect(rules.service).toBe(service);
    expect(rules.matchBlocks).toEqual(matches);
    expect(rules.allows).toEqual([{ matches: matches[1], methods: ["read", "write"], condition: "false", never: true }]);
    expect(denyAllProblems(source, service)).toEqual([]);
  });

  it.each(GRANTS)("fails the check once `%s` is added to any match block, nested or not", (grant) => {
    const copies = mutations(source, grant);
    for (const copy of copies) expect(denyAllProblems(copy.source, service), copy.where).toEqual([expect.stringContaining(`allow ${grant.slice(6).split(/[:;]/)[0]}`)]);
  });

  it("fails the check for an allow in a match after the existing ones, and for another service", () => {
    const closing = source.lastIndexOf("}", source.lastIndexOf("}") - 1);
    const extra = `${source.slice(0, closing)}  match /other/{path=**} { allow read: if request.time != null; }\n${source.slice(closing)}`;
    expect(denyAllProblems(extra, service)).toEqual([expect.stringMatching(/match .*\/other\/\{path=\*\*\}: allow read: if request\.time != null/)]);
    expect(denyAllProblems(source, service === "cloud.firestore" ? "firebase.storage" : "cloud.firestore")).toEqual([`the service is ${service}, not ${service === "cloud.firestore" ? "firebase.storage" : "cloud.firestore"}`]);
  });

  it("reads the file rather than grepping it: a grant in a comment or a function changes nothing, nor do parentheses; a broken file is an error", () => {
    const commented = source.replace(/allow read, write: if false;/, "$& // allow read: if true;\n/* allow write: if true; */");
    expect(commented).not.toBe(source);
    expect(denyAllProblems(commented, service)).toEqual([]);
    expect(denyAllProblems(source.replace("if false;", "if ((false) );"), service)).toEqual([]);
    const withFunction = source.replace(/\{\n/, "{\n  function signedIn() { return request.auth != null; }\n");
    expect(denyAllProblems(withFunction, service)).toEqual([]);
    // A function called from an allow is a grant like any other condition.
    expect(denyAllProblems(withFunction.replace("if false;", "if signedIn();"), service)).toEqual([expect.stringContaining("if signedIn()")]);
    for (const broken of [source.replace("if false;", "if false"), source.slice(0, -3), source.replace("allow", "permit"), source.replace("read, write", "read, own"), `${source}\nallow read;`]) {
      expect(() => denyAllProblems(broken, service)).toThrow(/^rules, line \d+: /);
    }
  });
});
