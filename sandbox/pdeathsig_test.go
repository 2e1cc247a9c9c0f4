package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolfold/toolfold/internal/testlog"
)

// parentModeEnv, set to a directory, makes the test binary a stand-in proxy
// that starts a spinning script there, prints the child's pid and waits to
// be killed.
const parentModeEnv = "TOOLFOLD_SANDBOX_TEST_PARENT"

func parentMode() {
	l := NewLua(&LuaOptions{Exe: testBinary()})
	l.proc.onStart = func(pid int) { fmt.Println(pid) }
	l.Run(context.Background(), Request{Code: "while true do end", Workdir: os.Getenv(parentModeEnv),
		Limits: Limits{Timeout: time.Minute}}, &fakeHost{})
	os.Exit(1) // not reached: the test kills this process first
}

// TestChildDiesWithParent kills a proxy (SIGKILL: no cleanup runs) in the
// middle of a run: the child must die with it.
func TestChildDiesWithParent(t *testing.T) {
	t.Parallel()
	parent := exec.Command(testBinary())
	parent.Env = append(os.Environ(), parentModeEnv+"="+t.TempDir()) // its workdir: a killed proxy cannot remove one
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		parent.Process.Kill()
		t.Fatalf("reading the child's pid: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(line))
	if !alive(pid) {
		t.Fatalf("child %d is not running", pid)
	}
	parent.Process.Kill()
	parent.Wait()
	deadline := time.Now().Add(testlog.Bound(time.Minute))
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("child %d still running %v after its parent was killed", pid, testlog.Bound(time.Minute))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid exists and is not a zombie (an orphaned child
// waits for init to reap it).
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}
