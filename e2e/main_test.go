package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// artefacts are the binaries the tests drive.
type artefacts struct {
	root    string // module root
	workDir string // temp dir for built artefacts
	plugin  string // out_journalship.so
	flbhost string // the C host
}

var bins artefacts

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "journalship-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if bins, err = prepare(dir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building artefacts:", err)
		return 1
	}
	defer stopSharedLoki()
	return m.Run()
}

// prepare takes the artefacts from the environment or builds them in dir.
func prepare(dir string) (artefacts, error) {
	a := artefacts{workDir: dir}
	out, err := command("", "go", "env", "GOMOD")
	if err != nil {
		return a, err
	}
	a.root = filepath.Dir(strings.TrimSpace(out))
	if a.plugin, err = fromEnv("JOURNALSHIP_PLUGIN"); err == nil && a.plugin == "" {
		a.plugin, err = buildPlugin(a.root, filepath.Join(dir, "out_journalship.so"), nil)
	}
	if err != nil {
		return a, err
	}
	if a.flbhost, err = fromEnv("JOURNALSHIP_FLBHOST"); err == nil && a.flbhost == "" {
		a.flbhost, err = buildHost(a.root, filepath.Join(dir, "flbhost"))
	}
	return a, err
}

// fromEnv returns the absolute path named by the variable, "" when unset.
func fromEnv(name string) (string, error) {
	p := os.Getenv(name)
	if p == "" {
		return "", nil
	}
	abs, err := filepath.Abs(p)
	if err == nil {
		_, err = os.Stat(abs)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return abs, nil
}

// buildPlugin builds ./plugin as a c-shared library at out, with extra
// environment variables env and build tags.
func buildPlugin(root, out string, env []string, tags ...string) (string, error) {
	args := []string{"build", "-buildmode=c-shared", "-o", out}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	_, err := commandEnv(root, env, "go", append(args, "./plugin")...)
	return out, err
}

// buildHost compiles tools/flbhost/flbhost.c against fluent-bit-go's headers.
func buildHost(root, out string) (string, error) {
	dir, err := command(root, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/fluent/fluent-bit-go")
	if err != nil {
		return "", err
	}
	inc := "-I" + filepath.Join(strings.TrimSpace(dir), "output")
	_, err = command(root, "gcc", "-O1", "-Wall", "-Werror", "-pthread", "-o", out,
		filepath.Join(root, "tools", "flbhost", "flbhost.c"), "-ldl", inc)
	return out, err
}

// command runs name in dir and returns its stdout.
func command(dir, name string, args ...string) (string, error) {
	return commandEnv(dir, nil, name, args...)
}

// commandEnv is command with extra environment variables.
func commandEnv(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "CGO_ENABLED=1"), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

var valgrindPlugin struct {
	once sync.Once
	path string
	err  error
}

// valgrindBuildEnv makes debug info Valgrind 3.19 (Debian 12) can read:
// it does not handle the DWARF 5 forms Go >= 1.25 and GCC 12 emit.
var valgrindBuildEnv = []string{"GOEXPERIMENT=nodwarf5", "CGO_CFLAGS=-O2 -g -gdwarf-4"}

// pluginForValgrind returns a plugin built with -tags valgrind (Go >= 1.25
// then describes its heap and stacks to Valgrind), built once on demand.
func pluginForValgrind(t testing.TB) string {
	t.Helper()
	valgrindPlugin.once.Do(func() {
		if valgrindPlugin.path, valgrindPlugin.err = fromEnv("JOURNALSHIP_PLUGIN_VALGRIND"); valgrindPlugin.err == nil && valgrindPlugin.path == "" {
			valgrindPlugin.path, valgrindPlugin.err = buildPlugin(bins.root,
				filepath.Join(bins.workDir, "out_journalship_valgrind.so"), valgrindBuildEnv, "valgrind")
		}
	})
	if valgrindPlugin.err != nil {
		t.Fatalf("building the valgrind plugin: %v", valgrindPlugin.err)
	}
	return valgrindPlugin.path
}

// requireValgrind reports whether Valgrind must be present: in CI
// (CI=true; `make test` installs it) or when JOURNALSHIP_REQUIRE_VALGRIND
// asks for it.
func requireValgrind() bool {
	v, _ := strconv.ParseBool(os.Getenv("JOURNALSHIP_REQUIRE_VALGRIND"))
	return v || os.Getenv("CI") == "true"
}
