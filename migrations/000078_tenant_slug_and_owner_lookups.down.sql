DELETE FROM tenant_lookups WHERE kind IN ('tenant_slug', 'tenant_owner');
