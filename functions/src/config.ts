import { defineInt, defineSecret, defineString } from "firebase-functions/params";

/**
 * Deployment parameters, declared once. firebase-tools lists them at deploy time and asks for
 * values that have no default; the emulator reads them from functions/.env.demo-print-admin.
 */
export const params = {
  /** The project's Web API key: Basic credentials are checked through Identity Toolkit with it. */
  // No defaults that only suit the demo project: a deploy to a real project must be given these.
  webApiKey: defineString("WEB_API_KEY", {
    description: "Web API key of the Firebase project (Project settings > General), used to verify Basic email:password credentials.",
  }),
  /** Sender of send-pdf mail; must be a verified sender of the SendGrid account. */
  mailFromEmail: defineString("MAIL_FROM_EMAIL", {
    default: "",
    description: "Sender address of emailed PDFs (a verified SendGrid sender). Empty: send-pdf answers 503.",
  }),
  /** Display name of the sender. */
  mailFromName: defineString("MAIL_FROM_NAME", {
    default: "Print service",
    description: "Sender name of emailed PDFs.",
  }),
  /** Comma-separated origins allowed to call the functions from a browser ("*" allows any). */
  corsOrigins: defineString("CORS_ORIGINS", {
    description: "Comma-separated list of browser origins allowed to call the api and print functions.",
  }),
  /**
   * Proxies of the deployment's own between the client and Google's front end (an external Application
   * Load Balancer is one): the failed-sign-in limit counts the X-Forwarded-For hop this many places
   * before the last. Checked (0 to MAX_TRUSTED_PROXY_HOPS) where it is read, in http/signInLimit.ts.
   */
  trustedProxyHops: defineInt("TRUSTED_PROXY_HOPS", {
    default: 0,
    description: "Proxies of your own in front of the functions that append an X-Forwarded-For hop (an external Application Load Balancer: 1), 0 to 5. The client address of the failed Basic sign-in limit is the hop this many places before the last.",
  }),
  /** Renders that miss the stored PDFs, per user per hour over every target (print and send-pdf). */
  rendersPerUserPerHour: defineInt("RENDERS_PER_USER_PER_HOUR", {
    default: 120,
    description: "New PDFs (renders that miss the stored ones) one user may cause per hour, over every target; beyond it print and send-pdf answer 429.",
  }),
  /** Previews per user per hour: a template editor asks for one as its author types (nothing stored). */
  previewsPerUserPerHour: defineInt("PREVIEWS_PER_USER_PER_HOUR", {
    default: 2_000,
    description: "Previews (POST preview: a PDF rendered with a template, stored nowhere) one user may ask for per hour, over every target; beyond it the route answers 429.",
  }),
  /** Documents printed in print jobs per target per day: a job is up to 10,000 renders of the shared queue. */
  jobDocumentsPerTargetPerDay: defineInt("JOB_DOCUMENTS_PER_TARGET_PER_DAY", {
    default: 50_000,
    description: "Documents one target may ask print jobs for per day (each job's count is spent when it is created); beyond it POST print-jobs answers 429.",
  }),
  /** Logo uploads per target per day (failed ones too): each is up to 1 MB of Storage. */
  logoUploadsPerTargetPerDay: defineInt("LOGO_UPLOADS_PER_TARGET_PER_DAY", {
    default: 20,
    description: "Logo uploads (PUT print-settings/logo) one target accepts per day, failed ones included; beyond it the route answers 429.",
  }),
  /**
   * The Cloud KMS key version that signs PDFs of targets whose print setting `sign` is on (issue 36);
   * its certificate chain is the secret SIGNING_CERTIFICATE_CHAIN. Unused under the emulator, which
   * signs with the local stack's throwaway key (stack/signingCa.ts).
   */
  signingKmsKey: defineString("SIGNING_KMS_KEY", {
    default: "",
    description:
      "Resource name of the Cloud KMS key version (EC_SIGN_P256_SHA256) that signs PDFs: projects/P/locations/L/keyRings/R/cryptoKeys/K/cryptoKeyVersions/V. The runtime service account needs roles/cloudkms.signerVerifier on the key. Empty: targets with print setting sign on answer 503.",
  }),
  /**
   * The certificate chains the service signed with before a key rotation, PEM, every certificate one
   * after another (POST verify trusts them beside SIGNING_CERTIFICATE_CHAIN). A param, not a secret:
   * certificates are public, and a param may be empty (a secret must exist for a deploy).
   */
  signingPreviousChains: defineString("SIGNING_PREVIOUS_CHAINS", {
    default: "",
    description:
      "Certificate chains of signing keys used before a rotation, PEM (certificates one after another, line breaks optional): PDFs they signed still verify as valid. Empty: only SIGNING_CERTIFICATE_CHAIN is trusted.",
  }),
};

/** Largest JSON request body either function accepts. Every documented body is far smaller. */
export const MAX_BODY_BYTES = 100 * 1024;

/** Region of both functions; the hosting rewrites in firebase.json name the same one. */
export const REGION = "us-central1";

/**
 * Instance settings of each function, applied at deploy (README, Deploying). Timeouts cover the
 * longest chain of bounded backend calls (Auth 5 s, then Firestore, Storage and SendGrid at 10 s
 * each); maxInstances caps cost and the load on Firestore in a burst.
 */
