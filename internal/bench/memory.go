package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// MemoryRow is the toolfold process's memory with n upstreams, after
// connecting them, a search and a run_script.
type MemoryRow struct {
	Upstreams int
	Tools     int
	RSS       int64 // VmRSS, bytes
	HWM       int64 // VmHWM (peak RSS), bytes
}

var toolCountRE = regexp.MustCompile(`(\d+) tools\)`)

// memory runs the toolfold binary (stdio) with 1, 10 and 20 replay
// upstreams, each serving an equal slice of the corpus, and reads its
// /proc/<pid>/status.
func (e *env) memory(ctx context.Context, rep *Report) error {
	counts := []int{1, 10, 20}
	if e.opts.Quick {
		counts = []int{1, 2}
	}
	for _, n := range counts {
		slices := n
		if e.opts.Quick {
			slices = 12 // a twelfth of the corpus per upstream
		}
		var ups []upstream
		env := make(map[string]string)
		for _, kv := range e.opts.LabEnv {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		for k := range n {
			ups = append(ups, upstream{Name: fmt.Sprintf("replay%02d", k), Command: e.opts.Lab, Env: env,
				Args: []string{"replay-server", "--corpus", e.opts.Corpus, "--slice", fmt.Sprintf("%d/%d", k, slices)}})
		}
		cfg := filepath.Join(e.work, fmt.Sprintf("rss-%d.yaml", n))
		if err := writeConfig(cfg, ups); err != nil {
			return err
		}
		row, err := e.measureRSS(ctx, cfg, n)
		if err != nil {
			return fmt.Errorf("%d upstreams: %w", n, err)
		}
		rep.Memory = append(rep.Memory, row)
	}
	return nil
}

func (e *env) measureRSS(ctx context.Context, cfg string, n int) (MemoryRow, error) {
	bin, err := e.serveBinary(ctx, cfg)
	if err != nil {
		return MemoryRow{}, err
	}
	defer bin.Close()
	ts, err := bin.listTools(ctx)
	if err != nil {
		return MemoryRow{}, err
	}
	row := MemoryRow{Upstreams: n}
	for _, t := range ts {
		if t.Name != "search_tools" {
			continue
		}
		for _, m := range toolCountRE.FindAllStringSubmatch(t.Description, -1) {
			k, _ := strconv.Atoi(m[1])
			row.Tools += k
		}
		if got := strings.Count(t.Description, " tools)"); got != n {
			return row, fmt.Errorf("toolfold lists %d ready upstreams, want %d: %s", got, n, t.Description)
		}
	}
	if _, err := bin.call(ctx, "search_tools", map[string]any{"query": "create a github issue"}); err != nil {
		return row, err
	}
	if _, err := bin.call(ctx, "run_script", map[string]any{"code": "return 1"}); err != nil {
		return row, err
	}
	row.RSS, row.HWM, err = procMemory(bin.cmd.Process.Pid)
	return row, err
}

// procMemory reads VmRSS and VmHWM of pid (Linux).
func procMemory(pid int) (rss, hwm int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("read the proxy's memory: %w (Linux /proc is needed)", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) != 2 || f[1] != "kB" {
			continue
		}
		kb, _ := strconv.ParseInt(f[0], 10, 64)
		switch k {
		case "VmRSS":
			rss = kb << 10
		case "VmHWM":
			hwm = kb << 10
		}
	}
	if rss == 0 {
		return 0, 0, fmt.Errorf("/proc/%d/status has no VmRSS", pid)
	}
	return rss, hwm, sc.Err()
}
