// Verifying a webhook delivery's Corridor-Signature, with the Web Crypto API (Node.js 18+,
// Deno, Bun, workers), so a receiver needs nothing beyond this package.

/** The header a webhook delivery carries its signature in. */
export const WEBHOOK_SIGNATURE_HEADER = "Corridor-Signature";

/** How far a delivery's signed time may be from the receiver's clock, in seconds. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** Why verifyWebhook refused a delivery. */
export type WebhookRefusal = "signature" | "timestamp";

export interface VerifyWebhookOptions {
  /** The receiver's clock in milliseconds (default Date.now()). */
  nowMs?: number;
  /** The tolerance in seconds (default WEBHOOK_TOLERANCE_SECONDS). */
  toleranceSeconds?: number;
}

const encoder = new TextEncoder();

function hexBytes(hex: string): Uint8Array<ArrayBuffer> | null {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return null;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/**
 * verifyWebhook checks a webhook delivery: rawBody is the request body exactly as received
 * (a string or the bytes, before any JSON parsing), header its Corridor-Signature
 * ("t=<unix seconds>,v1=<hex HMAC-SHA256>"; Node's req.headers["corridor-signature"] as it is,
 * a repeated header's list read as its values joined by commas), and secrets the endpoint's signing secrets (the
 * whole whsec_… string; give the old and the new one while a rotation settles). It resolves to
 * null when one secret signed "<t>.<body>" and t is within the tolerance of now, else to why
 * not. Parse the body only after it, and deduplicate on the event's id: a delivery may come
 * more than once.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  header: string | readonly string[] | null | undefined,
  secrets: string | string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookRefusal | null> {
  let t = "";
  const signatures: Uint8Array<ArrayBuffer>[] = [];
  const joined = typeof header === "string" ? header : (header ?? []).join(",");
  for (const part of joined.split(",")) {
    const at = part.indexOf("=");
    if (at < 0) continue;
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === "t") t = value;
    if (key === "v1") {
      const sig = hexBytes(value);
      if (sig) signatures.push(sig);
    }
  }
  if (!/^[0-9]+$/.test(t) || signatures.length === 0) return "signature";
  const body = typeof rawBody === "string" ? encoder.encode(rawBody) : rawBody;
  const prefix = encoder.encode(t + ".");
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  for (const secret of Array.isArray(secrets) ? secrets : [secrets]) {
    const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
    for (const sig of signatures) {
      // subtle.verify compares in constant time.
      if (await crypto.subtle.verify("HMAC", key, sig, signed)) {
        const nowSeconds = (options.nowMs ?? Date.now()) / 1000;
        const tolerance = options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
        return Math.abs(nowSeconds - Number(t)) > tolerance ? "timestamp" : null;
      }
    }
  }
  return "signature";
}
