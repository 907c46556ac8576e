package postgres_test

import (
	"testing"

	"corridor/test/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m, nil) }
