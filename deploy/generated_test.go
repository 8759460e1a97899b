package deploy

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/claudecode"
	"github.com/journalship/journalship/format/gosession"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/tenant"
)

// The deployment fragments that depend on the registered formats are
// generated from their descriptors (format.Deploy): the tail inputs, the
// layouts comment and Format_Roots of the three Fluent Bit
// configurations, the DaemonSet's journal volumes and mounts, compose's,
// and the retention and simulator flags naming the roots. Registering a
// format needs no hand edit of a deployment file, only the command below;
// TestGenerated fails while a file is stale.

var update = flag.Bool("update", false, "rewrite the deployment fragments generated from the registered formats")

// regenerate is the command that rewrites the generated fragments.
const regenerate = "go test ./deploy -run TestGenerated -update"

const (
	// dataDir holds every format's Root on a node, and every team's
	// directory.
	dataDir = "/data"
	// stateDir holds the tail DBs, beside the ledger and chunk storage.
	stateDir = "/var/lib/journalship"
	// commentWidth is the widest a generated comment line gets, in
	// columns, unless one word is wider.
	commentWidth = 76
)

// A generated fragment lies between two comment lines, the first naming
// the command that rewrites it. The fragment takes the begin marker's
// indentation.
func beginMarker(what string) string { return "# BEGIN generated: " + what + " (" + regenerate + ")" }
func endMarker(what string) string   { return "# END generated: " + what }

// region is one generated fragment of a file: render returns its lines,
// each starting with indent.
type region struct {
	what   string
	render func(indent string) string
}

// lineValue is a generated value: every active line of the file whose
// text starts with key (a configuration key and its spaces, or a flag's
// --name=) gets value after it.
type lineValue struct {
	key, value string
}

// generatedFile is what is generated in one deployment file: fragments
// and values, or the whole file as a copy of another.
type generatedFile struct {
	file    string
	regions []region
	values  []lineValue
	copyOf  string // the file it is a byte-for-byte copy of
}

// apply returns text with every fragment and value of g generated.
func (g generatedFile) apply(text string) (string, error) {
	if g.copyOf != "" {
		data, err := os.ReadFile(filepath.Join(repo, g.copyOf))
		return string(data), err
	}
	var errs []error
	for _, r := range g.regions {
		var err error
		text, err = replaceRegion(text, r)
		errs = append(errs, err)
	}
	for _, v := range g.values {
		var err error
		text, err = replaceValue(text, v)
		errs = append(errs, err)
	}
	return text, errors.Join(errs...)
}

// replaceRegion rewrites the lines between r's markers.
func replaceRegion(text string, r region) (string, error) {
	lines := strings.SplitAfter(text, "\n")
	begin, end := -1, -1
	for i, l := range lines {
		switch strings.TrimSpace(l) {
		case beginMarker(r.what):
			if begin >= 0 {
				return text, fmt.Errorf("%q: two begin markers", r.what)
			}
			begin = i
		case endMarker(r.what):
			if end >= 0 {
				return text, fmt.Errorf("%q: two end markers", r.what)
			}
			end = i
		}
	}
	if begin < 0 || end < begin {
		return text, fmt.Errorf("no %q ... %q lines", beginMarker(r.what), endMarker(r.what))
	}
	indent := lines[begin][:len(lines[begin])-len(strings.TrimLeft(lines[begin], " "))]
	return strings.Join(lines[:begin+1], "") + r.render(indent) + strings.Join(lines[end:], ""), nil
}

// replaceValue sets v's value on every active line starting with v.key.
func replaceValue(text string, v lineValue) (string, error) {
	lines := strings.SplitAfter(text, "\n")
	found := 0
	for i, l := range lines {
		body := strings.TrimLeft(l, " ")
		rest, ok := strings.CutPrefix(body, v.key)
		if !ok || !strings.HasSuffix(v.key, "=") && !strings.HasPrefix(rest, " ") {
			continue
		}
		gap := len(rest) - len(strings.TrimLeft(rest, " "))
		lines[i] = l[:len(l)-len(body)] + v.key + rest[:gap] + v.value + "\n"
		found++
	}
	if found == 0 {
		return text, fmt.Errorf("no line starts with %q", v.key)
	}
	return strings.Join(lines, ""), nil
}

