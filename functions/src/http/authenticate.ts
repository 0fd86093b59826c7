import { createHash, createHmac, randomBytes } from "node:crypto";
import type { Request, RequestHandler } from "express";
import { AUTH_CACHE_TTL_MS, identityToolkitUrl, params } from "../config";
import { auth } from "../firebase";
import { HttpError } from "./errors";
import { withDeadline } from "./deadline";
import { countBackendCall } from "./requestContext";
import { clientAddress, recordFailure, refuseIfLimited, trustedProxyHops } from "./signInLimit";
import { TtlCache } from "./ttlCache";

/** Who is calling, once authenticated. */
export interface Caller {
  uid: string;
  scheme: "bearer" | "basic";
  /**
   * The ID token's email, only when `email_verified` is true (send-pdf names the sender with it): anyone
   * can set their own account's email to any address, unverified (Identity Toolkit `accounts:update`).
   */
  email?: string;
}

/** What a verified ID token tells about its caller. */
interface VerifiedToken {
  uid: string;
  authTime: number;
  /** Set only when the token says the address is verified. */
  email?: string;
}

// Bearer only: a Basic challenge would invite a browser to ask for a password and then send it, unasked,
// with every request a page of another site makes here (CSRF). Basic still works for clients that send it.
const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="firebase"' };
const unauthorized = (message: string) => new HttpError(401, message, CHALLENGE);

/** Wrong email or password, or a disabled account: one indistinct 401, and a failure the sign-in limit counts. */
class WrongCredentials extends HttpError {
  constructor() {
    super(401, "The email or password is incorrect, or the account is disabled.", CHALLENGE);
  }
}

// --- Bearer: a Firebase ID token -------------------------------------------------------------

interface UserStatus {
  disabled: boolean;
  /** Tokens issued before this time (seconds) are revoked. */
  validAfterSeconds: number;
}
const userStatusCache = new TtlCache<UserStatus>(AUTH_CACHE_TTL_MS);
/** A hanging Auth backend answers 503 after this, instead of holding the request until the function's timeout. */
const AUTH_LOOKUP_DEADLINE_MS = 5_000;

async function userStatus(uid: string): Promise<UserStatus | undefined> {
  const cached = userStatusCache.get(uid);
  if (cached) return cached;
  countBackendCall("auth");
  try {
    const user = await withDeadline(auth().getUser(uid), AUTH_LOOKUP_DEADLINE_MS, () => new Error("Auth lookup timed out"));
    const validAfter = user.tokensValidAfterTime ? Date.parse(user.tokensValidAfterTime) / 1000 : 0;
    const status = { disabled: user.disabled, validAfterSeconds: Math.floor(validAfter) };
    userStatusCache.set(uid, status);
    return status;
  } catch (error) {
    if ((error as { code?: string }).code === "auth/user-not-found") return undefined;
    throw new HttpError(503, "The authentication service is unavailable; try again shortly.");
  }
}

// firebase-admin's codes. The last three come from verifyIdToken itself only under the auth
// emulator, where it always checks revocation; in production the check below does that work.
const TOKEN_ERRORS: Record<string, string> = {
  "auth/id-token-expired": "The ID token has expired; get a fresh one from Firebase Auth.",
  "auth/argument-error": "The ID token is invalid: malformed, or not issued for this project.",
  "auth/invalid-argument": "The ID token is invalid: malformed, or not issued for this project.",
  "auth/id-token-revoked": "The ID token has been revoked; sign in again.",
  "auth/user-disabled": "This user account is disabled.",
  "auth/user-not-found": "The user of this ID token no longer exists.",
};

/**
 * Tokens whose signature and claims were verified, by SHA-256 of the token, until the token expires
 * (at most AUTH_CACHE_TTL_MS): a client sends the same token for up to an hour. It spares the
 * signature check, and under the Auth emulator a lookup of the user on every request.
 */
const verifiedTokens = new TtlCache<VerifiedToken>(AUTH_CACHE_TTL_MS);

