package testdb_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/test/testdb"
)

// packageURL is this package's database, made and set up by testdb.Main.
var packageURL string

func TestMain(m *testing.M) {
	testdb.Main(m, func(url string) error {
		packageURL = url
		return exec(context.Background(), url, "create table marker (v int); insert into marker values (42)")
	})
}

func exec(ctx context.Context, url, sql string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

func TestPackageDatabaseIsSetUp(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, packageURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var v int
	if err := conn.QueryRow(ctx, "select v from marker").Scan(&v); err != nil || v != 42 {
		t.Fatalf("marker = %d, %v", v, err)
	}
	var db string
	if err := conn.QueryRow(ctx, "select current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(db, "t_testdb_") {
		t.Fatalf("package database %q should be named after the package", db)
	}
}

// TestNewDatabaseIsFreshAndDropped checks isolation from the package
// database and that the database is gone after the subtest.
func TestNewDatabaseIsFreshAndDropped(t *testing.T) {
	ctx := context.Background()
	var name string
	t.Run("inner", func(t *testing.T) {
		url := testdb.NewDatabase(ctx, t)
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "select 1 from marker"); err == nil {
			t.Fatal("a new database must not see the package database's tables")
		}
		if err := conn.QueryRow(ctx, "select current_database()").Scan(&name); err != nil {
			t.Fatal(err)
		}
	})
	conn, err := pgx.Connect(ctx, packageURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "select exists(select 1 from pg_database where datname = $1)", name).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if name == "" || exists {
		t.Fatalf("database %q should have been dropped (exists=%v)", name, exists)
	}
}

func TestParallelDatabases(t *testing.T) {
	for i := 0; i < 4; i++ {
		t.Run("p", func(t *testing.T) {
			t.Parallel()
			if err := exec(context.Background(), testdb.NewDatabase(context.Background(), t), "create table t (id int)"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestRestart: the throwaway local cluster restarts and keeps its data; a server this process
// did not start (a container, TEST_DATABASE_URL's) is never restarted.
func TestRestart(t *testing.T) {
	ctx := context.Background()
	foreign := &testdb.Server{URL: "postgres://elsewhere/x", Source: "TEST_DATABASE_URL postgres://elsewhere/x"}
	if err := foreign.Restart(ctx); err == nil || !strings.Contains(err.Error(), "only the throwaway local cluster") {
		t.Fatalf("restarting a server this process did not start: %v", err)
	}
	srv, err := testdb.Shared(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(srv.Source, "throwaway local cluster") {
		t.Skipf("the server is %s: only the local cluster restarts", srv.Source)
	}
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, packageURL)
	if err != nil {
		t.Fatalf("after the restart: %v", err)
	}
	defer conn.Close(ctx)
	var v int
	if err := conn.QueryRow(ctx, "select v from marker").Scan(&v); err != nil || v != 42 {
		t.Fatalf("after the restart the marker is %d, %v", v, err)
	}
}
