#!/usr/bin/env node
// Builds the contract artifacts the Go chain adapter loads at run time:
//   - compiles our own sources (src/TestUSDC.sol, src/ClaimEscrow.sol) with the pinned solc npm
//     package (no native solc, no download);
//   - extracts the Safe v1.4.1 artifacts from the pinned @safe-global/safe-contracts package.
// Each contract gets build/<Name>.json ({contractName, source, abi, bytecode, ...}) for the
// adapter and build/<Name>.abi.json (the bare ABI) for abigen. Nothing here is committed.
//
// The build is skipped when build/manifest.json records the same input hash, so `make contracts`
// is cheap when nothing changed. `node build.js --force` rebuilds regardless.
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const ROOT = __dirname;
const BUILD = path.join(ROOT, 'build');
const SRC = path.join(ROOT, 'src');

const PINS = { solc: '0.8.26', safe: '1.4.1' };
const SAFE_PACKAGE = '@safe-global/safe-contracts';
// SafeL2 (not Safe) is the singleton: it emits SafeMultiSigTransaction with every execution's
// parameters, which is what Safe's own tooling deploys on L2s such as Base (8453, 84532).
const SAFE_ARTIFACTS = {
  SafeL2: 'SafeL2.sol/SafeL2.json',
  SafeProxyFactory: 'proxies/SafeProxyFactory.sol/SafeProxyFactory.json',
  CompatibilityFallbackHandler: 'handler/CompatibilityFallbackHandler.sol/CompatibilityFallbackHandler.json',
};
const OWN_SOURCES = {
  TestUSDC: 'TestUSDC.sol',
  ClaimEscrow: 'ClaimEscrow.sol',
  CardSpendModule: 'CardSpendModule.sol',
  CheckoutDepositFactory: 'CheckoutDepositFactory.sol',
};
const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
};

function fail(message) {
  console.error(`contracts: ${message}`);
  process.exit(1);
}

function sha256(...parts) {
  const h = crypto.createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
}

function installedVersion(pkg) {
  try {
    return require(path.join(ROOT, 'node_modules', pkg, 'package.json')).version;
  } catch (err) {
    fail(`${pkg} is not installed; run \`make contracts\` (it runs npm ci in contracts/)`);
  }
}

function checkPins() {
  const solcVersion = installedVersion('solc');
  const safeVersion = installedVersion(SAFE_PACKAGE);
  if (solcVersion !== PINS.solc) fail(`solc ${solcVersion} installed, ${PINS.solc} pinned; run npm ci`);
  if (safeVersion !== PINS.safe) fail(`${SAFE_PACKAGE} ${safeVersion} installed, ${PINS.safe} pinned; run npm ci`);
}

function safeArtifactPath(relative) {
  return path.join(ROOT, 'node_modules', SAFE_PACKAGE, 'build', 'artifacts', 'contracts', relative);
}

function inputHash() {
  const parts = [fs.readFileSync(__filename), fs.readFileSync(path.join(ROOT, 'package-lock.json'))];
  for (const file of Object.values(OWN_SOURCES)) parts.push(fs.readFileSync(path.join(SRC, file)));
  for (const rel of Object.values(SAFE_ARTIFACTS)) parts.push(fs.readFileSync(safeArtifactPath(rel)));
  return sha256(...parts);
}

function outputsFor(name) {
  return [path.join(BUILD, `${name}.json`), path.join(BUILD, `${name}.abi.json`)];
}

function upToDate(hash) {
  const manifestPath = path.join(BUILD, 'manifest.json');
  if (!fs.existsSync(manifestPath)) return false;
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  const names = [...Object.keys(OWN_SOURCES), ...Object.keys(SAFE_ARTIFACTS)];
  return manifest.inputHash === hash && names.every((n) => outputsFor(n).every((f) => fs.existsSync(f)));
}

// writeIfChanged keeps a file's modification time when its content is the same, so tools that
// look at times (make, abigen's wrapper) see nothing new.
function writeIfChanged(file, content) {
  if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === content) return;
  fs.writeFileSync(file, content);
}

function writeArtifact(artifact) {
  const [full, abiOnly] = outputsFor(artifact.contractName);
  writeIfChanged(full, JSON.stringify(artifact, null, 2) + '\n');
  writeIfChanged(abiOnly, JSON.stringify(artifact.abi, null, 2) + '\n');
}

function compileOwn() {
  const solc = require('solc');
  const sources = {};
  for (const file of Object.values(OWN_SOURCES)) {
    sources[file] = { content: fs.readFileSync(path.join(SRC, file), 'utf8') };
  }
  const input = { language: 'Solidity', sources, settings: SOLC_SETTINGS };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const problems = output.errors || [];
  for (const p of problems) console.error(p.formattedMessage || p.message);
  if (problems.some((p) => p.severity === 'error')) fail('solc reported errors');

  for (const [name, file] of Object.entries(OWN_SOURCES)) {
    const contract = output.contracts[file] && output.contracts[file][name];
    if (!contract || !contract.evm.bytecode.object) fail(`solc produced no bytecode for ${name}`);
    writeArtifact({
      contractName: name,
      source: `contracts/src/${file}`,
      compiler: { solc: solc.version(), settings: { optimizer: SOLC_SETTINGS.optimizer, evmVersion: SOLC_SETTINGS.evmVersion } },
      abi: contract.abi,
      bytecode: '0x' + contract.evm.bytecode.object,
    });
  }
}

function extractSafe() {
  for (const [name, rel] of Object.entries(SAFE_ARTIFACTS)) {
    const file = safeArtifactPath(rel);
    if (!fs.existsSync(file)) fail(`missing ${file}; is ${SAFE_PACKAGE}@${PINS.safe} installed?`);
    const artifact = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (artifact.contractName !== name) fail(`${rel} holds ${artifact.contractName}, expected ${name}`);
    if (Object.keys(artifact.linkReferences || {}).length > 0) fail(`${name} needs linking, which is not supported`);
    writeArtifact({
      contractName: name,
      source: `${SAFE_PACKAGE}@${PINS.safe}/build/artifacts/contracts/${rel}`,
      abi: artifact.abi,
      bytecode: artifact.bytecode,
    });
  }
}

function main() {
  const force = process.argv.includes('--force');
  checkPins();
  const hash = inputHash();
  if (!force && upToDate(hash)) {
    console.log('contracts: build/ is up to date');
    return;
  }
  fs.mkdirSync(BUILD, { recursive: true });
  const started = Date.now();
  compileOwn();
  extractSafe();
  const manifest = {
    inputHash: hash,
    pins: PINS,
    contracts: [...Object.keys(OWN_SOURCES), ...Object.keys(SAFE_ARTIFACTS)],
  };
  writeIfChanged(path.join(BUILD, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  console.log(`contracts: built ${manifest.contracts.join(', ')} in ${Date.now() - started} ms`);
}

main();