// site is where a deployment keeps the journals: each format at its Root
// on a single node, or at the same place below each team's directory
// (/data/team-a/sessions for /data/sessions).
type site struct {
	teams []team
}

// team is a team's tenant and its directory, /data/<name>.
type team struct {
	name, dir string
}

// below returns a path under /data as it is below the team's directory.
func (tm team) below(p string) string { return path.Join(tm.dir, strings.TrimPrefix(p, dataDir+"/")) }

// roots returns d's roots on the site, team by team.
func (s site) roots(d format.Descriptor) []string {
	if len(s.teams) == 0 {
		return []string{d.Deploy.Root}
	}
	var out []string
	for _, tm := range s.teams {
		out = append(out, tm.below(d.Deploy.Root))
	}
	return out
}

// shown is how a comment names a path under /data: below /data/<team> on
// a site of teams.
func (s site) shown(p string) string {
	if len(s.teams) == 0 {
		return p
	}
	return team{dir: path.Join(dataDir, "<team>")}.below(p)
}

// tailPath is d's tail Path: every pattern under every root.
func (s site) tailPath(d format.Descriptor) string {
	var out []string
	for _, root := range s.roots(d) {
		for _, p := range d.Deploy.Paths {
			out = append(out, root+"/"+p)
		}
	}
	return strings.Join(out, ",")
}

// formatRoots is the Format_Roots value: each format's roots.
func (s site) formatRoots(ds []format.Descriptor) string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Name+"="+strings.Join(s.roots(d), ":"))
	}
	return strings.Join(out, ",")
}

// retentionRoots is retention's --root: every root of every format, team
// after team.
func (s site) retentionRoots(ds []format.Descriptor) string {
	teams := s.teams
	if len(teams) == 0 {
		teams = []team{{dir: dataDir}}
	}
	var out []string
	for _, tm := range teams {
		for _, d := range ds {
			out = append(out, tm.below(d.Deploy.Root))
		}
	}
	return strings.Join(out, ",")
}

// journalVolume is a directory of journals the containers mount: where a
// format's tail Path starts from, under one of its roots.
type journalVolume struct {
	name, dir string
	format    format.Descriptor
	team      int // its team's index (0 on a single node)
}

// volumes are the site's journal directories, team after team, format
// after format.
func (s site) volumes(ds []format.Descriptor) []journalVolume {
	teams := s.teams
	if len(teams) == 0 {
		teams = []team{{dir: dataDir}}
	}
	var out []journalVolume
	for i, tm := range teams {
		for _, d := range ds {
			root := tm.below(d.Deploy.Root)
			var dirs []string
			for _, p := range d.Deploy.Paths {
				if dir := globDir(root + "/" + p); !slices.Contains(dirs, dir) {
					dirs = append(dirs, dir)
				}
			}
			for _, dir := range dirs {
				out = append(out, journalVolume{name: volumeName(dir), dir: dir, format: d, team: i})
			}
		}
	}
	return out
}

// volumeName names the volume of a journal directory: its path below
// /data, separators as dashes (team-a-codelia-sessions).
func volumeName(dir string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '_' || r == '.' {
			return '-'
		}
		return r
	}, strings.ToLower(strings.TrimPrefix(dir, dataDir+"/")))
}

// about is d's Deploy.About with its root named as on the site.
func (s site) about(d format.Descriptor) string {
	return strings.ReplaceAll(d.Deploy.About, d.Deploy.Root, s.shown(d.Deploy.Root))
}

// comment wraps text into comment lines of at most commentWidth columns.
func comment(indent, text string) string {
	var b strings.Builder
	line := indent + "#"
	for _, w := range strings.Fields(text) {
		if len(line)+1+len(w) > commentWidth && line != indent+"#" {
			b.WriteString(line + "\n")
			line = indent + "#"
		}
		line += " " + w
	}
	b.WriteString(line + "\n")
	return b.String()
}

// confLayouts lists each format's layouts under its root (the header of
// a Fluent Bit configuration).
func confLayouts(s site, ds []format.Descriptor) func(string) string {
	return func(indent string) string {
		var b strings.Builder
		for _, d := range ds {
			f, err := d.Build(nil, nil)
			if err != nil {
				panic(err)
			}
			name := d.Name
			for _, layout := range pathLayouts(f) {
				tmpl, _, _ := strings.Cut(layout, " (")
				fmt.Fprintf(&b, "%s#   %-11s %s\n", indent, name, strings.Replace(tmpl, "<root>", s.shown(d.Deploy.Root), 1))
				name = ""
			}
		}
		return b.String()
	}
}

