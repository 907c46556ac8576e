package typescript

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core/webhook"
)

// sdkDir is the TypeScript SDK, from this package's directory.
const sdkDir = "../../sdk/typescript"

// partnerProgram uses the package the way its README does: createClient with a key, a typed
// call, and a field read through the generated types. It fails to compile when the package ships
// no declarations, or when the response's shape is not typed.
const partnerProgram = `import { createClient, verifyWebhook, type Schema } from "@corridor/sdk";

declare const process: { env: Record<string, string | undefined>; exit(code: number): never };

const client = createClient({ baseUrl: process.env.CORRIDOR_URL!, apiKey: process.env.CORRIDOR_API_KEY });
const { data, error, response } = await client.GET("/v1/api-keys", {});
if (error || !data) {
  console.log("error", response.status, JSON.stringify(error));
  process.exit(1);
}
const keys: Schema<"ApiKey">[] = data.apiKeys;
const first: string = keys[0].pubId;
console.log("keys", data.total, first, keys[0].status);

// A delivery signed by the service's signer: verified with the right secret (among two, as
// during a rotation), refused with a wrong one, and refused an hour later as a replay.
const body = process.env.WEBHOOK_BODY!, header = process.env.WEBHOOK_HEADER!, secret = process.env.WEBHOOK_SECRET!;
const ok = await verifyWebhook(body, header, ["whsec_old", secret]);
const wrong = await verifyWebhook(new TextEncoder().encode(body), header, "whsec_wrong");
const late = await verifyWebhook(body, header, secret, { nowMs: Date.now() + 3_600_000 });
console.log("webhook", ok, wrong, late);

// As the README passes it: Node's req.headers["corridor-signature"], typed string | string[] |
// undefined (IncomingHttpHeaders), compiles and verifies, a repeated header's list included.
const nodeHeaders: Record<string, string | string[] | undefined> = { "corridor-signature": header, "x-repeated": [header] };
const fromNode = await verifyWebhook(body, nodeHeaders["corridor-signature"], secret);
const repeated = await verifyWebhook(body, nodeHeaders["x-repeated"], secret);
const absent = await verifyWebhook(body, nodeHeaders["x-absent"], secret);
console.log("node headers", fromNode, repeated, absent);
`

// TestTypeScriptSDK_PackedInstallsAndCalls: npm pack builds the JavaScript and declarations
// into a tarball; a scratch project installs it, compiles a typed program with strict
// TypeScript and runs it on Node against the service.
func TestTypeScriptSDK_PackedInstallsAndCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("npm installs packages; not in -short")
	}
	for _, tool := range []string{"npm", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	sdk, err := filepath.Abs(sdkDir)
	if err != nil {
		t.Fatal(err)
	}
	run(t, sdk, "npm", "ci", "--no-audit", "--no-fund")
	packDir := t.TempDir()
	tarball := strings.TrimSpace(lastLine(run(t, sdk, "npm", "pack", "--pack-destination", packDir)))
	project := t.TempDir()
	var pkg struct {
		DevDependencies map[string]string `json:"devDependencies"`
	}
	raw, err := os.ReadFile(filepath.Join(sdk, "package.json"))
	if err != nil || json.Unmarshal(raw, &pkg) != nil {
		t.Fatalf("sdk/typescript/package.json: %v", err)
	}
	write(t, filepath.Join(project, "package.json"), `{"name":"partner","private":true,"type":"module"}`)
	write(t, filepath.Join(project, "tsconfig.json"), `{"compilerOptions":{"target":"ES2022","module":"NodeNext","moduleResolution":"NodeNext","strict":true,"lib":["ES2022","DOM"],"outDir":"out"},"files":["main.ts"]}`)
	write(t, filepath.Join(project, "main.ts"), partnerProgram)
	run(t, project, "npm", "install", "--no-audit", "--no-fund", filepath.Join(packDir, tarball), "typescript@"+pkg.DevDependencies["typescript"])
	run(t, project, "npx", "tsc", "-p", ".")

	tenant := env().NewTenant(t)
	cmd := exec.Command("node", filepath.Join("out", "main.js"))
	cmd.Dir = project
	body := `{"id":"evt_1","type":"agent.suspended","data":{"note":"é"}}`
	cmd.Env = append(os.Environ(), "CORRIDOR_URL="+env().BaseURL, "CORRIDOR_API_KEY="+tenant.RootKey,
		"WEBHOOK_BODY="+body, "WEBHOOK_SECRET=whsec_partner", "WEBHOOK_HEADER="+webhook.Sign("whsec_partner", time.Now(), []byte(body)))
	out, err := cmd.CombinedOutput()
	if err != nil || !regexp.MustCompile(`keys 1 \S+ ACTIVE`).Match(out) || !strings.Contains(string(out), "webhook null signature timestamp") ||
		!strings.Contains(string(out), "node headers null null signature") {
		t.Fatalf("the partner program: %v\n%s", err, out)
	}
}

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
