package deploy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/distribution/reference"
	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Dockerfile and .dockerignore

// image is where the Dockerfile puts things in the final image.
type image struct {
	fluentBit   string // the fluent-bit executable (ENTRYPOINT)
	journalship string // the CLI
	plugin      string // out_journalship.so, where COPY puts it
	loads       string // CMD's -e: the plugin Fluent Bit loads
	confDir     string // where fluent-bit.conf is copied
	conf        string // CMD's -c
	exposed     []string
}

func parseDockerfile(t *testing.T, data []byte) ([]instructions.Stage, []string) {
	t.Helper()
	res, err := parser.Parse(bytes.NewReader(data))
	require.NoError(t, err)
	var warnings []string
	lint := linter.New(&linter.Config{Warn: func(rule, desc, _, msg string, _ []parser.Range) {
		warnings = append(warnings, rule+": "+msg)
	}})
	stages, _, err := instructions.Parse(res.AST, lint)
	require.NoError(t, err)
	return stages, warnings
}

// goBuilds maps each `go build -o OUT PKG` of a RUN line to its package
// and the CGO_ENABLED it runs with.
func goBuilds(cmd string) map[string][2]string {
	out := map[string][2]string{}
	for _, seg := range strings.Split(cmd, "&&") {
		f := strings.Fields(seg)
		cgo := ""
		for i, w := range f {
			if v, ok := strings.CutPrefix(w, "CGO_ENABLED="); ok {
				cgo = v
			}
			if w == "-o" && i+1 < len(f) && slices.Contains(f, "build") {
				out[f[i+1]] = [2]string{f[len(f)-1], cgo}
			}
		}
	}
	return out
}

// dockerImage checks the Dockerfile's structure and returns the layout of
// the image it builds.
func dockerImage(t *testing.T) image {
	t.Helper()
	stages, warnings := parseDockerfile(t, readFile(t, "Dockerfile"))
	assert.Empty(t, warnings, "BuildKit's linter")
	require.Len(t, stages, 2)
	build, final := stages[0], stages[1]
	assert.Equal(t, "golang:1.26-bookworm", build.BaseName)
	assert.Equal(t, "build", build.Name)
	assert.Equal(t, "fluent/fluent-bit:5.1.1", final.BaseName)
	for _, s := range stages {
		assertPinned(t, s.BaseName)
	}
	outputs := map[string][2]string{}
	for _, c := range build.Commands {
		if r, ok := c.(*instructions.RunCommand); ok {
			for k, v := range goBuilds(strings.Join(r.CmdLine, " ")) {
				outputs[k] = v
			}
		}
	}
	img := image{}
	for _, c := range final.Commands {
		switch c := c.(type) {
		case *instructions.RunCommand:
			t.Errorf("RUN %q in the final stage: the Fluent Bit image has no shell", c.CmdLine)
		case *instructions.CopyCommand:
			copyInto(t, &img, c, outputs)
		case *instructions.EntrypointCommand:
			require.False(t, c.PrependShell, "exec-form ENTRYPOINT")
			require.Len(t, c.CmdLine, 1)
			img.fluentBit = c.CmdLine[0]
		case *instructions.CmdCommand:
			require.False(t, c.PrependShell, "exec-form CMD")
			img.loads, img.conf = fluentBitArgs(t, c.CmdLine)
		case *instructions.ExposeCommand:
			img.exposed = append(img.exposed, c.Ports...)
		}
	}
	for _, p := range []string{img.fluentBit, img.journalship, img.plugin, img.confDir, img.conf} {
		require.NotEmpty(t, p, "%+v", img)
	}
	return img
}

// copyInto checks one COPY of the final stage and records where it puts
// the plugin, the CLI and the configuration.
func copyInto(t *testing.T, img *image, c *instructions.CopyCommand, outputs map[string][2]string) {
	t.Helper()
	if c.From == "" {
		for _, src := range c.SourcePaths {
			_, err := os.Stat(filepath.Join(repo, src))
			assert.NoError(t, err, "COPY source %s", src)
			if src == "fluent-bit.conf" {
				require.True(t, strings.HasSuffix(c.DestPath, "/"), "copied into a directory")
				img.confDir = c.DestPath
			}
		}
		return
	}
	require.Equal(t, "build", c.From)
	require.Len(t, c.SourcePaths, 1)
	built, ok := outputs[c.SourcePaths[0]]
	require.True(t, ok, "COPY --from=build %s: not a go build output", c.SourcePaths[0])
	switch built[0] {
	case "./plugin":
		assert.Equal(t, "1", built[1], "the plugin is built with cgo")
		img.plugin = c.DestPath
	case "./cmd/journalship":
		img.journalship = c.DestPath
	default:
		t.Errorf("unexpected build output %s of %s", c.SourcePaths[0], built[0])
	}
}