// inputData fills a tail input's template.
type inputData struct {
	Comment, Tag, Path, DB string
}

// firstInput is the first format's tail input: it says why each setting
// is what it is. otherInput is every other format's: the same settings.
var (
	firstInput = template.Must(template.New("first").Parse(`[INPUT]
{{.Comment}}    Name              tail
    # One tag for all the input's journals (no ` + "`*`" + `, which would give each
    # file a tag of its own): their lines share Fluent Bit's chunks, so a
    # flush carries many journals. With a tag per file every append is a
    # flush of its own, several requests to Loki (one per stream) and a
    # ledger commit: inside Fluent Bit that cost the plugin six times the
    # CPU (tools/flbmeasure -tag).
    Tag               {{.Tag}}
    Path              {{.Path}}
    # No parser: the plugin needs the raw line, byte for byte.
    Key               log
    # The file path and the byte offset where each line starts: the plugin
    # judges seq continuity and records shipped byte ranges with them.
    Path_Key          file
    Offset_Key        offset
    # Remember how far each file was read, across restarts. Every tail
    # input has a DB of its own: at start a tail input deletes from its DB
    # the offsets of every file it does not tail itself, so a shared DB
    # would make the other inputs read all their journals again.
    DB                {{.DB}}
    DB.sync           full
    Read_from_Head    On
    # A new session file is found by inotify at once, and by a rescan of
    # Path every Refresh_Interval seconds at the latest.
    Refresh_Interval  5
    # Journals are not rotated (one file per session); a file moved away
    # is still read for Rotate_Wait seconds.
    Rotate_Wait       30
    # Follow only the journals written within two days. Tail holds, per
    # file it follows, a descriptor, an inotify watch and a read buffer, so
    # with a node's whole history under Path it would hold them for every
    # journal ever written (Fluent Bit exits at start once the descriptors
    # run out). Older journals are not opened at start, and a followed one
    # is let go (descriptor, watch and buffer freed) once unchanged for as
    # long. A journal appended to again is found at the next rescan and
    # read on from its offset in the DB, or from its first line when the
    # DB no longer has it: the plugin drops the lines the ledger holds, so
    # nothing is sent twice. Lines tail had not read when it let a file go
    # (it was behind after an outage) are shipped by the finalizer
    # (journalship retention) once the session is over; history older
    # than two days is backfilled with journalship ship
    # (docs/operations.md, "A node's whole history").
    Ignore_Older      2d
    Ignore_Active_Older_Files On
    # The read buffer of each followed file starts at Buffer_Chunk_Size and
    # grows by as much, up to Buffer_Max_Size, for a longer line. 16K holds
    # most journal lines whole (a Cortex Plane TOOL_RESULT is at most
    # ~5 KB) and keeps 10,000 followed journals at 160 MB of buffers
    # (64K: 640 MB).
    Buffer_Chunk_Size 16K
    # Seed 000: a TOOL_RESULT is at most ~5 KB; long lines up to 1 MB are
    # still read whole (the plugin dead-letters lines above Max_Line_Bytes).
    # A line over Buffer_Max_Size makes tail give up that file (Skip_Long_Lines
    # Off); its lines are not lost: the finalizer (journalship retention)
    # ships what tail left once the session is over.
    Buffer_Max_Size   1M
    Skip_Long_Lines   Off
    # Blank lines are shipped too (annotated corrupt: a torn write).
    Skip_Empty_Lines  Off
    storage.type      filesystem
    # Pause reading (not dropping) when storage.max_chunks_up chunks are
    # queued; the journal files themselves are the buffer beyond that.
    storage.pause_on_chunks_overlimit on
`))
	otherInput = template.Must(template.New("other").Parse(`[INPUT]
{{.Comment}}    Name              tail
    Tag               {{.Tag}}
    Path              {{.Path}}
    Key               log
    Path_Key          file
    Offset_Key        offset
    DB                {{.DB}}
    DB.sync           full
    Read_from_Head    On
    Refresh_Interval  5
    Rotate_Wait       30
    Ignore_Older      2d
    Ignore_Active_Older_Files On
    Buffer_Chunk_Size 16K
    Buffer_Max_Size   1M
    Skip_Long_Lines   Off
    Skip_Empty_Lines  Off
    storage.type      filesystem
    storage.pause_on_chunks_overlimit on
`))
)

