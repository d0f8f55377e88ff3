import { createHmac, randomBytes } from 'node:crypto';

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * `v1,<base64 HMAC-SHA256 of "<timestamp>.<body>">`, one per secret, space-separated (DESIGN.md). The
 * HMAC key is the secret exactly as answered (the whole `whsec_…` string, UTF-8), as the specification
 * words it ("HMAC-SHA256 with the endpoint secret"): nothing to decode on the receiver's side.
 */
export function signatureHeader(secrets: string[], timestamp: number, body: string): string {
  return secrets.map((secret) => `v1,${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('base64')}`).join(' ');
}
