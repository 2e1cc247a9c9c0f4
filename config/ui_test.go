package config

import (
	"strings"
	"testing"
)

// TestUIKey: ui takes "off" or a loopback host:port; any other address is
// refused with a config error that says to bind loopback.
func TestUIKey(t *testing.T) {
	for _, tc := range []struct {
		val, want, err string
	}{
		{val: "127.0.0.1:8766", want: "127.0.0.1:8766"},
		{val: "localhost:0", want: "localhost:0"},
		{val: "'[::1]:8766'", want: "[::1]:8766"},
		{val: "off", want: "off"},
		{val: "0.0.0.0:8766", err: "p.yaml:2:5: ui: 0.0.0.0:8766 is not a loopback address"},
		{val: "192.168.1.4:80", err: "use 127.0.0.1:PORT"},
		{val: "8766", err: "write host:port"},
	} {
		cfg, err := Parse("p.yaml", []byte("upstreams: {a: {command: x}}\nui: "+tc.val+"\n"), nil)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ui: %s: error %v, want one containing %q", tc.val, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ui: %s: %v", tc.val, err)
			continue
		}
		if cfg.UI != tc.want {
			t.Errorf("ui: %s: UI = %q, want %q", tc.val, cfg.UI, tc.want)
		}
	}
}
