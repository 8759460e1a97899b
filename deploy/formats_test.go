package deploy

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	composetypes "github.com/compose-spec/compose-go/v2/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/retention"
	"github.com/journalship/journalship/tenant"
)

// Every journal format's default layout, tailed by every shipped
// configuration into the journalship output, and mounted where it runs.

// layoutValues fill a format's Layouts() placeholders with an example. A
// placeholder missing here fails the test: add it.
var layoutValues = strings.NewReplacer(
	"<job_id>", "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789",
	"<YYYYMMDDTHHMMSSZ>", "20260223T143022Z",
	"<pod>", "agent-worker-7b9f4-xk2n3",
	"YYYY/MM/DD", "2026/02/03",
	"<run_id>", "8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a",
	"<session_id>", exampleSession,
	"<project>", exampleProject,
	"<session>", exampleClaudeSession,
	"<agent>", exampleAgent,
	"rollout-YYYY-MM-DDThh-mm-ss", "rollout-2026-02-03T14-30-22",
)

const (
	exampleSession       = "ses_5f0a"
	exampleProject       = "-home-dev-app" // a Claude Code project: the encoded working directory
	exampleClaudeSession = "0f8e3c2a-5b4d-4c7e-9a1b-2c3d4e5f6a7b"
	exampleAgent         = "a1b2c3d4"
)

// journalCase is one default layout of one format, as a configuration
// deploys it.
type journalCase struct {
	format  format.Format
	layout  string
	root    string   // the format's root in Format_Roots
	journal string   // an example journal of the layout under root
	side    []string // the files beside it no tail input may read (Deploy.NotTailed)
	// reads: the format's state reads the side files (format.SideFiles),
	// so they must be visible where the journal is.
	reads bool
}

func (c journalCase) String() string { return c.format.Name() + " " + c.journal }

// defaultRoot is the absolute default root a layout names ("(root
// /data/sessions)"); a root like ~/.codelia is not a node path.
var defaultRoot = regexp.MustCompile(`\(root (/[^;)\s]+)`)

// contentLayout tells whether a layout is found by its content alone ("any
// *.jsonl whose first line is ..."), in no place of its own: no tail input
// reads it by default (its root is configured like any other).
func contentLayout(layout string) bool { return strings.HasPrefix(layout, "any ") }

// pathLayouts are a format's layouts under its root, less those its
// descriptor keeps from the tail inputs (a layout whose example is one of
// its Deploy.NotTailed: Codex's archived rollouts, moved there from a
// tailed path).
func pathLayouts(f format.Format) []string {
	d, _ := descriptorOf(f.Name())
	return slices.DeleteFunc(f.Layouts(), func(layout string) bool {
		if contentLayout(layout) {
			return true
		}
		tmpl, _, _ := strings.Cut(layout, " (")
		rest, _ := strings.CutPrefix(tmpl, "<root>/")
		return slices.Contains(d.Deploy.NotTailed, rest)
	})
}

// layoutExample builds an example journal of layout under root.
func layoutExample(layout, root string) (string, error) {
	tmpl, _, _ := strings.Cut(layout, " (")
	rest, ok := strings.CutPrefix(tmpl, "<root>/")
	if !ok {
		return "", fmt.Errorf("layout %q does not start with <root>/", layout)
	}
	return fillExample(root, rest)
}

// fillExample is the path rel (with Layouts' placeholders) under root,
// its placeholders filled by layoutValues.
func fillExample(root, rel string) (string, error) {
	p := path.Join(root, layoutValues.Replace(rel))
	if strings.ContainsAny(p, "<>") || strings.Contains(p, "YYYY") {
		return "", fmt.Errorf("%q: a placeholder layoutValues does not fill (%s)", rel, p)
	}
	return p, nil
}

// notTailed are the examples of d's Deploy.NotTailed under root.
func notTailed(d format.Descriptor, root string) ([]string, error) {
	var out []string
	for _, rel := range d.Deploy.NotTailed {
		p, err := fillExample(root, rel)
		if err != nil {
			return nil, fmt.Errorf("Deploy.NotTailed: %w", err)
		}
		out = append(out, p)
	}
	return out, nil
}