// sameSettings ends the comment of every tail input but the first.
const sameSettings = "Its own Tag, Path and DB; every other setting is the first input's, " +
	"for the same reasons (the plugin reads the same record keys; the finalizer and retention " +
	"judge every format's files, so what tail leaves of a file with a line over " +
	"Buffer_Max_Size is shipped once its session or run is over)."

// tailDB is d's tail DB.
func tailDB(d format.Descriptor) string {
	if d.Deploy.DB != "" {
		return path.Join(stateDir, d.Deploy.DB)
	}
	return path.Join(stateDir, "tail-"+d.Name+".db")
}

// confInputs are the formats' tail inputs, in detection order.
func confInputs(s site, ds []format.Descriptor) func(string) string {
	return func(string) string {
		var b strings.Builder
		for i, d := range ds {
			tmpl, about := firstInput, comment("    ", fmt.Sprintf("%s (%s): %s", d.Runtime, d.Doc, s.about(d)))
			if i > 0 {
				b.WriteString("\n")
				tmpl, about = otherInput, about+comment("    ", sameSettings)
			}
			err := tmpl.Execute(&b, inputData{Comment: about, Tag: "sessions." + d.Name,
				Path: s.tailPath(d), DB: tailDB(d)})
			if err != nil {
				panic(err)
			}
		}
		return b.String()
	}
}

// fluentBitConf is what is generated in a Fluent Bit configuration for
// the site.
func fluentBitConf(file string, s site, ds []format.Descriptor) generatedFile {
	return generatedFile{file: file,
		regions: []region{{"journal layouts", confLayouts(s, ds)}, {"journal inputs", confInputs(s, ds)}},
		values:  []lineValue{{"Format_Roots", s.formatRoots(ds)}}}
}

// k8sMounts are a container's mounts of the journal volumes.
func k8sMounts(vols []journalVolume, readOnly bool) func(string) string {
	return func(indent string) string {
		var b strings.Builder
		for _, v := range vols {
			fmt.Fprintf(&b, "%s- name: %s\n%s  mountPath: %s\n", indent, v.name, indent, v.dir)
			if readOnly {
				fmt.Fprintf(&b, "%s  readOnly: true\n", indent)
			}
		}
		return b.String()
	}
}

// k8sVolumes are the journal volumes, hostPaths created where missing:
// the first team's with what each format's hold, the others' after them.
func k8sVolumes(s site, vols []journalVolume) func(string) string {
	return func(indent string) string {
		var b strings.Builder
		var last string
		for i, v := range vols {
			tm := s.teams[v.team]
			switch {
			case i == 0:
				b.WriteString(comment(indent, fmt.Sprintf("%s's journals, under %s.", tm.name, tm.dir)))
			case v.team != vols[i-1].team:
				b.WriteString(comment(indent, fmt.Sprintf("%s's, the same under %s.", tm.name, tm.dir)))
			}
			if v.team == 0 && v.format.Name != last {
				b.WriteString(comment(indent, fmt.Sprintf("%s: %s.", v.format.Name, v.format.Runtime)))
			}
			last = v.format.Name
			fmt.Fprintf(&b, "%s- name: %s\n%s  hostPath:\n%s    path: %s\n%s    type: DirectoryOrCreate\n", indent, v.name, indent, indent, v.dir, indent)
		}
		return b.String()
	}
}

// daemonSet is what is generated in the DaemonSet for the cluster's teams.
func daemonSet(s site, ds []format.Descriptor) generatedFile {
	vols := s.volumes(ds)
	return generatedFile{file: "deploy/daemonset/daemonset.yaml",
		regions: []region{{"fluent-bit's journal mounts", k8sMounts(vols, true)},
			{"retention's journal mounts", k8sMounts(vols, false)}, {"journal volumes", k8sVolumes(s, vols)}},
		values: []lineValue{{"- --root=", s.retentionRoots(ds)}, {"- --format-roots=", s.formatRoots(ds)}}}
}

