package postgres

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/uptrace/bun"
)

// citusTable is what Citus's catalog says about one table.
type citusTable struct {
	Method     string `bun:"partmethod"`
	Model      string `bun:"repmodel"`
	Colocation int64  `bun:"colocationid"`
	Column     string `bun:"dist_column"`
}

// placement names what the catalog entry is, in the plan's words.
func (t citusTable) placement() Placement {
	switch {
	case t.Method == "h":
		return Distributed
	case t.Method == "n" && t.Model == "t":
		return Reference
	default:
		return CitusLocal
	}
}

// checkCitusDistribution is `corridor check`'s citus-distribution line: on Citus, every table
// of the schema is placed as CitusPlan says (distributed ones by their tenant column and all in
// one co-location group, reference ones replicated, the rest plain tables on the coordinator),
// no table is missing from the plan, and every worker holds shards. Skipped on PostgreSQL.
func checkCitusDistribution(ctx context.Context, db *bun.DB) (InvariantCheck, error) {
	c := InvariantCheck{Name: "citus-distribution"}
	if ok, err := IsCitus(ctx, db.DB); err != nil || !ok {
		c.Skipped = "plain PostgreSQL: nothing to distribute"
		return c, err
	}
	catalog, err := citusCatalog(ctx, db)
	if err != nil {
		return c, err
	}
	tables, err := publicTables(ctx, db)
	if err != nil {
		return c, err
	}
	plan := make(map[string]TablePlacement, len(CitusPlan))
	for _, p := range CitusPlan {
		plan[p.Table] = p
	}
	for _, t := range tables {
		p, ok := plan[t]
		if !ok {
			c.add(fmt.Sprintf("table %s has no placement in the distribution plan", t))
			continue
		}
		if problem := placementProblem(p, catalog, catalog[tenantColocation].Colocation); problem != "" {
			c.add(problem)
		}
	}
	note, err := placementsPerWorker(ctx, db, &c)
	c.Note = note
	return c, err
}

// placementProblem compares one table's catalog entry with its plan; "" when they agree.
func placementProblem(p TablePlacement, catalog map[string]citusTable, colocation int64) string {
	got, known := catalog[p.Table]
	switch {
	case p.Placement == Local && known:
		return fmt.Sprintf("table %s should be local to the coordinator but is %s", p.Table, got.placement())
	case p.Placement == Local:
		return ""
	case !known:
		return fmt.Sprintf("table %s should be %s but is local to the coordinator", p.Table, p.Placement)
	case got.placement() != p.Placement:
		return fmt.Sprintf("table %s should be %s but is %s", p.Table, p.Placement, got.placement())
	case p.Placement == Distributed && got.Column != p.Column:
		return fmt.Sprintf("table %s is distributed by %s, not %s", p.Table, got.Column, p.Column)
	case p.Placement == Distributed && p.Lookup && got.Colocation == colocation:
		return fmt.Sprintf("table %s is a lookup by %s but co-located with %s", p.Table, p.Column, tenantColocation)
	case p.Placement == Distributed && !p.Lookup && got.Colocation != colocation:
		return fmt.Sprintf("table %s is not co-located with %s", p.Table, tenantColocation)
	}
	return ""
}

func citusCatalog(ctx context.Context, db *bun.DB) (map[string]citusTable, error) {
	var rows []struct {
		Table string `bun:"tbl"`
		citusTable
	}
	err := db.NewRaw(`SELECT logicalrelid::regclass::text AS tbl, partmethod, repmodel, colocationid,
		coalesce(column_to_column_name(logicalrelid, partkey), '') AS dist_column FROM pg_dist_partition`).Scan(ctx, &rows)
	out := make(map[string]citusTable, len(rows))
	for _, r := range rows {
		out[r.Table] = r.citusTable
	}
	return out, err
}

// publicTables lists the schema's tables, leaving out the shard copies Citus keeps on the
// coordinator (a reference table's placement there is named table_<shard id>).
func publicTables(ctx context.Context, db *bun.DB) ([]string, error) {
	var names []string
	err := db.NewRaw(`SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
		AND NOT EXISTS (SELECT 1 FROM pg_dist_shard s WHERE c.relname = s.logicalrelid::regclass::text || '_' || s.shardid)
		ORDER BY 1`).Scan(ctx, &names)
	return names, err
}

// placementsPerWorker counts the distributed tables' shard placements on each worker that may
// hold shards, as the check's note; a worker holding none is a problem (nothing spreads).
func placementsPerWorker(ctx context.Context, db *bun.DB, c *InvariantCheck) (string, error) {
	var rows []struct {
		Node   string `bun:"node"`
		Shards int    `bun:"shards"`
	}
	err := db.NewRaw(`SELECT n.nodename || ':' || n.nodeport AS node,
		count(pl.placementid) FILTER (WHERE p.partmethod = 'h') AS shards
		FROM pg_dist_node n
		LEFT JOIN pg_dist_placement pl ON pl.groupid = n.groupid
		LEFT JOIN pg_dist_shard s ON s.shardid = pl.shardid
		LEFT JOIN pg_dist_partition p ON p.logicalrelid = s.logicalrelid
		WHERE n.shouldhaveshards AND n.isactive AND n.noderole = 'primary'
		GROUP BY 1 ORDER BY 1`).Scan(ctx, &rows)
	if err != nil {
		return "", err
	}
	parts := make([]string, 0, len(rows))
	for _, r := range rows {
		parts = append(parts, fmt.Sprintf("%s %d", r.Node, r.Shards))
		if r.Shards == 0 {
			c.add(fmt.Sprintf("worker %s holds no shard of a distributed table", r.Node))
		}
	}
	if len(rows) == 0 {
		c.add("no active worker may hold shards")
	}
	sort.Strings(parts)
	return "shard placements per worker: " + strings.Join(parts, ", "), nil
}
