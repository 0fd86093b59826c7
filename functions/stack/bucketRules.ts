/**
 * The default bucket's rules that Firebase deploys do not carry: the lifecycle rule that deletes
 * stored PDFs (generated-pdfs/) 30 days after they were written (a print after that renders again),
 * and the CORS rule that lets the browser origins of CORS_ORIGINS read a signed download URL with
 * fetch (the playground's preview; a plain link needs none). Applied to a real project with the
 * caller's Google credentials (gcloud auth application-default login, roles/storage.admin on the bucket):
 *   npm --prefix functions run bucket:rules -- <project-id> [bucket]   (bucket default: <project-id>.firebasestorage.app)
 * The origins are read from functions/.env.<project-id> (CORS_ORIGINS), as the deploy reads them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { initializeApp } from "firebase-admin/app";
import { getStorage } from "firebase-admin/storage";

/** Days a stored PDF lives; the print route's cache then renders it again on demand. */
export const STORED_PDF_DAYS = 30;

/** The bucket's lifecycle: only objects under generated-pdfs/ expire; uploads (logos, photos) never. */
export const LIFECYCLE = {
  rule: [{ action: { type: "Delete" as const }, condition: { age: STORED_PDF_DAYS, matchesPrefix: ["generated-pdfs/"] } }],
};

/**
 * The bucket's CORS rule for the exact origins of CORS_ORIGINS (never a pattern): GET of objects,
 * which is what fetching a signed URL needs (no credentials: the signature is in the URL).
 */
export function corsRule(corsOrigins: string): { origin: string[]; method: string[]; responseHeader: string[]; maxAgeSeconds: number }[] {
  const origins = corsOrigins
    .split(",")
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of origins) {
    if (origin === "*" || !/^https?:\/\/[^/*]+$/.test(origin)) throw new Error(`CORS_ORIGINS: '${origin}' is not an exact origin (scheme://host[:port])`);
  }
  return origins.length ? [{ origin: origins, method: ["GET"], responseHeader: ["Content-Type", "Content-Length"], maxAgeSeconds: 3600 }] : [];
}

/** CORS_ORIGINS as functions/.env.<project> sets it (what the deploy gives the functions); "" without the file (no CORS rule). */
function corsOriginsOf(projectId: string): string {
  let env: string;
  try {
    env = readFileSync(join(__dirname, "..", `.env.${projectId}`), "utf8");
  } catch {
    console.log(`functions/.env.${projectId} not found: no CORS rule (the lifecycle rule is set)`);
    return "";
  }
  return /^CORS_ORIGINS=(.*)$/m.exec(env)?.[1].trim() ?? "";
}

async function main(): Promise<void> {
  const [projectId, bucketName = `${projectId}.firebasestorage.app`] = process.argv.slice(2);
  if (!projectId) throw new Error("usage: npm --prefix functions run bucket:rules -- <project-id> [bucket]");
  const bucket = getStorage(initializeApp({ projectId })).bucket(bucketName);
  await bucket.setMetadata({ lifecycle: LIFECYCLE, cors: corsRule(corsOriginsOf(projectId)) });
  const [metadata] = await bucket.getMetadata();
  console.log(`gs://${bucketName}: lifecycle ${JSON.stringify(metadata.lifecycle)}; cors ${JSON.stringify(metadata.cors)}`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