// composeTeamB are the formats whose journals the compose demo sends to
// its second tenant, team-b; every other format's go to team-a.
var composeTeamB = []string{claudecode.Name, gosession.Name}

// composeTenantRoots is the compose demo's Tenant_Roots: each team's
// formats' roots.
func composeTenantRoots(ds []format.Descriptor) string {
	var a, b []string
	for _, d := range ds {
		if slices.Contains(composeTeamB, d.Name) {
			b = append(b, d.Deploy.Root)
		} else {
			a = append(a, d.Deploy.Root)
		}
	}
	return "team-a=" + strings.Join(a, ":") + ",team-b=" + strings.Join(b, ":")
}

// composeMounts are a service's mounts of the journal volumes.
func composeMounts(vols []journalVolume, readOnly bool) func(string) string {
	return func(indent string) string {
		var b strings.Builder
		for _, v := range vols {
			mode := ""
			if readOnly {
				mode = ":ro"
			}
			fmt.Fprintf(&b, "%s- %s:%s%s\n", indent, v.name, v.dir, mode)
		}
		return b.String()
	}
}

// composeVolumes declares the journal volumes.
func composeVolumes(vols []journalVolume) func(string) string {
	return func(indent string) string {
		var b strings.Builder
		for _, v := range vols {
			fmt.Fprintf(&b, "%s%s:\n", indent, v.name)
		}
		return b.String()
	}
}

// composeFile is what is generated in docker-compose.yml.
func composeFile(ds []format.Descriptor) generatedFile {
	s := site{}
	vols := s.volumes(ds)
	return generatedFile{file: "docker-compose.yml",
		regions: []region{{"fluent-bit's journal volumes", composeMounts(vols, true)},
			{"retention's journal volumes", composeMounts(vols, false)},
			{"simulator's journal volumes", composeMounts(vols, false)}, {"journal volumes", composeVolumes(vols)}},
		values: []lineValue{{"- --root=", s.retentionRoots(ds)}, {"- --format-roots=", s.formatRoots(ds)},
			{"- --tenant-roots=", composeTenantRoots(ds)}}}
}

// clusterSite is the DaemonSet's site: the teams of Tenant_Roots in its
// Fluent Bit configuration, each directly under /data in a directory
// named after it.
func clusterSite(text string) (site, error) {
	c, err := parseFLB("deploy/daemonset/fluent-bit.conf", []byte(text))
	if err != nil {
		return site{}, err
	}
	outs := c.all("OUTPUT", "journalship")
	if len(outs) != 1 {
		return site{}, fmt.Errorf("%d journalship outputs, want one", len(outs))
	}
	roots, err := tenant.ParseRoots(value(outs[0], "Tenant_Roots"))
	if err != nil {
		return site{}, err
	}
	var s site
	for name, dirs := range roots {
		if len(dirs) != 1 || dirs[0] != path.Join(dataDir, name) {
			return site{}, fmt.Errorf("Tenant_Roots %s=%s: a team's directory is %s/<team>", name, strings.Join(dirs, ":"), dataDir)
		}
		s.teams = append(s.teams, team{name: name, dir: dirs[0]})
	}
	if len(s.teams) == 0 {
		return site{}, errors.New("no Tenant_Roots: the cluster's example has a directory per team")
	}
	slices.SortFunc(s.teams, func(a, b team) int { return strings.Compare(a.name, b.name) })
	return s, nil
}

// generatedFiles are the deployment files with generated fragments.
func generatedFiles(t *testing.T, ds []format.Descriptor) []generatedFile {
	t.Helper()
	cluster, err := clusterSite(string(readFile(t, "deploy/daemonset/fluent-bit.conf")))
	require.NoError(t, err, "deploy/daemonset/fluent-bit.conf")
	compose := fluentBitConf("deploy/compose/fluent-bit.conf", site{}, ds)
	compose.values = append(compose.values, lineValue{"Tenant_Roots", composeTenantRoots(ds)})
	return []generatedFile{
		fluentBitConf("fluent-bit.conf", site{}, ds),
		fluentBitConf("deploy/daemonset/fluent-bit.conf", cluster, ds),
		compose,
		daemonSet(cluster, ds),
		composeFile(ds),
		// A new format's models are priced in the built-in table.
		{file: "deploy/daemonset/prices.yaml", copyOf: "pricing/default_prices.yaml"},
	}
}

