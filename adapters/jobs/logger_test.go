package jobs

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestRiverLogger_KeepsWarningsDropsRoutineInfo(t *testing.T) {
	var buf bytes.Buffer
	log := riverLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
	log.Info("producer: Producer job counts")
	log.With("queue", "default").Warn("job stuck")
	log.Error("job failed")
	out := buf.String()
	if strings.Contains(out, "Producer job counts") || !strings.Contains(out, "job stuck") || !strings.Contains(out, "queue=default") || !strings.Contains(out, "job failed") {
		t.Fatalf("log:\n%s", out)
	}

	buf.Reset()
	debug := riverLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	debug.Info("producer: Producer job counts")
	if !strings.Contains(buf.String(), "Producer job counts") {
		t.Fatalf("at Debug River's Info records pass: %q", buf.String())
	}
}
