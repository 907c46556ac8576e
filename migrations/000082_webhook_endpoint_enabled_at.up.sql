-- enabled_at: when an endpoint was registered or last re-enabled. The fan-out pass delivers an
-- event to an endpoint only when the event was created at or after it, so an endpoint receives
-- the events created from its registration (or re-enabling) on, whatever the pass's lag: an
-- event recorded before a second endpoint was registered, and fanned out after, went to both.
-- Existing endpoints take their creation time. The default serves rows written without it.
ALTER TABLE webhook_endpoints ADD COLUMN enabled_at timestamptz;
UPDATE webhook_endpoints SET enabled_at = created_at;
ALTER TABLE webhook_endpoints ALTER COLUMN enabled_at SET DEFAULT now();
ALTER TABLE webhook_endpoints ALTER COLUMN enabled_at SET NOT NULL;
