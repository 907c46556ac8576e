// Create a hosted checkout and read it back with the typed client. Run with a TEST key:
//   CORRIDOR_URL=http://localhost:8080 CORRIDOR_API_KEY=csk_test_… npx tsx examples/checkout.ts
import { createClient, type Schema } from "../src/index";

// The example runs on Node; its one global is declared here rather than pulling in @types/node.
declare const process: { env: Record<string, string | undefined> };

const client = createClient({
  baseUrl: process.env.CORRIDOR_URL ?? "http://localhost:8080",
  apiKey: process.env.CORRIDOR_API_KEY,
});

const order: Schema<"CreatePaymentBody"> = {
  amount: 131072.01,
  currency: "USD",
  cryptocurrency: "USDC",
  description: "Order 42",
};

const created = await client.POST("/v1/payments", { body: order });
if (created.error) throw new Error(`create: ${JSON.stringify(created.error)}`);
const checkout = created.data as Schema<"CheckoutCreate">;
console.log(`pay ${checkout.amount} USD at ${checkout.payment_url}`);

const read = await client.GET("/v1/payments/{id}", { params: { path: { id: checkout.id } } });
if (read.error) throw new Error(`read: ${JSON.stringify(read.error)}`);
console.log("status", (read.data as Schema<"Checkout">).status);
