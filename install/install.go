package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/atomicfile"
)

// EntryName is the name of toolfold's entry in a client's file.
const EntryName = "toolfold"

// Options says what to install or uninstall.
type Options struct {
	Client       Client
	ClientFile   string // the client's file; Client.Path's default is the caller's to pass
	ToolfoldFile string // where toolfold keeps the moved servers (client-format JSON)
	Exe          string // absolute path of the toolfold binary the client is to run
	DryRun       bool   // compute and report, write nothing
	// Now stamps the backup's name; zero means time.Now.
	Now time.Time
}

// Report says what Install or Uninstall changed (or, dry, would change).
type Report struct {
	Changed bool     // false: the files already were as asked
	Backup  string   // the client file's backup, "" if none was written
	Moved   []string // servers moved from the client's file into toolfold's
	Kept    []string // Install: servers already in toolfold's file, left there
	Put     []string // Uninstall: servers put back into the client's file
	Skipped []string // Uninstall: servers the client's file already had again
	Entry   string   // the toolfold entry's command line
	Added   []string // Install: settings added to toolfold's file (DefaultSettings' keys it lacked)
}

// DefaultSettings are what Install adds to toolfold's file when it lacks
// the key, beside "mcpServers": proxy.yaml's sample policy (ask the person
// before any tool its server declares destructive) and an audit log beside
// the file. They are proxy.yaml's keys written as JSON, which `serve -c`
// reads in a client-format file; a person edits them there (a policy of
// {"default": "allow"} allows every call, an "audit" of null records
// nothing) and Install leaves an existing key as it is.
var DefaultSettings = []struct{ Key, JSON string }{
	{"policy", `{"default": "allow", "approval_timeout": "2m",
		"rules": [{"annotations": {"destructiveHint": true}, "action": "ask"}]}`},
	{"audit", `{"file": "audit.jsonl", "max_size_mb": 100, "max_backups": 10}`},
}

// files are the documents install edits, read once.
type files struct {
	o        Options
	client   *object // the client's whole file
	existed  bool    // the client's file was there
	servers  *object // client[Client.Key]
	toolfold *object // toolfold's whole file
	tfserv   *object // toolfold["mcpServers"]
	installs map[string]record
}

// record is what installs.json keeps per client.
type record struct {
	ClientConfig string   `json:"client_config"`
	Servers      []string `json:"servers"`
}

// Install moves the client's servers into toolfold's file and leaves one
// entry that runs toolfold with it.
func Install(o Options) (*Report, error) {
	f, err := load(o)
	if err != nil {
		return nil, err
	}
	r := &Report{Entry: strings.Join(entryArgv(o), " ")}
	var moved []string
	for _, name := range slices.Clone(f.servers.keys) {
		v, _ := f.servers.get(name)
		if f.isToolfoldEntry(v) {
			continue
		}
		if have, ok := f.tfserv.get(name); ok {
			if !sameJSON(have, v) {
				return nil, fmt.Errorf("server %q is in both %s and %s with different settings: rename or remove one, then install again", name, o.ClientFile, o.ToolfoldFile)
			}
			r.Kept = append(r.Kept, name)
		} else {
			f.tfserv.set(name, v)
		}
		moved = append(moved, name)
	}
	added := f.addSettings()
	if len(f.tfserv.keys) == 0 {
		return nil, fmt.Errorf("%s has no servers to move, and %s none to serve: add servers to one of them first", o.ClientFile, o.ToolfoldFile)
	}
	entry := f.entry()
	if cur, ok := f.servers.get(EntryName); len(moved) == 0 && len(added) == 0 && ok && sameJSON(cur, entry) && len(f.servers.keys) == 1 {
		return r, nil // installed already
	}
	for _, name := range moved {
		f.servers.remove(name)
	}
	for _, name := range slices.Clone(f.servers.keys) { // an older toolfold entry, under any name
		if v, _ := f.servers.get(name); f.isToolfoldEntry(v) {
			f.servers.remove(name)
		}
	}
	f.servers.set(EntryName, entry)
	rec := f.installs[o.Client.Name]
	rec.ClientConfig = o.ClientFile
	for _, name := range moved {
		if !slices.Contains(rec.Servers, name) {
			rec.Servers = append(rec.Servers, name)
		}
	}
	f.installs[o.Client.Name] = rec
	r.Moved, r.Added, r.Changed = moved, added, true
	return r, f.write(r)
}

// addSettings adds to toolfold's file the DefaultSettings it lacks, after
// its "mcpServers", and returns their keys.
func (f *files) addSettings() []string {
	var added []string
	for _, s := range DefaultSettings {
		if hasKey(f.toolfold, s.Key) {
			continue
		}
		if !hasKey(f.toolfold, "mcpServers") {
			f.toolfold.set("mcpServers", json.RawMessage(`{}`))
		}
		f.toolfold.set(s.Key, json.RawMessage(s.JSON))
		added = append(added, s.Key)
	}
	return added
}

// Uninstall puts back the servers Install moved from the client's file and
// removes toolfold's entry. Servers that no other client's install moved
// leave toolfold's file.
func Uninstall(o Options) (*Report, error) {
	f, err := load(o)
	if err != nil {
		return nil, err
	}
	r := &Report{}
	removed := false
	for _, name := range slices.Clone(f.servers.keys) {
		if v, _ := f.servers.get(name); f.isToolfoldEntry(v) {
			f.servers.remove(name)
			removed = true
		}
	}
	rec, recorded := f.installs[o.Client.Name]
	names := rec.Servers
	if !recorded && removed {
		names = f.tfserv.keys // installed by hand: put back everything toolfold runs
	}
	for _, name := range names {
		v, ok := f.tfserv.get(name)
		switch {
		case !ok:
			continue
		case hasKey(f.servers, name):
			r.Skipped = append(r.Skipped, name)
		default:
			f.servers.set(name, v)
			r.Put = append(r.Put, name)
		}
		if !f.usedByOthers(name) {
			f.tfserv.remove(name)
		}
	}
	delete(f.installs, o.Client.Name)
	if !removed && len(r.Put) == 0 && !recorded {
		return r, nil // not installed
	}
	r.Changed = true
	return r, f.write(r)
}

