package deploy

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/output"
)

// Fluent Bit configurations (classic format)

// flbEntry is one `Key value` line, active or commented out (`# Key value`;
// prose comments parse as commented entries too and are only looked up by
// name).
type flbEntry struct {
	Key, Value string
	Commented  bool
	Line       int
}

// flbSection is one [SECTION] and its entries in order.
type flbSection struct {
	Name    string
	Entries []flbEntry
}

// flbConf is a parsed configuration file.
type flbConf struct {
	Path     string
	Sections []flbSection
}

var flbKey = regexp.MustCompile(`^[A-Za-z@][A-Za-z0-9_.]*$`)

// parseFLB reads a classic-mode configuration strictly: indented entries
// inside sections, one key and a value each, no inline comments (Fluent
// Bit would keep them in the value).
func parseFLB(name string, data []byte) (flbConf, error) {
	c := flbConf{Path: name}
	for i, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(raw)
		commented := strings.HasPrefix(line, "#")
		line = strings.TrimSpace(strings.TrimPrefix(line, "#"))
		switch {
		case line == "":
			continue
		case !commented && strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			c.Sections = append(c.Sections, flbSection{Name: strings.ToUpper(line[1 : len(line)-1])})
			continue
		case len(c.Sections) == 0 && commented:
			continue
		case len(c.Sections) == 0:
			return c, fmt.Errorf("%s:%d: %q outside a section", name, i+1, raw)
		}
		e, err := parseEntry(line, commented, raw)
		if err != nil {
			return c, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		if e != nil {
			e.Line = i + 1
			sec := &c.Sections[len(c.Sections)-1]
			sec.Entries = append(sec.Entries, *e)
		}
	}
	return c, nil
}

func parseEntry(line string, commented bool, raw string) (*flbEntry, error) {
	key := strings.Fields(line)[0]
	value := strings.TrimSpace(line[len(key):])
	switch {
	case commented && (!flbKey.MatchString(key) || value == ""):
		return nil, nil // prose
	case commented:
		return &flbEntry{Key: key, Value: value, Commented: true}, nil
	case raw == strings.TrimLeft(raw, " \t"):
		return nil, fmt.Errorf("entry %q is not indented", raw)
	case !flbKey.MatchString(key) || value == "":
		return nil, fmt.Errorf("%q is not `Key value`", line)
	case strings.Contains(value, " #"):
		return nil, fmt.Errorf("inline comment in %q: Fluent Bit keeps it in the value", line)
	}
	return &flbEntry{Key: key, Value: value}, nil
}

// get returns the active value of key (case-insensitive, as Fluent Bit).
func (s flbSection) get(key string) (string, bool) {
	for _, e := range s.Entries {
		if !e.Commented && strings.EqualFold(e.Key, key) {
			return e.Value, true
		}
	}
	return "", false
}

// shown reports whether key is set or shown commented out, and its value.
func (s flbSection) shown(key string) (string, bool) {
	for _, e := range s.Entries {
		if strings.EqualFold(e.Key, key) {
			return e.Value, true
		}
	}
	return "", false
}

// only returns the single section named name whose Name entry is plugin
// ("" for SERVICE-like sections without one).
func (c flbConf) only(t *testing.T, name, plugin string) flbSection {
	t.Helper()
	var found []flbSection
	for _, s := range c.Sections {
		if n, _ := s.get("Name"); s.Name == name && strings.EqualFold(n, plugin) {
			found = append(found, s)
		}
	}
	require.Len(t, found, 1, "%s: one [%s] %s", c.Path, name, plugin)
	return found[0]
}

// all returns every section named name whose Name entry is plugin.
func (c flbConf) all(name, plugin string) []flbSection {
	var found []flbSection
	for _, s := range c.Sections {
		if n, _ := s.get("Name"); s.Name == name && strings.EqualFold(n, plugin) {
			found = append(found, s)
		}
	}
	return found
}

// tailTag is the tag tail gives the records of file: the input's Tag with
// its `*` replaced by the path, slashes turned into dots (the leading one
// dropped), as Fluent Bit's tail does.
func tailTag(in flbSection, file string) string {
	tag, ok := in.get("Tag")
	if !ok {
		tag, _ = in.get("Name")
	}
	return strings.Replace(tag, "*", strings.ReplaceAll(strings.TrimPrefix(file, "/"), "/", "."), 1)
}

// routes tells whether the output takes records tagged tag: its
// Match_Regex, else its Match, where `*` stands for any run of characters.
func routes(out flbSection, tag string) bool {
	if re, ok := out.get("Match_Regex"); ok {
		r, err := regexp.Compile(re)
		return err == nil && r.MatchString(tag)
	}
	m, ok := out.get("Match")
	if !ok {
		return false
	}
	r := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(m), `\*`, ".*") + "$")
	return r.MatchString(tag)
}

