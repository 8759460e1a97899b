package childproc

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeArg as the first argument makes the test binary run fakeServer
// instead of the tests: childproc's tests start this binary as their server.
const fakeArg = "-childproc.fake"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == fakeArg {
		os.Exit(fakeServer(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// fakeServer behaves as args[0] says, serving GET /ready on 127.0.0.1:args[1]
// where it serves at all; args[2] is the configuration file, printed.
//   - serve: 200 on /ready; exits 0 at SIGTERM.
//   - stubborn: serve, but ignores SIGTERM.
//   - notready: 503 on /ready.
//   - hang: never listens.
//   - exit: fails at once with exit status 3.
//   - clash: reports a port clash and exits 1.
//   - clash-once: clash on the first attempt in this data dir, then serve.
func fakeServer(args []string) int {
	mode, port := args[0], args[1]
	if len(args) > 2 && args[2] != "" {
		body, err := os.ReadFile(args[2])
		fmt.Printf("fake: config %q, err %v\n", body, err)
	}
	status, term := http.StatusOK, make(chan os.Signal, 1)
	switch mode {
	case "exit":
		fmt.Println(`fake: msg="bad config"`)
		return 3
	case "clash":
		fmt.Println("fake: listen tcp 127.0.0.1:" + port + ": bind: address already in use")
		return 1
	case "clash-once":
		if _, err := os.Stat("clashed"); err != nil {
			_ = os.WriteFile("clashed", nil, 0o644)
			fmt.Println("fake: bind: address already in use")
			return 1
		}
	case "hang":
		fmt.Println("fake: starting")
		time.Sleep(time.Hour)
		return 0
	case "stubborn":
		signal.Ignore(syscall.SIGTERM) // and term never fires
	case "notready":
		status = http.StatusServiceUnavailable
	}
	if mode != "stubborn" {
		signal.Notify(term, syscall.SIGTERM)
	}
	return serve(port, status, term)
}

// serve answers GET /ready with status until term fires.
func serve(port string, status int, term <-chan os.Signal) int {
	ln, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		fmt.Println("fake:", err)
		return 1
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ready", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) })
	go func() { _ = http.Serve(ln, mux) }()
	fmt.Println("fake: started")
	<-term
	fmt.Println("fake: stopping")
	return 0
}

// fakeConfig returns a Config that runs the test binary as a fake server
// in mode.
func fakeConfig(t *testing.T, mode string) Config {
	t.Helper()
	bin, err := os.Executable()
	require.NoError(t, err)
	return Config{
		Name:       "fake",
		Binary:     bin,
		Hint:       "it is the test binary",
		ConfigName: "fake.conf",
		ReadyPath:  "/ready",
		Render: func(a Attempt) ([]byte, []string, error) {
			return []byte("ports " + fmt.Sprint(a.Ports)), []string{fakeArg, mode, strconv.Itoa(a.Ports[0]), a.ConfigPath}, nil
		},
	}
}

// script writes an executable file with body, for binaries that are not
// this test binary.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "script")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o755))
	return p
}