// deployProblems lists what a descriptor's Deploy lacks or gets wrong
// for the generator.
func deployProblems(ds []format.Descriptor) []string {
	var bad []string
	roots := map[string]string{}
	for _, d := range ds {
		dep := d.Deploy
		problem := func(f string, args ...any) {
			bad = append(bad, fmt.Sprintf("format %s: Descriptor.Deploy: ", d.Name)+fmt.Sprintf(f, args...))
		}
		switch {
		case dep.Root == "":
			problem("no Root: say where the runtime's journals are on a node, under %s", dataDir)
		case path.Clean(dep.Root) != dep.Root || !strings.HasPrefix(dep.Root, dataDir+"/"):
			problem("Root %q is not a clean path under %s", dep.Root, dataDir)
		case roots[dep.Root] != "":
			problem("Root %s is also format %s's", dep.Root, roots[dep.Root])
		}
		roots[dep.Root] = d.Name
		if len(dep.Paths) == 0 {
			problem("no Paths: the tail patterns of its journals under Root")
		}
		for _, p := range slices.Concat(dep.Paths, dep.NotTailed) {
			if p == "" || path.IsAbs(p) || path.Clean(p) != p || strings.HasPrefix(p, "../") || strings.Contains(p, ",") {
				problem("%q is not a clean path relative to Root", p)
			}
		}
		if dep.DB != "" && (path.Base(dep.DB) != dep.DB || path.Ext(dep.DB) != ".db") {
			problem("DB %q is not a file name ending .db", dep.DB)
		}
		if strings.TrimSpace(dep.About) == "" {
			problem("no About: the comment of its tail input")
		}
	}
	return bad
}

// TestGenerated: the deployment fragments made from the registered
// formats are up to date (-update rewrites them), every format declaring
// what they need.
func TestGenerated(t *testing.T) {
	ds := registry.Descriptors()
	require.Empty(t, deployProblems(ds))
	for _, g := range generatedFiles(t, ds) {
		old := string(readFile(t, g.file))
		want, err := g.apply(old)
		require.NoError(t, err, g.file)
		if *update {
			require.NoError(t, os.WriteFile(filepath.Join(repo, g.file), []byte(want), 0o644))
			continue
		}
		assert.Equal(t, want, old, "%s is stale: %s", g.file, regenerate)
	}
	cluster, err := clusterSite(string(readFile(t, "deploy/daemonset/fluent-bit.conf")))
	require.NoError(t, err)
	for _, v := range slices.Concat(site{}.volumes(ds), cluster.volumes(ds)) {
		assert.Empty(t, validation.IsDNS1123Label(v.name), "volume %s of %s", v.name, v.dir)
	}
}

// TestGeneratedCatchesStaleness: a file generated without one format, or
// with a hand-edited generated value, differs from the generated one; a
// file without its markers is an error.
func TestGeneratedCatchesStaleness(t *testing.T) {
	ds := registry.Descriptors()
	require.Empty(t, deployProblems(ds))
	all, fewer := generatedFiles(t, ds), generatedFiles(t, ds[:len(ds)-1])
	for i, g := range all {
		if g.copyOf != "" {
			continue
		}
		text := string(readFile(t, g.file))
		stale, err := fewer[i].apply(text)
		require.NoError(t, err, g.file)
		fresh, err := g.apply(stale)
		require.NoError(t, err, g.file)
		assert.NotEqual(t, stale, fresh, "%s: a format registered since is seen", g.file)
		assert.Equal(t, text, fresh, "%s: regenerating restores it", g.file)
	}
	conf := generatedFiles(t, ds)[0]
	text := string(readFile(t, conf.file))
	edited := strings.Replace(text, "codelia=/data/codelia,", "", 1)
	fresh, err := conf.apply(edited)
	require.NoError(t, err)
	assert.NotEqual(t, edited, fresh, "a hand-edited Format_Roots is seen")
	_, err = conf.apply(strings.Replace(text, endMarker("journal inputs"), "", 1))
	assert.Error(t, err, "a missing marker")
}