/** Verifies an ID token's signature and claims with firebase-admin; its errors become 401s. */
async function verifyToken(token: string): Promise<VerifiedToken & { expiresAtMs: number }> {
  try {
    const decoded = await auth().verifyIdToken(token);
    const email = decoded.email_verified === true ? decoded.email : undefined;
    return { uid: decoded.uid, authTime: decoded.auth_time, email, expiresAtMs: decoded.exp * 1000 };
  } catch (error) {
    const code = (error as { code?: string }).code ?? "";
    throw unauthorized(TOKEN_ERRORS[code] ?? "The ID token is invalid.");
  }
}

/** verifyToken for a token a client sends again and again (Bearer): remembered by its SHA-256. */
async function verifyTokenCached(token: string): Promise<VerifiedToken> {
  const key = createHash("sha256").update(token).digest("base64");
  const cached = verifiedTokens.get(key);
  if (cached) return cached;
  const { expiresAtMs, ...verified } = await verifyToken(token);
  verifiedTokens.set(key, verified, expiresAtMs - Date.now());
  return verified;
}

/** Rejects a verified token whose user is gone or disabled, or that was issued before a revocation. */
async function checkUserStatus(decoded: VerifiedToken): Promise<void> {
  const status = await userStatus(decoded.uid);
  if (!status) throw unauthorized("The user of this ID token no longer exists.");
  if (status.disabled) throw unauthorized("This user account is disabled.");
  if (decoded.authTime < status.validAfterSeconds) throw unauthorized("The ID token has been revoked; sign in again.");
}

/**
 * Verifies the token's signature and claims (locally, against Google's cached public keys), then
 * rejects tokens of disabled users and tokens issued before a revocation. That second check asks
 * the Auth backend, so its answer is cached per user for at most AUTH_CACHE_TTL_MS.
 */
async function verifyBearer(token: string): Promise<Caller> {
  const decoded = await verifyTokenCached(token);
  await checkUserStatus(decoded);
  return { uid: decoded.uid, scheme: "bearer", email: decoded.email };
}

// --- Basic: email:password --------------------------------------------------------------------

// Successful credentials are remembered under an HMAC with a key that never leaves this
// instance, so the cache holds no password and no reversible form of one.
const credentialKey = randomBytes(32);
const credentialCache = new TtlCache<VerifiedToken>(AUTH_CACHE_TTL_MS);
const SIGN_IN_TIMEOUT_MS = 5_000;