// The three configurations: the repository's, the cluster's, compose's.
var flbConfPaths = []string{"fluent-bit.conf", "deploy/daemonset/fluent-bit.conf", "deploy/compose/fluent-bit.conf"}

func loadFLB(t *testing.T, rel string) flbConf {
	t.Helper()
	c, err := parseFLB(rel, readFile(t, rel))
	require.NoError(t, err)
	return c
}

// Keys Fluent Bit 5.1.1 accepts, lower case: src/flb_config.c (SERVICE),
// src/flb_input.c and plugins/in_tail/tail.c (INPUT tail), src/flb_output.c
// (OUTPUT) plus the journalship settings.
var (
	serviceKeys = keySet(`flush grace daemon log_file log_level parsers_file plugins_file streams_file
		http_server http_listen http_port health_check hc_errors_count hc_retry_failure_count hc_period
		storage.path storage.sync storage.metrics storage.checksum storage.backlog.mem_limit
		storage.backlog.flush_on_shutdown storage.max_chunks_up storage.delete_irrecoverable_chunks
		storage.trim_files coro_stack_size scheduler.base scheduler.cap json.convert_nan_to_null
		dns.mode dns.resolver dns.prefer_ipv4 dns.prefer_ipv6 hot_reload enable_chunk_trace`)
	tailKeys = keySet(`name alias tag log_level log_suppress_interval mem_buf_limit routable threaded
		storage.type storage.pause_on_chunks_overlimit buffer_chunk_size buffer_max_size db
		db.compare_filename db.journal_mode db.locking db.sync exclude_path exit_on_eof
		file_cache_advise ignore_older ignore_active_older_files inotify_watcher key offset_key path
		path_key progress_check_interval read_from_head read_newly_discovered_files_from_head
		refresh_interval rotate_wait skip_empty_lines skip_long_lines static_batch_size tag_regex
		truncate_long_lines watcher_interval`)
	outputKeys = keySet(`name match match_regex alias log_level log_suppress_interval retry_limit
		workers storage.total_limit_size`)
)

func keySet(s string) map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(s) {
		m[k] = true
	}
	return m
}

func journalshipKey(k string) bool {
	return slices.ContainsFunc(output.Settings, func(s output.Setting) bool { return strings.EqualFold(s.Name, k) })
}

// unknownKeys lists the active keys Fluent Bit would refuse.
func unknownKeys(c flbConf) []string {
	var bad []string
	for _, s := range c.Sections {
		name, _ := s.get("Name")
		for _, e := range s.Entries {
			k := strings.ToLower(e.Key)
			ok := false
			switch {
			case e.Commented:
				continue
			case s.Name == "SERVICE":
				ok = serviceKeys[k]
			case s.Name == "INPUT" && strings.EqualFold(name, "tail"):
				ok = tailKeys[k]
			case s.Name == "OUTPUT" && strings.EqualFold(name, "journalship"):
				ok = outputKeys[k] || journalshipKey(k)
			}
			if !ok {
				bad = append(bad, fmt.Sprintf("%s:%d [%s] %s", c.Path, e.Line, s.Name, e.Key))
			}
		}
	}
	return bad
}

func TestFluentBitConfKeysAreKnown(t *testing.T) {
	for _, p := range flbConfPaths {
		c := loadFLB(t, p)
		assert.Empty(t, unknownKeys(c), p)
		for _, s := range c.Sections {
			seen := map[string]int{}
			for _, e := range s.Entries {
				if !e.Commented && !strings.EqualFold(e.Key, "Log_Level") { // generic and journalship's: the same value
					seen[strings.ToLower(e.Key)]++
					assert.Equal(t, 1, seen[strings.ToLower(e.Key)], "%s:%d: %s set twice", p, e.Line, e.Key)
				}
			}
		}
	}
	bad := strings.Replace(string(readFile(t, "fluent-bit.conf")), "    Offset_Key        offset", "    Ofset_Key         offset", 1)
	c, err := parseFLB("misspelt.conf", []byte(bad))
	require.NoError(t, err)
	assert.Len(t, unknownKeys(c), 1, "a misspelt key is caught")
	_, err = parseFLB("inline.conf", []byte("[SERVICE]\n    Flush 1 # seconds\n"))
	assert.ErrorContains(t, err, "inline comment")
}

// tailDifferences are the keys in which the tail inputs differ from one
// another: each tails its own journals into its own offset database.
var tailDifferences = map[string]bool{"tag": true, "path": true, "db": true}

