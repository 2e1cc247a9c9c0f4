package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// goSDK is the module whose conformance everything-server the tests run.
const goSDK = "github.com/modelcontextprotocol/go-sdk"

// setup holds what TestMain built and installed. Tests read it through the need*
// helpers, which skip or fail with the reason when a piece is missing.
var setup struct {
	dir string // temporary directory for this run's binaries

	toolfold    string // built toolfold binary
	toolfoldErr error

	goEverything    string // Go SDK conformance everything-server
	goEverythingErr error

	node     string            // absolute path of node
	npmMiss  string            // why node/npm are unusable, "" if present
	npmEntry map[string]string // short name (everything, filesystem, memory) -> entry .js
	npmErr   error
}

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	if testing.Short() {
		fmt.Fprintln(os.Stderr, "e2e: skipped in -short mode")
		return 0
	}
	if err := becomeSubreaper(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: cannot become a child subreaper, leak checks are weaker: %v\n", err)
	}
	dir, err := os.MkdirTemp("", "toolfold-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	setup.dir = dir
	if err := prepare(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	code := m.Run()
	if left := leftoverDescendants(exitGrace); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "e2e: processes left running after all tests:\n%s", formatProcs(left))
		killAll(left)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// prepare builds the binaries and installs the npm servers concurrently. Failures
// of individual pieces are recorded for the tests that need them; only an unusable
// cache directory is fatal.
func prepare() error {
	cache, err := cacheDir()
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		setup.toolfold, setup.toolfoldErr = timed("build toolfold", buildToolfold)
	})
	wg.Go(func() {
		setup.goEverything, setup.goEverythingErr = timed("build go-sdk everything-server", buildGoEverything)
	})
	wg.Go(func() { prepareNPM(cache) })
	wg.Wait()
	return nil
}

func timed(what string, f func() (string, error)) (string, error) {
	start := time.Now()
	s, err := f()
	status := "ok"
	if err != nil {
		status = "FAILED"
	}
	fmt.Fprintf(os.Stderr, "e2e: %s: %s in %v\n", what, status, time.Since(start).Round(10*time.Millisecond))
	return s, err
}

// cacheDir is $TOOLFOLD_E2E_CACHE, else <user cache dir>/toolfold-e2e.
func cacheDir() (string, error) {
	dir := os.Getenv("TOOLFOLD_E2E_CACHE")
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no cache dir (set TOOLFOLD_E2E_CACHE): %w", err)
		}
		dir = filepath.Join(base, "toolfold-e2e")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("cache dir: %w", err)
	}
	return dir, nil
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("e2e must run inside the toolfold module")
	}
	return filepath.Dir(gomod), nil
}

func buildToolfold() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	// Both binaries, as `go install ./cmd/...` installs them: toolfold
	// starts the sandbox's processes from toolfold-sandbox beside it.
	bin := filepath.Join(setup.dir, "toolfold")
	args := []string{"build", "-o", setup.dir + string(filepath.Separator)}
	if race := os.Getenv("TOOLFOLD_E2E_RACE"); race == "1" || raceBuild && race != "0" {
		args = append(args, "-race")
	}
	args = append(args, "./cmd/toolfold", "./cmd/toolfold-sandbox")
	if err := run(root, 5*time.Minute, "go", args...); err != nil {
		return "", err
	}
	return bin, nil
}

// buildGoEverything builds the go-sdk's conformance everything-server from this
// module, so at the go-sdk version go.mod requires, with go.sum's checksums.
func buildGoEverything() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(setup.dir, "everything-server")
	if err := run(root, 5*time.Minute, "go", "build", "-o", bin, goSDK+"/conformance/everything-server"); err != nil {
		return "", err
	}
	return bin, nil
}

// prepareNPM finds node and npm and installs the pinned npm servers.
func prepareNPM(cache string) {
	node, errNode := exec.LookPath("node")
	npm, errNPM := exec.LookPath("npm")
	if errNode != nil || errNPM != nil {
		setup.npmMiss = "node and npm are needed to run the npm reference servers; " +
			"install Node.js 20 or later with npm (Debian: apt-get install nodejs npm)"
		return
	}
	setup.node = node
	dir, err := timed("npm ci (servers from e2e/testdata/package-lock.json)", func() (string, error) {
		return installNPM(cache, npm)
	})
	if err != nil {
		setup.npmErr = err
		return
	}
	setup.npmEntry, setup.npmErr = npmEntries(dir)
}

