#!/usr/bin/env bash
# make sdk-check: the five common generators take the document `corridor openapi` prints and
# their output compiles: oapi-codegen with its default configuration (types and client, pruning
# on), ogen, openapi-typescript, @hey-api/openapi-ts and openapi-typescript-codegen. Versions are
# pinned here and in package.json (package-lock.json); everything is written under sdk/check/out.
set -euo pipefail
GO=${GO:-go}
OAPI_CODEGEN_VERSION=${OAPI_CODEGEN_VERSION:?set by the Makefile}
OGEN_VERSION=${OGEN_VERSION:?set by the Makefile}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="$here/out"
rm -rf "$out" && mkdir -p "$out/oapi" "$out/ogen" "$out/ts"
doc="$out/openapi.json"
(cd "$root" && $GO run ./cmd/corridor openapi > "$doc")

echo "== oapi-codegen $OAPI_CODEGEN_VERSION (default configuration: types, client)"
printf 'module sdkcheck/oapi\n\ngo 1.26.0\n' > "$out/oapi/go.mod"
$GO run "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@$OAPI_CODEGEN_VERSION" -generate types,client -package api -o "$out/oapi/api.gen.go" "$doc"
(cd "$out/oapi" && $GO mod tidy && $GO build ./...)

echo "== ogen $OGEN_VERSION (default configuration: no ogen.yml)"
printf 'module sdkcheck/ogen\n\ngo 1.26.0\n' > "$out/ogen/go.mod"
(cd "$out/ogen" && $GO run "github.com/ogen-go/ogen/cmd/ogen@$OGEN_VERSION" --target api --package api --clean "$doc" 2>&1 | grep -v '	INFO	'; test "${PIPESTATUS[0]}" = 0)
test -f "$out/ogen/api/oas_client_gen.go"
(cd "$out/ogen" && $GO mod tidy && $GO build ./...)

cd "$here"
npm ci --no-audit --no-fund
echo "== openapi-typescript"
npx openapi-typescript "$doc" --output "$out/ts/openapi-typescript/schema.d.ts"
echo "== @hey-api/openapi-ts"
npx @hey-api/openapi-ts -i "$doc" -o "$out/ts/hey-api"
echo "== openapi-typescript-codegen"
npx openapi-typescript-codegen --input "$doc" --output "$out/ts/openapi-typescript-codegen" --client fetch
echo "== tsc --strict over the three TypeScript outputs"
npx tsc -p tsconfig.json
echo "sdk-check: all five generators compile the document"