// TestFluentBitConfShowsEverySetting: delivery settings, the HTTP server,
// every tail input's keys matching the plugin's and routed to it, and
// every journalship setting shown.
func TestFluentBitConfShowsEverySetting(t *testing.T) {
	for _, p := range flbConfPaths {
		t.Run(p, func(t *testing.T) {
			c := loadFLB(t, p)
			svc, out := c.only(t, "SERVICE", ""), c.only(t, "OUTPUT", "journalship")
			for _, s := range output.Settings {
				_, ok := out.shown(s.Name)
				assert.True(t, ok, "%s: setting %s is not shown", p, s.Name)
			}
			price, ok := out.shown(priceFile)
			_, active := out.get(priceFile)
			assert.True(t, ok && !active && price != "", "%s: Price_File is shown commented out", p)
			expect(t, svc, map[string]string{"HTTP_Server": "On", "HTTP_Port": "2020", "Health_Check": "On", "storage.sync": "full"})
			expect(t, out, map[string]string{"Retry_Limit": "no_limits"})
			for _, k := range []string{"storage.path", "Workers", "storage.total_limit_size", "Grace"} {
				_, inSvc := svc.get(k)
				_, inOut := out.get(k)
				assert.True(t, inSvc || inOut, "%s: %s is not set", p, k)
			}
			ins := c.all("INPUT", "tail")
			require.NotEmpty(t, ins, p)
			dbs := map[string]int{}
			for _, in := range ins {
				expect(t, in, map[string]string{"storage.type": "filesystem", "Skip_Long_Lines": "Off",
					"storage.pause_on_chunks_overlimit": "on", "Read_from_Head": "On", "DB.sync": "full"})
				for _, k := range []string{"Tag", "Path", "DB", "Buffer_Max_Size", "Refresh_Interval", "Rotate_Wait"} {
					_, ok := in.get(k)
					assert.True(t, ok, "%s:%d: %s is not set", p, in.Entries[0].Line, k)
				}
				for tailKey, pluginKey := range map[string]string{"Key": "Log_Key", "Path_Key": "Path_Key", "Offset_Key": "Offset_Key"} {
					tv, _ := in.get(tailKey)
					assert.Equal(t, tv, setting(out, pluginKey), "%s: tail's %s is the plugin's %s", p, tailKey, pluginKey)
				}
				tag := tailTag(in, "/data/x/session.jsonl")
				assert.True(t, routes(out, tag), "%s: the output matches the input's tag %s", p, tag)
				db, _ := in.get("DB")
				dbs[filepath.Clean(db)]++
				// The inputs differ only in what they tail and where they
				// keep their offsets (the comments say so).
				for _, e := range append(slices.Clone(in.Entries), ins[0].Entries...) {
					if e.Commented || tailDifferences[strings.ToLower(e.Key)] {
						continue
					}
					a, _ := in.get(e.Key)
					b, _ := ins[0].get(e.Key)
					assert.Equal(t, b, a, "%s:%d: %s differs from the first tail input's", p, e.Line, e.Key)
				}
			}
			for db, n := range dbs {
				assert.Equal(t, 1, n, "%s: DB %s is shared: at start a tail input deletes the offsets of the files it does not tail", p, db)
			}
			w, err := strconv.Atoi(setting(out, "Workers"))
			assert.True(t, err == nil && w >= 1, "Workers")
		})
	}
}

func expect(t *testing.T, s flbSection, want map[string]string) {
	t.Helper()
	for k, v := range want {
		got, ok := s.get(k)
		assert.True(t, ok && strings.EqualFold(got, v), "[%s] %s = %q, want %q", s.Name, k, got, v)
	}
}

// setting returns the active value of a journalship setting, or its default.
func setting(out flbSection, name string) string {
	if v, ok := out.get(name); ok {
		return v
	}
	for _, s := range output.Settings {
		if strings.EqualFold(s.Name, name) {
			return s.Default
		}
	}
	return ""
}

// newInstance builds a plugin instance from the [OUTPUT] section, with the
// files under dir and no metrics endpoint.
func newInstance(t *testing.T, out flbSection, override map[string]string) error {
	t.Helper()
	dir := t.TempDir()
	env := map[string]string{"NODE_NAME": "node-test"}
	inst, err := output.NewInstance(func(k string) string {
		switch {
		case strings.EqualFold(k, "Ledger_Path"):
			return filepath.Join(dir, "ledger.db")
		case strings.EqualFold(k, "Dead_Letter_Path"):
			return filepath.Join(dir, "deadletter.jsonl")
		case strings.EqualFold(k, "Metrics_Address"):
			return "off"
		}
		if v, ok := override[k]; ok {
			return v
		}
		v, _ := out.get(k)
		return os.Expand(v, func(n string) string { return env[n] })
	})
	if err == nil {
		require.NoError(t, inst.Close())
	}
	return err
}

