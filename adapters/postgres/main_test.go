package postgres_test

import (
	"testing"

	"github.com/corridorhq/corridor/test/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m, nil) }
