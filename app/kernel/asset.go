package kernel

import "corridor/ledger"

// ServiceAsset is the asset of every tenant's service balance (DESIGN.md D6). Finance reports
// it and off-ramp payments spend it, so both name it from here.
const ServiceAsset = ledger.AssetUSDC
