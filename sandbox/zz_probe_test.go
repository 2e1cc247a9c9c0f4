package sandbox

import (
	"os"
	"runtime/debug"
	"testing"
)

func BenchmarkProbeGuardParts(b *testing.B) {
	b.Run("currentGoMemory", func(b *testing.B) {
		for b.Loop() {
			currentGoMemory()
		}
	})
	b.Run("statm", func(b *testing.B) {
		for b.Loop() {
			f, _ := os.Open("/proc/self/statm")
			dataBytes(f)
			f.Close()
		}
	})
	b.Run("SetMemoryLimit", func(b *testing.B) {
		for b.Loop() {
			debug.SetMemoryLimit(1 << 40)
		}
	})
}