// installNPM runs `npm ci` for testdata/package*.json into
// <cache>/npm-<hash of both files>/, once: a second run finds it there.
func installNPM(cache, npm string) (string, error) {
	pkg, err := os.ReadFile("testdata/package.json")
	if err != nil {
		return "", err
	}
	lock, err := os.ReadFile("testdata/package-lock.json")
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(append(append(pkg, 0), lock...))
	dir := filepath.Join(cache, "npm-"+hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err == nil {
		return dir, nil
	}
	return dir, installAtomically(dir, func(tmp string) error {
		if err := os.WriteFile(filepath.Join(tmp, "package.json"), pkg, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(tmp, "package-lock.json"), lock, 0o644); err != nil {
			return err
		}
		return run(tmp, 10*time.Minute, npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	})
}

// installAtomically fills a fresh sibling of dir and renames it into place, so an
// interrupted install never looks complete. If another run won the race, its
// result is kept.
func installAtomically(dir string, fill func(tmp string) error) error {
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := fill(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(dir); statErr == nil {
			return nil
		}
		return err
	}
	return nil
}

// npmEntries maps each dependency in testdata/package.json, by its short name
// (server-filesystem -> filesystem), to the absolute path of its bin script.
func npmEntries(dir string) (map[string]string, error) {
	var top struct{ Dependencies map[string]string }
	if err := readJSON(filepath.Join(dir, "package.json"), &top); err != nil {
		return nil, err
	}
	entries := make(map[string]string)
	for name := range top.Dependencies {
		pkgDir := filepath.Join(dir, "node_modules", filepath.FromSlash(name))
		var pkg struct{ Bin json.RawMessage }
		if err := readJSON(filepath.Join(pkgDir, "package.json"), &pkg); err != nil {
			return nil, err
		}
		bin, err := singleBin(pkg.Bin)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		short := strings.TrimPrefix(name[strings.LastIndex(name, "/")+1:], "server-")
		entries[short] = filepath.Join(pkgDir, filepath.FromSlash(bin))
	}
	return entries, nil
}

// singleBin reads package.json's "bin": a string, or an object with one entry.
func singleBin(raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "" {
		return s, nil
	}
	var m map[string]string
	if err := json.Unmarshal(raw, &m); err != nil || len(m) != 1 {
		return "", fmt.Errorf("want exactly one bin entry, got %s", raw)
	}
	for _, v := range m {
		return v, nil
	}
	panic("unreachable")
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func run(dir string, timeout time.Duration, name string, args ...string) error {
	return runEnv(dir, timeout, nil, name, args...)
}

// runEnv runs a setup command with no stdin and a deadline, and returns its output
// in the error when it fails.
func runEnv(dir string, timeout time.Duration, env []string, name string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// needToolfold fails the test if the toolfold binary did not build.
func needToolfold(t *testing.T) string {
	t.Helper()
	if setup.toolfoldErr != nil {
		t.Fatalf("toolfold did not build: %v", setup.toolfoldErr)
	}
	return setup.toolfold
}

// needNPM returns the entry script of the npm server with the given short name.
// Without node or npm it skips, or fails when CI=true.
func needNPM(t *testing.T, short string) string {
	t.Helper()
	if setup.npmMiss != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: %s", setup.npmMiss)
		}
		t.Skip(setup.npmMiss)
	}
	if setup.npmErr != nil {
		t.Fatalf("installing the npm servers: %v", setup.npmErr)
	}
	entry, ok := setup.npmEntry[short]
	if !ok {
		t.Fatalf("no npm server %q in e2e/testdata/package.json", short)
	}
	return entry
}

func needGoEverything(t *testing.T) string {
	t.Helper()
	if setup.goEverythingErr != nil {
		t.Fatalf("the go-sdk everything-server did not build: %v", setup.goEverythingErr)
	}
	return setup.goEverything
}