/** Signs in with Identity Toolkit; the answer's ID token is what identifies the caller. */
async function signInWithPassword(email: string, password: string): Promise<string> {
  countBackendCall("auth");
  let res: Response;
  try {
    res = await fetch(`${identityToolkitUrl()}/v1/accounts:signInWithPassword?key=${encodeURIComponent(params.webApiKey.value())}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password, returnSecureToken: true }),
      signal: AbortSignal.timeout(SIGN_IN_TIMEOUT_MS),
    });
  } catch {
    throw new HttpError(503, "The authentication service is unreachable; try again shortly.");
  }
  const body = (await res.json().catch(() => ({}))) as SignInAnswer;
  const outcome = signInOutcome(res.status, body);
  if (outcome instanceof HttpError) throw outcome;
  return outcome;
}

interface SignInAnswer {
  idToken?: string;
  mfaPendingCredential?: string;
  error?: { message?: string };
}

/**
 * What an Identity Toolkit `accounts:signInWithPassword` answer means for the caller: the ID token
 * to verify, or the error to answer with. A password is only the first factor of a user enrolled in
 * a second one (Identity Toolkit then answers 200 with a pending credential and no token): 401.
 * Wrong credentials and disabled accounts are one 401 (no account enumeration); rate limiting is
 * the caller's 429; anything else (a bad API key, password sign-in turned off, a 5xx) is ours to
 * fix, so 503.
 */
export function signInOutcome(status: number, body: SignInAnswer): string | HttpError {
  if (status === 200 && body.mfaPendingCredential !== undefined) {
    return unauthorized("This account uses multi-factor authentication, which Basic credentials cannot complete: sign in with the Firebase Auth SDK and send its ID token as Bearer.");
  }
  if (status === 200 && typeof body.idToken === "string" && body.idToken.length > 0) return body.idToken;
  const reason = body.error?.message ?? "";
  if (reason.startsWith("TOO_MANY_ATTEMPTS_TRY_LATER")) {
    return new HttpError(429, "Too many failed sign-in attempts for this account; try again later.", { "Retry-After": "60" });
  }
  if (status === 400 && /^(INVALID_LOGIN_CREDENTIALS|EMAIL_NOT_FOUND|INVALID_PASSWORD|USER_DISABLED|INVALID_EMAIL|MISSING_PASSWORD)\b/.test(reason)) {
    return new WrongCredentials();
  }
  return new HttpError(503, "Password authentication is unavailable; try again shortly or use a Bearer ID token.");
}

/** Decodes `base64(email:password)` strictly (401 when it is anything else). */
export function parseBasicCredentials(encoded: string): { email: string; password: string } {
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  // Node's decoder skips what is not base64; re-encoding must give back what was sent.
  const canonical = (b64: string) => b64.replace(/=+$/, "");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || canonical(Buffer.from(decoded, "utf8").toString("base64")) !== canonical(encoded)) {
    throw unauthorized("Basic credentials must be base64(email:password).");
  }
  const colon = decoded.indexOf(":");
  if (colon <= 0 || colon === decoded.length - 1) throw unauthorized("Basic credentials must be base64(email:password), both non-empty.");
  return { email: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * A Basic sign-in ends where a Bearer request starts: a verified ID token of a user who is neither
 * disabled nor revoked. A success is remembered for AUTH_CACHE_TTL_MS, so a changed password stops
 * working within that time; the user's status is checked on every request, as for Bearer. A sign-in
 * remembered from before the user's tokens were revoked (a password change revokes them too) is not
 * used: the password is tried again, as a client holding it would (no "sign in again" to a caller
 * who just did).
 */
async function verifyBasic(encoded: string, req: Request): Promise<Caller> {
  const { email, password } = parseBasicCredentials(encoded);
  const cacheKey = createHmac("sha256", credentialKey).update(`${email}\u0000${password}`).digest("base64");
  let verified = credentialCache.get(cacheKey);
  if (verified && verified.authTime < ((await userStatus(verified.uid))?.validAfterSeconds ?? 0)) {
    credentialCache.delete(cacheKey);
    verified = undefined;
  }
  if (!verified) {
    const counters = await refuseIfLimited(email, clientAddress(req, trustedProxyHops(params.trustedProxyHops.value())));
    let idToken: string;
    try {
      idToken = await signInWithPassword(email, password);
    } catch (error) {
      if (error instanceof WrongCredentials) await recordFailure(counters);
      throw error;
    }
    verified = await verifyToken(idToken);
    credentialCache.set(cacheKey, verified); // only on a fresh check: a hit must not extend the time
  }
  await checkUserStatus(verified);
  return { uid: verified.uid, scheme: "basic", email: verified.email };
}

// --- The middleware ---------------------------------------------------------------------------

/** Reads the Authorization header (SPEC.md section 5) and puts the caller in `res.locals.caller`. */
export const authenticate: RequestHandler = async (req, res, next) => {
  const header = req.headers.authorization;
  if (!header) throw unauthorized("Authentication required: send Authorization: Bearer <ID token> or Basic <base64(email:password)>.");
  const match = /^(\S+) +(\S+)$/.exec(header.trim());
  if (!match) throw unauthorized("The Authorization header must be 'Bearer <ID token>' or 'Basic <base64(email:password)>'.");
  const [, scheme, credentials] = match;
  switch (scheme.toLowerCase()) {
    case "bearer":
      res.locals.caller = await verifyBearer(credentials);
      break;
    case "basic":
      res.locals.caller = await verifyBasic(credentials, req);
      break;
    default:
      throw unauthorized(`Unsupported authorization scheme; use Bearer or Basic.`);
  }
  next();
};
