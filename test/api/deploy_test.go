package api

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// metricName finds the metric names a PromQL expression reads.
var metricName = regexp.MustCompile(`\b(corridor_[a-z0-9_]+|go_[a-z0-9_]+|process_[a-z0-9_]+)\b`)

// served reports whether name is a metric the service describes, or a series of one of its
// histograms.
func served(names map[string]bool, name string) bool {
	if names[name] {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok && names[base] {
			return true
		}
	}
	return false
}

func servedNames(t *testing.T) map[string]bool {
	names := map[string]bool{}
	for _, n := range env().Service.MetricNames() {
		names[n] = true
	}
	if !names["corridor_jobs"] || !names["corridor_http_requests_total"] || !names["go_sql_in_use_connections"] {
		t.Fatalf("the registry describes too little: %v", names)
	}
	return names
}

// checkExpression fails the test for every metric expr reads that the service does not serve.
func checkExpression(t *testing.T, where, expr string, names map[string]bool) {
	t.Helper()
	found := metricName.FindAllString(expr, -1)
	if len(found) == 0 && !strings.Contains(expr, "up{") {
		t.Errorf("%s: no metric in %q", where, expr)
	}
	for _, name := range found {
		if !served(names, name) {
			t.Errorf("%s reads %s, which the service does not serve", where, name)
		}
	}
}

// TestDeploy_DashboardReadsServedMetrics: deploy/grafana/corridor.json parses and every panel
// queries only metrics the service serves.
func TestDeploy_DashboardReadsServedMetrics(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../deploy/grafana/corridor.json")
	if err != nil {
		t.Fatal(err)
	}
	var dashboard struct {
		Title  string `json:"title"`
		Panels []struct {
			Type    string `json:"type"`
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dashboard); err != nil {
		t.Fatalf("the dashboard does not parse: %v", err)
	}
	names := servedNames(t)
	graphs := 0
	for _, p := range dashboard.Panels {
		if p.Type == "row" {
			continue
		}
		graphs++
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, target := range p.Targets {
			checkExpression(t, "panel "+p.Title, target.Expr, names)
		}
	}
	if dashboard.Title == "" || graphs < 15 {
		t.Fatalf("dashboard %q has %d graphs", dashboard.Title, graphs)
	}
}

// TestDeploy_AlertsReadServedMetricsAndLinkRunbooks: every rule of deploy/prometheus/alerts.yml
// reads only served metrics, links a section of docs/runbooks.md that exists, and has its row,
// with its severity, in docs/operations.md's table of first moves.
// runbookBase is how every runbook_url starts: the absolute address of docs/runbooks.md, from
// Prometheus's external label runbooks_url (docs/operations.md).
const runbookBase = "{{ $externalLabels.runbooks_url }}"

func TestDeploy_AlertsReadServedMetricsAndLinkRunbooks(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../deploy/prometheus/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	var rules struct {
		Groups []struct {
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(raw, &rules); err != nil {
		t.Fatalf("alerts.yml does not parse: %v", err)
	}
	runbooks, err := os.ReadFile("../../docs/runbooks.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]bool{}
	for _, line := range strings.Split(string(runbooks), "\n") {
		if heading, ok := strings.CutPrefix(line, "## "); ok {
			sections[runbookBase+"#"+strings.ToLower(heading)] = true
		}
	}
	operations, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	names, alerts := servedNames(t), 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			alerts++
			checkExpression(t, "alert "+r.Alert, r.Expr, names)
			// docs/operations.md links docs/runbooks.md beside it.
			row := fmt.Sprintf("| [%s](%s#%s) | %s |", r.Alert, path.Base("docs/runbooks.md"), strings.ToLower(r.Alert), r.Labels["severity"])
			if !strings.Contains(string(operations), row) {
				t.Errorf("docs/operations.md has no row %q for alert %s", row, r.Alert)
			}
			if link := r.Annotations["runbook_url"]; !sections[link] {
				t.Errorf("alert %s links %q, which is not the configured runbooks base and a section of docs/runbooks.md", r.Alert, link)
			}
		}
	}
	if alerts < 10 {
		t.Fatalf("only %d alerts", alerts)
	}
}