// descriptorOf returns the registered descriptor of the format named name.
func descriptorOf(name string) (format.Descriptor, bool) {
	i := slices.IndexFunc(registry.Descriptors(), func(d format.Descriptor) bool { return d.Name == name })
	if i < 0 {
		return format.Descriptor{}, false
	}
	return registry.Descriptors()[i], true
}

// journalCases lists, for every registered format, each of its default
// layouts under each of its roots in the output's Format_Roots (one, or one
// per team), with the problems found on the way (a format without a root,
// a root away from the layout's default outside a team's directory, a
// layout the test cannot fill, an example its own format does not claim
// cleanly).
func journalCases(out flbSection) ([]journalCase, []string) {
	var cases []journalCase
	var bad []string
	roots, err := registry.ParseRoots(setting(out, "Format_Roots"))
	if err != nil {
		return nil, []string{err.Error()}
	}
	teams, err := tenant.ParseRoots(setting(out, "Tenant_Roots"))
	if err != nil {
		return nil, []string{err.Error()}
	}
	for _, f := range registry.All() {
		name := f.Name()
		d, ok := descriptorOf(name)
		if !ok {
			bad = append(bad, fmt.Sprintf("format %s has no registered descriptor", name))
			continue
		}
		if len(roots[name]) == 0 {
			bad = append(bad, fmt.Sprintf("format %s has no root in Format_Roots: the roots its tail input reads", name))
			continue
		}
		for _, root := range roots[name] {
			side, err := notTailed(d, root)
			if err != nil {
				bad = append(bad, fmt.Sprintf("format %s: %v", name, err))
				continue
			}
			for _, layout := range pathLayouts(f) {
				// A team's directory holds its runtimes wherever it is;
				// elsewhere a runtime's journals are where it writes them
				// by default.
				if m := defaultRoot.FindStringSubmatch(layout); m != nil && m[1] != root && teamOf(teams, root) == "" {
					bad = append(bad, fmt.Sprintf("format %s: root %s, but its layout's default is %s", name, root, m[1]))
				}
				journal, err := layoutExample(layout, root)
				if err != nil {
					bad = append(bad, fmt.Sprintf("format %s: %v", name, err))
					continue
				}
				p, claimed := f.Claim(journal)
				if !claimed || p.Problem != "" {
					bad = append(bad, fmt.Sprintf("format %s: the example %s is not one of its journals (%s)", name, journal, p.Problem))
					continue
				}
				_, reads := f.NewState(p).(format.SideFiles)
				cases = append(cases, journalCase{format: f, layout: layout, root: root, journal: journal, side: side, reads: reads})
			}
		}
	}
	return cases, bad
}