func load(o Options) (*files, error) {
	if !filepath.IsAbs(o.Exe) {
		return nil, fmt.Errorf("the toolfold binary's path %q is not absolute", o.Exe)
	}
	f := &files{o: o, installs: map[string]record{}}
	var err error
	if f.client, f.existed, err = readObject(o.ClientFile); err != nil {
		return nil, err
	}
	if f.servers, err = f.client.sub(o.Client.Key); err != nil {
		return nil, fmt.Errorf("%s: %w", o.ClientFile, err)
	}
	if f.toolfold, _, err = readObject(o.ToolfoldFile); err != nil {
		return nil, fmt.Errorf("%w (toolfold keeps the moved servers in a JSON file with an \"mcpServers\" map; name another with --config)", err)
	}
	if f.tfserv, err = f.toolfold.sub("mcpServers"); err != nil {
		return nil, fmt.Errorf("%s: %w", o.ToolfoldFile, err)
	}
	data, err := os.ReadFile(f.installsFile())
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		if err := json.Unmarshal(data, &f.installs); err != nil {
			return nil, fmt.Errorf("%s: %w", f.installsFile(), err)
		}
	}
	return f, nil
}

// readObject reads a JSON (or JSONC) file holding an object; a missing
// file is an empty object.
func readObject(path string) (*object, bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return newObject(), false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return newObject(), true, nil
	}
	o, err := parseObject(config.StandardJSON(data))
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", path, err)
	}
	return o, true, nil
}

func (f *files) installsFile() string {
	return filepath.Join(filepath.Dir(f.o.ToolfoldFile), "installs.json")
}

// entry is the client's toolfold entry.
func (f *files) entry() json.RawMessage {
	argv := entryArgv(f.o)
	m := map[string]any{"command": argv[0], "args": argv[1:]}
	if f.o.Client.stdioType {
		m["type"] = "stdio"
	}
	b, _ := json.Marshal(m)
	return b
}

func entryArgv(o Options) []string {
	return []string{o.Exe, "serve", "-c", o.ToolfoldFile}
}

// isToolfoldEntry reports an entry that runs `toolfold serve`: this
// binary, or one named toolfold, or any command serving toolfold's file.
func (f *files) isToolfoldEntry(v json.RawMessage) bool {
	var e struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if json.Unmarshal(v, &e) != nil || len(e.Args) == 0 || e.Args[0] != "serve" {
		return false
	}
	base := strings.TrimSuffix(filepath.Base(e.Command), ".exe")
	return base == "toolfold" || e.Command == f.o.Exe || slices.Contains(e.Args, f.o.ToolfoldFile)
}

func (f *files) usedByOthers(name string) bool {
	for client, rec := range f.installs {
		if client != f.o.Client.Name && slices.Contains(rec.Servers, name) {
			return true
		}
	}
	return false
}

func hasKey(o *object, key string) bool {
	_, ok := o.get(key)
	return ok
}

// write backs up the client's file and writes the three files: toolfold's
// first, so that a failure on the way leaves the servers in both files
// rather than in neither.
func (f *files) write(r *Report) error {
	if f.o.DryRun {
		if f.existed {
			r.Backup = f.backupName()
		}
		return nil
	}
	if f.existed {
		r.Backup = f.backupName()
		if err := copyFile(f.o.ClientFile, r.Backup); err != nil {
			return fmt.Errorf("backing up %s: %w", f.o.ClientFile, err)
		}
	}
	f.toolfold.setSub("mcpServers", f.tfserv)
	if err := os.MkdirAll(filepath.Dir(f.o.ToolfoldFile), 0o700); err != nil {
		return err
	}
	if err := writeFile(f.o.ToolfoldFile, f.toolfold.indented(), 0o600); err != nil {
		return err
	}
	inst, _ := json.MarshalIndent(f.installs, "", "  ")
	if err := writeFile(f.installsFile(), append(inst, '\n'), 0o600); err != nil {
		return err
	}
	f.client.setSub(f.o.Client.Key, f.servers)
	if err := os.MkdirAll(filepath.Dir(f.o.ClientFile), 0o700); err != nil {
		return err
	}
	return writeFile(f.o.ClientFile, f.client.indented(), 0o600)
}

// backupName is the client file's name with a UTC timestamp added:
// claude_desktop_config.json.toolfold-backup-20261126T130501Z.
func (f *files) backupName() string {
	now := f.o.Now
	if now.IsZero() {
		now = time.Now()
	}
	name := f.o.ClientFile + ".toolfold-backup-" + now.UTC().Format("20060102T150405Z")
	for i, try := 2, name; ; i++ { // never overwrite an earlier backup
		if _, err := os.Lstat(try); errors.Is(err, fs.ErrNotExist) {
			return try
		}
		try = fmt.Sprintf("%s-%d", name, i)
	}
}

// writeFile replaces path with data atomically, keeping an existing file's
// mode (a new one gets mode).
func writeFile(path string, data []byte, mode fs.FileMode) error {
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	return atomicfile.Write(path, data, mode)
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	st, err := os.Stat(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, st.Mode().Perm())
}