export const RUNTIME_OPTIONS = {
  // I/O-bound requests of a few ms of CPU each: many per instance.
  api: { memory: "256MiB", cpu: 1, concurrency: 80, timeoutSeconds: 30, maxInstances: 20 },
  // Rendering is CPU-bound and a 2,000-row table peaks at about 280 MiB (docs/BENCHMARKS.md): fewer
  // requests per instance, more memory each.
  print: { memory: "1GiB", cpu: 1, concurrency: 8, timeoutSeconds: 60, maxInstances: 10 },
  // A chunk of 50 documents at the renderer's worst (about 2 s each) is well within 9 minutes; one task
  // per instance at a time, as print renders one at a time (a render's memory, whatever the load).
  printJobTask: { memory: "1GiB", cpu: 1, concurrency: 1, timeoutSeconds: 540, maxInstances: 10 },
  // A query and a few writes per stuck job, 100 jobs a run at most.
  printJobReaper: { memory: "256MiB", cpu: 1, timeoutSeconds: 300, maxInstances: 1 },
} as const;

/**
 * The print-job queue (Cloud Tasks). Retries: a chunk fails as a whole only when the platform does
 * (Storage or Firestore unavailable, the instance lost): five attempts, backing off from 5 s to
 * 5 minutes, outlast a short outage. Rates: as many tasks at once as the function has instances
 * (maxInstances x concurrency), and at most 20 started a second.
 */
export const PRINT_JOB_QUEUE = {
  // In the emulator the same attempts, 1 to 4 s apart: a test sees a task's last attempt in seconds, not minutes.
  retryConfig: { maxAttempts: 5, minBackoffSeconds: process.env.FUNCTIONS_EMULATOR === "true" ? 1 : 5, maxBackoffSeconds: process.env.FUNCTIONS_EMULATOR === "true" ? 4 : 300 },
  // In the emulator two at a time: the functions emulator starts a worker process per task in flight.
  rateLimits: { maxConcurrentDispatches: process.env.FUNCTIONS_EMULATOR === "true" ? 2 : 10, maxDispatchesPerSecond: 20 },
};

/** True inside the Firebase emulator suite (set by the functions emulator). */
export function isEmulator(): boolean {
  return process.env.FUNCTIONS_EMULATOR === "true";
}

/**
 * How long a verified user status (Bearer and Basic) or credential (Basic) is trusted without asking
 * Auth again: a disable, a revocation (of a Bearer token) or a password change takes effect within this time.
 */
export const AUTH_CACHE_TTL_MS = 10_000;

/** Identity Toolkit REST root: the auth emulator's when the functions run under it. */
export function identityToolkitUrl(): string {
  const emulatorHost = process.env.FIREBASE_AUTH_EMULATOR_HOST;
  return emulatorHost ? `http://${emulatorHost}/identitytoolkit.googleapis.com` : "https://identitytoolkit.googleapis.com";
}

/** SendGrid API key (Secret Manager in production; functions/.secret.local under the emulator). */
export const sendgridApiKey = defineSecret("SENDGRID_API_KEY");

/**
 * The certificate chain of the PDF signing key, PEM: the signing certificate first, then its issuers
 * up to the root (Secret Manager in production; functions/.secret.local under the emulator, where the
 * launcher writes the local stack's test chain). Not a secret as such (certificates are public), but
 * kept with the key's other configuration and replaced as one value at a rotation.
 */
export const signingCertificateChain = defineSecret("SIGNING_CERTIFICATE_CHAIN");

/**
 * Emulator only: the environment variable with the local stack's throwaway signing key (PKCS#8 PEM),
 * which the launcher writes into functions/.secret.local beside SIGNING_CERTIFICATE_CHAIN (the
 * functions emulator hands every entry of that file to the functions as environment variables). Not a
 * declared secret: production has no such key (it signs through Cloud KMS) and never reads this.
 */
export const LOCAL_SIGNING_KEY_ENV = "SIGNING_LOCAL_KEY";

/** Where @sendgrid/mail sends: the stack's mail sink under the emulator, SendGrid otherwise. */
export function sendgridBaseUrl(): string | undefined {
  return isEmulator() ? process.env.SENDGRID_API_URL : undefined;
}

/**
 * Failed Basic sign-ins allowed per email, and per client address where the platform gives one, in
 * a window that starts at the first failure; past them, 429 until the window ends (SECURITY.md, 3).
 */
export const SIGN_IN_FAILURE_LIMITS = { perEmail: 10, perAddress: 100, windowMs: 15 * 60 * 1000 };

/** Most TRUSTED_PROXY_HOPS may say: no front door of this service has more proxies of its own. */
export const MAX_TRUSTED_PROXY_HOPS = 5;

export const HOUR_MS = 60 * 60 * 1000;

/**
 * send-pdf's quotas, counted in Firestore (each window starts at its first use): sends per user on
 * one target, recipients per user over every target (an organization-wide grant does not multiply
 * it), and recipients per tenant (or organization or site) per day.
 */
export const SEND_PDF_LIMITS = {
  sendsPerUserAndTarget: { max: 20, windowMs: HOUR_MS },
  recipientsPerUser: { max: 100, windowMs: HOUR_MS },
  recipientsPerTenant: { max: 1_000, windowMs: 24 * HOUR_MS },
};

/** How long an Idempotency-Key of send-pdf is remembered per user. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * HOUR_MS;

/**
 * How long one Firestore round trip (a read, a query or a whole transaction) may take before the
 * request answers 503. firebase-admin retries an unreachable Firestore for about 45 s on its own.
 */
export const FIRESTORE_DEADLINE_MS = 10_000;

/** How long one Cloud Storage call may take (its client's own retries included) before the request answers 503. */
export const STORAGE_DEADLINE_MS = 10_000;

/** How long send-pdf waits for SendGrid before answering 504. */
export const SENDGRID_TIMEOUT_MS = 10_000;

/** SendGrid accepts at most 30 MB per request; base64 grows the PDF by a third, so 20 MB raw. */
export const MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;
