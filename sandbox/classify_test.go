package sandbox

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestClassifyDisk: a script killed for a file over RLIMIT_FSIZE, or
// ending on a full disk, is told which limit and which key to raise.
func TestClassifyDisk(t *testing.T) {
	cmd := exec.Command("/bin/true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	lim := DefaultLimits
	xfsz := syscall.WaitStatus(syscall.SIGXFSZ) // killed by the signal
	for _, c := range []struct {
		status syscall.WaitStatus
		stderr string
		want   string
	}{
		{xfsz, "", "a file grew past the 64 MiB per-file limit; write less or raise sandbox.file_size"},
		{1 << 8, "OSError: [Errno 27] File too large", "per-file limit"},
		{1 << 8, "OSError: [Errno 28] No space left on device", "the sandbox's disk is full (/workspace holds 256 MiB, /tmp 64 MiB, 10000 files each)"},
	} {
		err := classifyExit(usageOf(cmd.ProcessState), c.status, c.stderr, lim)
		if err == nil || err.Kind != "limit" || !strings.Contains(err.Msg, c.want) {
			t.Errorf("status %v, stderr %q: %v, want %q", c.status, c.stderr, err, c.want)
		}
	}
}
