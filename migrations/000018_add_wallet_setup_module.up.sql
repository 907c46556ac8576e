-- The Safe module a wallet's Safe enabled in its own setup (the card spend module on TEST wallets
-- created while the chain had one): part of the Safe's setup data, so of its CREATE2 address,
-- which must stay reproducible. NULL for wallets set up without a module, every wallet created
-- before this column included.
ALTER TABLE wallets
    ADD COLUMN setup_module text
        CHECK (setup_module ~ '^0x[0-9a-fA-F]{40}$');
