// The hosting client's two builds (web/build.ts): the stack's has the local-only parts (auth emulator,
// demo users, mail sink), a deploy's has none of them; both carry the page's own files.

import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { URLS } from "../../stack/config";
import { DEMO_PASSWORD } from "../../stack/examples";
import { buildWeb } from "../../web/build";

const dirs: string[] = [];
async function built(local: boolean): Promise<{ dir: string; app: string }> {
  const dir = mkdtempSync(join(tmpdir(), "web-build-"));
  dirs.push(dir);
  await buildWeb({ local, outDir: dir });
  return { dir, app: readFileSync(join(dir, "playground", "app.js"), "utf8") };
}
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe("the hosting client's builds", () => {
  const localOnly = [URLS.auth, URLS.mailSink, DEMO_PASSWORD, "north-admin@acme.test", "/tenant/acme-north"];

  it("a deploy's build has no local-stack part: no emulator, mail sink, demo user or target", async () => {
    const { dir, app } = await built(false);
    for (const text of localOnly) expect(app, text).not.toContain(text);
    expect(app).toContain("/__/firebase/init.json"); // the project's web config, from Hosting
    for (const file of ["playground/pdf.worker.min.mjs", "reference/swagger-ui/swagger-ui-bundle.js", "reference/swagger-ui/swagger-ui.css"]) expect(existsSync(join(dir, file)), file).toBe(true);
  }, 30_000);

  it("the stack's build has them", async () => {
    const { app } = await built(true);
    for (const text of localOnly) expect(app, text).toContain(text);
  }, 30_000);
});
