// Builds the hosting origin's client into functions/hosting: the playground (web/playground.ts with
// the Firebase JS SDK and pdf.js, bundled by esbuild) and the API reference's renderer (swagger-ui-dist's
// files, served from the origin: no CDN). `npm run build` makes a deploy's build; the local stack makes
// its own (`local`): the auth emulator, the demo targets and users, the mail sink's messages. A
// deploy's build has none of that: esbuild drops every `if (LOCAL)` branch.
//   node --import tsx web/build.ts [--local]

import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { build } from "esbuild";
import { DEMO_PASSWORD, DEMO_USERS } from "../stack/examples";
import { FUNCTIONS_DIR, URLS } from "../stack/config";

export const HOSTING_DIR = join(FUNCTIONS_DIR, "hosting");

/** Targets of the demo data the local playground offers. */
const DEMO_TARGETS = ["/tenant/acme-north", "/organization/acme/tenant/acme-north", "/tenant/acme-north/division/ops", "/organization/acme", "/tenant/acme-south", "/tenant/solo", "/site/harbor"];

const require = createRequire(join(FUNCTIONS_DIR, "package.json"));

/** Copies a package's file into the hosting folder. */
function copyFrom(packageFile: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(require.resolve(packageFile), to);
}

/** Builds into `outDir` (default: the hosting folder). */
export async function buildWeb({ local, outDir = HOSTING_DIR }: { local: boolean; outDir?: string }): Promise<void> {
  const stack = local ? { authEmulator: URLS.auth, mailSink: URLS.mailSink, targets: DEMO_TARGETS, users: DEMO_USERS, password: DEMO_PASSWORD } : undefined;
  await build({
    entryPoints: [join(FUNCTIONS_DIR, "web", "playground.ts")],
    outfile: join(outDir, "playground", "app.js"),
    bundle: true,
    format: "esm",
    target: "es2022",
    minify: true,
    legalComments: "linked",
    define: { LOCAL: String(local), STACK: stack ? JSON.stringify(stack) : "undefined" },
    logLevel: "warning",
  });
  copyFrom("pdfjs-dist/build/pdf.worker.min.mjs", join(outDir, "playground", "pdf.worker.min.mjs"));
  for (const file of ["swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js"]) copyFrom(`swagger-ui-dist/${file}`, join(outDir, "reference", "swagger-ui", file));
}

if (process.argv[1] && /web[/\\]build\.ts$/.test(process.argv[1])) {
  buildWeb({ local: process.argv.includes("--local") }).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
