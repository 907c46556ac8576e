// The Corridor client for TypeScript: openapi-fetch typed by the generated schema (schema.d.ts,
// from ../openapi.json by `make sdk`; never edited by hand).
import createFetchClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type { components, paths, webhooks } from "./schema.js";
export {
  verifyWebhook,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TOLERANCE_SECONDS,
  type VerifyWebhookOptions,
  type WebhookRefusal,
} from "./webhooks.js";

/** A named schema of the API, e.g. Schema<"Wallet">. */
export type Schema<Name extends keyof components["schemas"]> = components["schemas"][Name];

/** Options of a client: the service's base URL and one credential. */
export interface ClientOptions {
  baseUrl: string;
  /** A csk_test_… or csk_live_… key, sent as X-Service-Api-Key. */
  apiKey?: string;
  /** An identity-provider session token, sent as Authorization: Bearer. */
  sessionToken?: string;
  fetch?: typeof globalThis.fetch;
}

/** createClient returns a typed client: client.GET("/v1/wallets/{id}", {params: {path: {id}}}). */
export function createClient(options: ClientOptions) {
  const headers: Record<string, string> = {};
  if (options.apiKey) headers["X-Service-Api-Key"] = options.apiKey;
  if (options.sessionToken) headers["Authorization"] = `Bearer ${options.sessionToken}`;
  return createFetchClient<paths>({ baseUrl: options.baseUrl, headers, fetch: options.fetch });
}