// TestFluentBitConfValuesParse: the plugin's own parser accepts every
// journalship value of the three configurations (and refuses a bad one).
func TestFluentBitConfValuesParse(t *testing.T) {
	for _, p := range flbConfPaths {
		out := loadFLB(t, p).only(t, "OUTPUT", "journalship")
		assert.NoError(t, newInstance(t, out, nil), p)
		_, _, err := net.SplitHostPort(value(out, "Metrics_Address"))
		assert.NoError(t, err, "%s: Metrics_Address is host:port", p)
	}
	out := loadFLB(t, "fluent-bit.conf").only(t, "OUTPUT", "journalship")
	assert.Error(t, newInstance(t, out, map[string]string{"Max_Line_Bytes": "lots"}), "the check is real")
}

// activeDiff lists the keys whose active values differ between a and b,
// section by section (same sections in the same order).
func activeDiff(t *testing.T, a, b flbConf) map[string]bool {
	t.Helper()
	require.Equal(t, len(a.Sections), len(b.Sections), "%s and %s have the same sections", a.Path, b.Path)
	diff := map[string]bool{}
	for i := range a.Sections {
		require.Equal(t, a.Sections[i].Name, b.Sections[i].Name)
		for _, pair := range [][2]flbSection{{a.Sections[i], b.Sections[i]}, {b.Sections[i], a.Sections[i]}} {
			for _, e := range pair[0].Entries {
				if v, ok := pair[1].get(e.Key); !e.Commented && (!ok || v != e.Value) {
					diff[strings.ToLower(e.Key)] = true
				}
			}
		}
	}
	return diff
}

// copyDifferences are the keys a copy of fluent-bit.conf may set
// otherwise, besides the listen addresses, Loki_URL and Node_Name: the
// cluster's two teams tail their own directories, which are their format
// roots and name their tenants; compose's journals go to two tenants by
// the roots they are written under.
var copyDifferences = map[string]map[string]bool{
	"deploy/daemonset/fluent-bit.conf": {"path": true, "format_roots": true, "tenant_roots": true},
	"deploy/compose/fluent-bit.conf":   {"tenant_roots": true},
}

// TestConfigCopies: the cluster's and compose's configurations are the
// repository's but for the keys that must differ there; the price table
// is a byte-for-byte copy.
func TestConfigCopies(t *testing.T) {
	base := loadFLB(t, "fluent-bit.conf")
	for _, p := range flbConfPaths[1:] {
		allowed := map[string]bool{"http_listen": true, "metrics_address": true, "loki_url": true, "node_name": true}
		for k := range copyDifferences[p] {
			allowed[k] = true
		}
		c := loadFLB(t, p)
		for k := range activeDiff(t, base, c) {
			assert.True(t, allowed[k], "%s: %s differs from fluent-bit.conf", p, k)
		}
		expect(t, c.only(t, "SERVICE", ""), map[string]string{"HTTP_Listen": "0.0.0.0"})
		expect(t, c.only(t, "OUTPUT", "journalship"), map[string]string{"Metrics_Address": "0.0.0.0:2021", "Node_Name": "${NODE_NAME}"})
	}
	expect(t, loadFLB(t, flbConfPaths[2]).only(t, "OUTPUT", "journalship"), map[string]string{"Loki_URL": "http://loki:3100"})
	assert.Equal(t, string(readFile(t, "pricing/default_prices.yaml")), string(readFile(t, "deploy/daemonset/prices.yaml")),
		"deploy/daemonset/prices.yaml is stale: %s", regenerate)
	for _, p := range flbConfPaths {
		_, ok := loadFLB(t, p).only(t, "SERVICE", "").get("Plugins_File")
		assert.False(t, ok, "%s: the plugin is loaded with -e; a plugins file naming the image's path breaks `fluent-bit -e bin/out_journalship.so -c fluent-bit.conf` from a clone", p)
	}
	c := loadFLB(t, "fluent-bit.conf")
	i := slices.IndexFunc(c.Sections, func(s flbSection) bool { return s.Name == "OUTPUT" })
	require.GreaterOrEqual(t, i, 0)
	j := slices.IndexFunc(c.Sections[i].Entries, func(e flbEntry) bool { return !e.Commented && e.Key == "Loki_URL" })
	require.GreaterOrEqual(t, j, 0)
	c.Sections[i].Entries[j].Value = "http://elsewhere:3100"
	assert.NotEmpty(t, activeDiff(t, base, c), "a changed value is seen")
}
