package testlog

import (
	"testing"
	"time"
)

func TestBound(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want time.Duration
	}{
		{"", 10 * time.Second},
		{"banana", 10 * time.Second},
		{"0.5", 10 * time.Second},
		{"1", 10 * time.Second},
		{"2.5", 25 * time.Second},
	} {
		t.Setenv(SlowdownEnv, tc.env)
		if got := Bound(10 * time.Second); got != tc.want {
			t.Errorf("%s=%q: Bound(10s) = %v, want %v", SlowdownEnv, tc.env, got, tc.want)
		}
	}
}
