#!/usr/bin/env bash
# `make contracts`: everything the Go chain layer needs from Solidity, from a clean checkout.
#   1. npm ci (pinned solc and @safe-global/safe-contracts) when node_modules is missing or stale;
#   2. node build.js: compile TestUSDC, ClaimEscrow, CardSpendModule and CheckoutDepositFactory, extract the Safe artifacts into contracts/build/;
#   3. regenerate the committed ABI-only Go bindings in adapters/chain/bindings/ with abigen, but
#      only for a contract whose ABI changed (each binding records the sha256 of its ABI), so a
#      clean checkout needs neither abigen nor its download.
# Idempotent and cheap when nothing changed. FORCE_BINDINGS=1 regenerates the bindings anyway.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
GO="${GO:-go}"
cd "$here"

if [ ! -f node_modules/.package-lock.json ] ||
	[ package-lock.json -nt node_modules/.package-lock.json ] ||
	[ package.json -nt node_modules/.package-lock.json ]; then
	npm ci --no-audit --no-fund
fi

node build.js

bindings="$root/adapters/chain/bindings"
geth_version="$(cd "$root" && "$GO" list -m -f '{{.Version}}' github.com/ethereum/go-ethereum)"
mkdir -p "$bindings"
for contract in SafeL2 SafeProxyFactory TestUSDC ClaimEscrow CardSpendModule CheckoutDepositFactory; do
	abi="build/$contract.abi.json"
	out="$bindings/$(echo "$contract" | tr '[:upper:]' '[:lower:]').go"
	stamp="// abi-sha256: $(sha256sum "$abi" | cut -d' ' -f1) abigen: $geth_version"
	if [ -z "${FORCE_BINDINGS:-}" ] && [ -f "$out" ] && grep -qxF "$stamp" "$out"; then
		continue
	fi
	echo "contracts: abigen $geth_version → ${out#"$root"/}"
	tmp="$(mktemp)"
	(cd "$root" && "$GO" run "github.com/ethereum/go-ethereum/cmd/abigen@$geth_version" \
		--v2 --abi "contracts/$abi" --pkg bindings --type "$contract" --out "$tmp")
	{ cat "$tmp"; echo; echo "$stamp"; } >"$out"
	rm -f "$tmp"
	chmod 0644 "$out"
	gofmt -w "$out"
done
