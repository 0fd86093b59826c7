/**
 * The default bucket's rules that Firebase deploys do not carry: the lifecycle rule that deletes
 * stored PDFs (generated-pdfs/) 30 days after they were written; a print after that renders again.
 * Applied to a real project with the caller's Google credentials (gcloud auth application-default
 * login, roles/storage.admin on the bucket):
 *   npm --prefix functions run bucket:rules -- <project-id> [bucket]   (bucket default: <project-id>.firebasestorage.app)
 */
import { initializeApp } from "firebase-admin/app";
import { getStorage } from "firebase-admin/storage";

/** Days a stored PDF lives; the print route's cache then renders it again on demand. */
export const STORED_PDF_DAYS = 30;

/** The bucket's lifecycle: only objects under generated-pdfs/ expire; uploads (logos, photos) never. */
export const LIFECYCLE = {
  rule: [{ action: { type: "Delete" as const }, condition: { age: STORED_PDF_DAYS, matchesPrefix: ["generated-pdfs/"] } }],
};

async function main(): Promise<void> {
  const [projectId, bucketName = `${projectId}.firebasestorage.app`] = process.argv.slice(2);
  if (!projectId) throw new Error("usage: npm --prefix functions run bucket:rules -- <project-id> [bucket]");
  const bucket = getStorage(initializeApp({ projectId })).bucket(bucketName);
  await bucket.setMetadata({ lifecycle: LIFECYCLE });
  const [metadata] = await bucket.getMetadata();
  console.log(`gs://${bucketName}: lifecycle ${JSON.stringify(metadata.lifecycle)}`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
