package main

import "testing"

// TestMetricsAddr: METRICS_ADDR is off or host:port, and never the API's own port.
func TestMetricsAddr(t *testing.T) {
	for _, tc := range []struct {
		addr, api string
		ok        bool
	}{
		{"127.0.0.1:9464", ":8080", true},
		{":9464", ":8080", true},
		{"off", ":8080", true},
		{"127.0.0.1:8080", ":8080", false},
		{":8080", "127.0.0.1:8080", false},
		{"9464", ":8080", false},
		{"127.0.0.1:", ":8080", false},
	} {
		if err := checkMetricsAddr(tc.addr, tc.api); (err == nil) != tc.ok {
			t.Errorf("checkMetricsAddr(%q, %q) = %v, want ok=%v", tc.addr, tc.api, err, tc.ok)
		}
	}
}
