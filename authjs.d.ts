// Types of the `kdfpool/authjs` entry (lib/frameworks/authjs.js). Auth.js
// is an optional peer dependency: these types name nothing of it.

/**
 * Wraps a Credentials provider's authorize(): a kdfpool refusal is thrown
 * as Auth.js's CredentialsSignin with code 'rate_limited' (a closed pool:
 * 'unavailable'), its cause the refusal, and recorded for tooManyRequests().
 */
export function authorize<A extends unknown[], R>(fn: (...args: A) => R | Promise<R>): (...args: A) => Promise<R>;

/**
 * Wraps an Express handler such as ExpressAuth(config): when authorize()
 * was refused during the request, Auth.js's response goes out with the
 * refusal's status (503, or 429 for a client over its share) and headers
 * (Retry-After).
 */
export function tooManyRequests<Req, Res, Next, R>(
  handler: (req: Req, res: Res, next: Next) => R,
): (req: Req, res: Res, next: Next) => R;