// globMatch tells whether tail's Path (comma-separated patterns) matches
// file as glob(3) does: `*`, `?` and `[...]` within one path segment, and a
// leading dot only matched by a pattern segment that starts with one.
func globMatch(patterns, file string) bool {
	for _, pattern := range strings.Split(patterns, ",") {
		ps, fs := strings.Split(strings.TrimSpace(pattern), "/"), strings.Split(file, "/")
		if len(ps) != len(fs) {
			continue
		}
		ok := true
		for i := range ps {
			m, err := path.Match(ps[i], fs[i])
			if err != nil || !m || strings.HasPrefix(fs[i], ".") && !strings.HasPrefix(ps[i], ".") {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// globDir is the directory a tail Path starts from: its segments before
// the first with a wildcard. glob(3) must be able to open it: while it is
// missing tail logs "read error" at every rescan. A Path of several
// patterns starts from each one's: their directories, comma-separated,
// when they differ.
func globDir(patterns string) string {
	var dirs []string
	for _, pattern := range strings.Split(patterns, ",") {
		pattern = strings.TrimSpace(pattern)
		segs := strings.Split(pattern, "/")
		dir := path.Dir(pattern)
		if i := slices.IndexFunc(segs, func(s string) bool { return strings.ContainsAny(s, "*?[") }); i >= 0 {
			dir = strings.Join(segs[:i], "/")
		}
		if !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	return strings.Join(dirs, ",")
}

// globDirOf is the directory the pattern of a tail Path that matches file
// starts from ("" when none matches): with a pattern per team, each
// team's journals are found from its own directory.
func globDirOf(patterns, file string) string {
	for _, pattern := range strings.Split(patterns, ",") {
		if globMatch(pattern, file) {
			return globDir(pattern)
		}
	}
	return ""
}

// tailedBy returns the tail inputs whose Path matches file.
func tailedBy(ins []flbSection, file string) []flbSection {
	var out []flbSection
	for _, in := range ins {
		if p, _ := in.get("Path"); globMatch(p, file) {
			out = append(out, in)
		}
	}
	return out
}

// tailProblems checks a configuration against every format's default
// layout: each example journal is read by exactly one tail input, routed
// to the journalship output and detected as its format by its path within
// Format_Roots; no side file is read by any; every tail input reads some
// format's journals.
func tailProblems(c flbConf) []string {
	outs := c.all("OUTPUT", "journalship")
	if len(outs) != 1 {
		return []string{fmt.Sprintf("%d journalship outputs, want one", len(outs))}
	}
	out := outs[0]
	cases, bad := journalCases(out)
	ins := c.all("INPUT", "tail")
	cfg := registry.DefaultConfig()
	cfg.Format = setting(out, "Format")
	cfg.Roots, _ = registry.ParseRoots(setting(out, "Format_Roots"))
	reg, err := registry.New(cfg)
	if err != nil {
		return append(bad, err.Error())
	}
	used := map[int]bool{}
	for _, jc := range cases {
		by := tailedBy(ins, jc.journal)
		if len(by) != 1 {
			bad = append(bad, fmt.Sprintf("%s (%s): read by %d tail inputs, want one", jc, jc.layout, len(by)))
		}
		for _, in := range by {
			used[in.Entries[0].Line] = true
			if tag := tailTag(in, jc.journal); !routes(out, tag) {
				bad = append(bad, fmt.Sprintf("%s: tag %s is not routed to the journalship output", jc, tag))
			}
		}
		if d := reg.Detect(jc.journal, nil); d.Format.Name() != jc.format.Name() || d.How != "path" {
			bad = append(bad, fmt.Sprintf("%s: detected as %s by %s, want %s by path", jc, d.Format.Name(), d.How, jc.format.Name()))
		}
		for _, sf := range jc.side {
			if by := tailedBy(ins, sf); len(by) > 0 {
				bad = append(bad, fmt.Sprintf("%s: side file %s is tailed (Path %s)", jc, sf, value(by[0], "Path")))
			}
		}
	}
	for _, in := range ins {
		if !used[in.Entries[0].Line] {
			bad = append(bad, fmt.Sprintf("%s:%d: tail input (Path %s) reads no format's default layout", c.Path, in.Entries[0].Line, value(in, "Path")))
		}
	}
	return bad
}

// TestEveryFormatIsTailed: in each shipped configuration, every
// registered format's default layout is tailed by one input of its own,
// into the journalship output, side files excluded; and the check is real.
func TestEveryFormatIsTailed(t *testing.T) {
	require.Empty(t, deployProblems(registry.Descriptors()), "every format says where it is deployed")
	for _, p := range flbConfPaths {
		c := loadFLB(t, p)
		cases, bad := journalCases(c.only(t, "OUTPUT", "journalship"))
		assert.Empty(t, bad, p)
		underRoot := map[string]bool{}
		for _, jc := range cases {
			underRoot[jc.format.Name()+" "+jc.layout] = true
		}
		for _, f := range registry.All() {
			for _, layout := range pathLayouts(f) {
				assert.True(t, underRoot[f.Name()+" "+layout], "%s: %s %s under a root", p, f.Name(), layout)
			}
		}
		assert.Empty(t, tailProblems(c), p)
	}
	base := string(readFile(t, "fluent-bit.conf"))
	codeliaPath := "/data/codelia/sessions/[0-9][0-9][0-9][0-9]/[0-9][0-9]/[0-9][0-9]/*.jsonl"
	codexDated := "/data/codex/sessions/[0-9][0-9][0-9][0-9]/[0-9][0-9]/[0-9][0-9]/rollout-*.jsonl"
	codexOld := "/data/codex/sessions/rollout-*.jsonl"
	claudePath := "/data/claude/projects/*/*.jsonl,/data/claude/projects/*/*/subagents/agent-*.jsonl"
	for name, change := range map[string][2]string{
		"a glob missing the subagents":       {claudePath, "/data/claude/projects/*/*.jsonl"},
		"a glob reading the sidecars too":    {claudePath, "/data/claude/projects/*/*.jsonl,/data/claude/projects/*/*/subagents/agent-*"},
		"a subagent glob one level too deep": {claudePath, "/data/claude/projects/*/*.jsonl,/data/claude/projects/*/*/*/subagents/agent-*.jsonl"},
		"a glob reading the snapshots too":   {codeliaPath, "/data/codelia/sessions/*/*"},
		"a glob reading the token index too": {"/data/orbitmesh/sessions/*.messages.jsonl", "/data/orbitmesh/sessions/*json*"},
		"a glob missing the layout":          {codeliaPath, "/data/codelia/sessions/*/*.jsonl"},
		"a tag the output does not take":     {"Tag               sessions.orbitmesh\n", "Tag               other.orbitmesh\n"},
		"a format without its root":          {",orbitmesh=/data/orbitmesh,", ","},
		"Claude Code without its root":       {",claude-code=/data/claude/projects,", ","},
		"go-session without its root":        {",go-session=/data/go-session\n", "\n"},
		"a glob missing the transcript":      {"/data/go-session/*/messages.jsonl,/data/go-session/*/transcript.jsonl", "/data/go-session/*/messages.jsonl"},
		"a glob reading metadata.json too":   {"/data/go-session/*/messages.jsonl,/data/go-session/*/transcript.jsonl", "/data/go-session/*/*.json*"},
		"a root elsewhere than tail reads":   {"codelia=/data/codelia,", "codelia=/home/agent/.codelia,"},
		"Cortex Plane away from its default": {"cortex=/data/sessions,", "cortex=/srv/sessions,"},
		"two inputs reading one journal":     {"/data/orbitmesh/sessions/*.messages.jsonl", "/data/orbitmesh/sessions/*.messages.jsonl,/data/sessions/*/*.jsonl"},
		"Codex's dated rollouts not read":    {codexDated + ",", ""},
		"Codex's archive read too":           {codexOld, codexOld + ",/data/codex/archived_sessions/rollout-*.jsonl"},
		"Codex's prompt history read too":    {codexOld, codexOld + ",/data/codex/*.jsonl"},
		"Codex's home read whole":            {codexOld, "/data/codex/*/*"},
	} {
		require.Equal(t, 1, strings.Count(base, change[0]), name)
		c, err := parseFLB(name, []byte(strings.Replace(base, change[0], change[1], 1)))
		require.NoError(t, err)
		assert.NotEmpty(t, tailProblems(c), "%s is caught", name)
	}
}

// TestGlobMatch: the matcher the tests read tail's Path with behaves as
// glob(3) where it matters here.
func TestGlobMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, file string
		want          bool
	}{
		{"/data/sessions/*/*.jsonl", "/data/sessions/job/session_1_pod.jsonl", true},
		{"/data/sessions/*/*.jsonl", "/data/sessions/a/b/c.jsonl", false}, // * stays within a segment
		{"/data/sessions/*/*.jsonl", "/data/sessions/job/.hidden.jsonl", false},
		{"/d/[0-9][0-9]/*.jsonl", "/d/07/x.jsonl", true},
		{"/d/[0-9][0-9]/*.jsonl", "/d/st/x.jsonl", false},
		{"/a/*.log,/d/*.jsonl", "/d/x.jsonl", true},
	} {
		assert.Equal(t, c.want, globMatch(c.pattern, c.file), "%s ~ %s", c.pattern, c.file)
	}
	assert.Equal(t, "/data/codelia/sessions", globDir("/data/codelia/sessions/[0-9][0-9][0-9][0-9]/*.jsonl"))
	assert.Equal(t, "/d", globDir("/d/*/*.jsonl, /d/*/*/s/a-*.jsonl"), "patterns starting from one directory")
	assert.Equal(t, "/d,/e/f", globDir("/d/*.jsonl,/e/f/*.jsonl"))
	assert.Equal(t, "/e/f", globDirOf("/d/*.jsonl,/e/f/*.jsonl", "/e/f/x.jsonl"), "the pattern that reads the file")
	assert.Empty(t, globDirOf("/d/*.jsonl", "/e/x.jsonl"))
}

// under tells whether p is dir or inside it.
func under(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// nodeMount returns the container's mount of a hostPath volume that holds
// p at the same path as on the node.
func nodeMount(ds *appsv1.DaemonSet, ctr corev1.Container, p string) (corev1.VolumeMount, *corev1.HostPathVolumeSource, bool) {
	for _, m := range ctr.VolumeMounts {
		for _, v := range ds.Spec.Template.Spec.Volumes {
			if v.Name == m.Name && v.HostPath != nil && v.HostPath.Path == m.MountPath && under(p, m.MountPath) {
				return m, v.HostPath, true
			}
		}
	}
	return corev1.VolumeMount{}, nil, false
}

// inputFor returns the tail input that reads the case's journal.
func inputFor(t *testing.T, c flbConf, jc journalCase) flbSection {
	t.Helper()
	by := tailedBy(c.all("INPUT", "tail"), jc.journal)
	require.Len(t, by, 1, "%s: one tail input (TestEveryFormatIsTailed)", jc)
	return by[0]
}

// TestDaemonSetMountsEveryJournalRoot: Fluent Bit sees every format's
// journals at the node's own paths (tail reports a file by its path; the
// ledger and retention key on it), read-only; the directory each tail Path
// starts from is a hostPath created where missing (a node without that
// runtime still runs the pod, and tail finds the directory); the side
// files a format reads are visible too; where retention sees journals, it
// may delete them.
func TestDaemonSetMountsEveryJournalRoot(t *testing.T) {
	c := build(t)
	conf := clusterConf(t)
	cases, bad := journalCases(conf.only(t, "OUTPUT", "journalship"))
	require.Empty(t, bad)
	flb, ret := container(t, c.ds, "fluent-bit"), container(t, c.ds, "retention")
	for _, jc := range cases {
		m, hp, ok := nodeMount(c.ds, flb, jc.journal)
		if !assert.True(t, ok, "%s: fluent-bit mounts no hostPath holding it at the node's path", jc) {
			continue
		}
		assert.True(t, m.ReadOnly, "%s: fluent-bit mounts %s read-only", jc, m.MountPath)
		require.NotNil(t, hp.Type, jc.String())
		assert.Equal(t, corev1.HostPathDirectoryOrCreate, *hp.Type, "%s: %s is created where missing", jc, hp.Path)
		dir := globDirOf(value(inputFor(t, conf, jc), "Path"), jc.journal)
		assert.Equal(t, hp.Path, dir, "%s: the tail Path starts from the hostPath itself, which exists", jc)
		if jc.reads {
			for _, sf := range jc.side {
				_, _, ok := nodeMount(c.ds, flb, sf)
				assert.True(t, ok, "%s: the plugin reads %s: mounted too", jc, sf)
			}
		}
		rm, rhp, ok := nodeMount(c.ds, ret, jc.journal)
		if assert.True(t, ok, "%s: retention sweeps every format's root: it mounts it", jc) {
			assert.False(t, rm.ReadOnly, "%s: retention mounts %s to delete there", jc, rm.MountPath)
			assert.Equal(t, hp.Path, rhp.Path, "%s: retention sees the files Fluent Bit ships", jc)
		}
	}
	assert.ElementsMatch(t, formatRoots(cases), retention.ParseRoots(flagArgs(ret.Args)["root"]),
		"retention's --root lists every format's root in Format_Roots")
}

// formatRoots returns the distinct roots of the cases, in order.
func formatRoots(cases []journalCase) []string {
	var out []string
	for _, jc := range cases {
		if !slices.Contains(out, jc.root) {
			out = append(out, jc.root)
		}
	}
	return out
}

// composeMount returns the service's volume holding p.
func composeMount(s composetypes.ServiceConfig, p string) (composetypes.ServiceVolumeConfig, bool) {
	for _, v := range s.Volumes {
		if under(p, v.Target) {
			return v, true
		}
	}
	return composetypes.ServiceVolumeConfig{}, false
}

// TestComposeMountsEveryJournalRoot: in docker compose too, Fluent Bit
// sees every format's journals where its configuration tails them,
// read-only, in declared volumes whose mount point is the directory the
// tail Path starts from; the side files a format reads too; retention may
// delete where it sees journals.
func TestComposeMountsEveryJournalRoot(t *testing.T) {
	p := compose(t)
	conf := loadFLB(t, "deploy/compose/fluent-bit.conf")
	cases, bad := journalCases(conf.only(t, "OUTPUT", "journalship"))
	require.Empty(t, bad)
	flb, ret, sim := mustService(t, p, "fluent-bit"), mustService(t, p, "retention"), mustService(t, p, "simulator")
	simRoots, err := registry.ParseRoots(flagArgs(sim.Command)["format-roots"])
	require.NoError(t, err)
	for _, jc := range cases {
		assert.Equal(t, []string{jc.root}, simRoots[jc.format.Name()], "%s: the simulator writes it under its Format_Roots root", jc)
		if sv, ok := composeMount(sim, jc.journal); assert.True(t, ok, "%s: the simulator mounts where it writes", jc) {
			assert.False(t, sv.ReadOnly, jc.String())
		}
		v, ok := composeMount(flb, jc.journal)
		if !assert.True(t, ok, "%s: fluent-bit mounts no volume holding it", jc) {
			continue
		}
		assert.True(t, v.ReadOnly, "%s: fluent-bit mounts %s read-only", jc, v.Target)
		assert.Equal(t, composetypes.VolumeTypeVolume, v.Type, "%s: a named volume", jc)
		_, declared := p.Volumes[v.Source]
		assert.True(t, declared, "%s: volume %s is declared", jc, v.Source)
		assert.Equal(t, v.Target, globDirOf(value(inputFor(t, conf, jc), "Path"), jc.journal), "%s: the tail Path starts from the mount point, which exists", jc)
		if jc.reads {
			for _, sf := range jc.side {
				sv, ok := composeMount(flb, sf)
				assert.True(t, ok && sv.Source == v.Source, "%s: the plugin reads %s: in the same volume", jc, sf)
			}
		}
		if sv, ok := composeMount(sim, jc.journal); ok {
			assert.Equal(t, v.Source, sv.Source, "%s: Fluent Bit tails what the simulator writes", jc)
		}
		rv, ok := composeMount(ret, jc.journal)
		if assert.True(t, ok, "%s: retention sweeps every format's root: it mounts it", jc) {
			assert.False(t, rv.ReadOnly, "%s: retention mounts %s to delete there", jc, rv.Target)
			assert.Equal(t, v.Source, rv.Source, "%s: retention sees the files Fluent Bit ships", jc)
		}
	}
	assert.ElementsMatch(t, formatRoots(cases), retention.ParseRoots(flagArgs(ret.Command)["root"]),
		"retention's --root lists every format's root in Format_Roots")
}
