/**
 * Compares a secret someone presented (a bearer token, a session token) with
 * the one we hold, in constant time. Both are hashed first so that neither the
 * contents nor the lengths leak through timing; used by every face that checks
 * a token (the MCP endpoint, the serve bridge).
 */
import { createHash, timingSafeEqual } from "node:crypto";

export function sameSecret(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}