// assertPinned: an image reference with a tag other than latest, or a digest.
func assertPinned(t *testing.T, ref string) {
	t.Helper()
	named, err := reference.ParseNormalizedNamed(ref)
	require.NoError(t, err, ref)
	if _, ok := named.(reference.Digested); ok {
		return
	}
	tagged, ok := named.(reference.Tagged)
	assert.True(t, ok && tagged.Tag() != "latest", "image %s is not pinned", ref)
}

// TestDockerfile: two pinned stages, the make build commands, and an image
// whose CMD loads the plugin it holds and runs the configuration it holds.
func TestDockerfile(t *testing.T) {
	img := dockerImage(t)
	assert.Equal(t, img.plugin, img.loads, "-e loads the .so where the image has it")
	assert.Equal(t, path.Join(img.confDir, "fluent-bit.conf"), img.conf, "CMD runs the copied configuration")
	assert.Subset(t, img.exposed, []string{"2020", "2021", "2022"})
	assert.Equal(t, "/fluent-bit/bin/fluent-bit", img.fluentBit)

	_, warnings := parseDockerfile(t, []byte("FROM golang:1.26 as build\nMAINTAINER me\n"))
	assert.NotEmpty(t, warnings, "the linter does report")
	assert.Equal(t, map[string][2]string{"/o/x.so": {"./plugin", "1"}, "/o/y": {"./cmd/y", "0"}},
		goBuilds("CGO_ENABLED=1 go build -buildmode=c-shared -o /o/x.so ./plugin && CGO_ENABLED=0 go build -o /o/y ./cmd/y"))
}

// goListFiles returns the repository files the plugin's and the CLI's
// packages are built from.
func goListFiles(t *testing.T) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json", "./plugin", "./cmd/journalship")
	cmd.Dir = repo
	out, err := cmd.Output()
	require.NoError(t, err)
	root, err := filepath.Abs(repo)
	require.NoError(t, err)
	files := []string{"go.mod", "go.sum"}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			Dir                                           string
			Module                                        *struct{ Path string }
			GoFiles, CgoFiles, HFiles, CFiles, EmbedFiles []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		if p.Module == nil || p.Module.Path != modulePath {
			continue
		}
		rel, err := filepath.Rel(root, p.Dir)
		require.NoError(t, err)
		for _, f := range slices.Concat(p.GoFiles, p.CgoFiles, p.HFiles, p.CFiles, p.EmbedFiles) {
			files = append(files, filepath.ToSlash(filepath.Join(rel, f)))
		}
	}
	return files
}

func ignored(t *testing.T, patterns []string, files []string) []string {
	t.Helper()
	pm, err := patternmatcher.New(patterns)
	require.NoError(t, err)
	var out []string
	for _, f := range files {
		m, err := pm.MatchesOrParentMatches(f)
		require.NoError(t, err)
		if m {
			out = append(out, f)
		}
	}
	return out
}

// TestDockerignore: nothing the build needs is left out of the context;
// binaries, git and test data are.
func TestDockerignore(t *testing.T) {
	patterns, err := ignorefile.ReadAll(bytes.NewReader(readFile(t, ".dockerignore")))
	require.NoError(t, err)
	files := goListFiles(t)
	require.Contains(t, files, "plugin/out_journalship.go")
	assert.Empty(t, ignored(t, patterns, append(files, "fluent-bit.conf")), "needed by the build")
	assert.Equal(t, []string{".git/HEAD", "bin/loki", "pipeline.test", "audit/testdata/x.jsonl"},
		ignored(t, patterns, []string{".git/HEAD", "bin/loki", "pipeline.test", "audit/testdata/x.jsonl", "go.mod"}))
	assert.NotEmpty(t, ignored(t, append(patterns, "pricing"), files), "the check is real")
}

// fluentBitArgs checks a Fluent Bit command line, exactly "-e PLUGIN -c
// CONF" (the plugin loaded with -e everywhere, no plugins file), and
// returns PLUGIN and CONF.
func fluentBitArgs(t *testing.T, args []string) (plugin, conf string) {
	t.Helper()
	require.Len(t, args, 4, "%q", args)
	require.Equal(t, "-e", args[0], "%q", args)
	require.Equal(t, "-c", args[2], "%q", args)
	return args[1], args[3]
}
