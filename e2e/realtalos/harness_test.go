//go:build realtalos

package realtalos

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The harness: where its scripts are, where it keeps its work, and the talops binary
// built once for every test.
var (
	harness string
	work    string
	talops  string
)

func TestMain(m *testing.M) {
	code, err := setup(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "realtalos:", err)
		os.Exit(1)
	}

	os.Exit(code)
}

func setup(m *testing.M) (int, error) {
	root := repoRoot()

	harness = os.Getenv("REALTALOS_HARNESS")
	if harness == "" {
		harness = filepath.Join(root, "e2e", "harness")
	}

	if _, err := os.Stat(filepath.Join(harness, "start.sh")); err != nil {
		return 0, fmt.Errorf("no harness at %s (set REALTALOS_HARNESS): %w", harness, err)
	}

	work = os.Getenv("REALTALOS_WORK")
	if work == "" {
		work = filepath.Join(os.TempDir(), "realtalos")
	}

	// Idempotent: seconds when everything is built, the whole build on a fresh machine.
	build := exec.Command("bash", filepath.Join(harness, "build.sh"))
	build.Env = append(append(os.Environ(), harnessModes...), "REALTALOS_WORK="+work)
	if out, err := build.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("build the harness: %w\n%s", err, tail(out))
	}

	tmp, err := os.MkdirTemp("", "talops-e2e-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp) //nolint:errcheck // a leftover temporary directory fails nothing

	talops = filepath.Join(tmp, "talops")

	gobuild := exec.Command("go", "build", "-o", talops, "./cmd/talops")
	gobuild.Dir = root
	if out, err := gobuild.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("build talops: %w\n%s", err, out)
	}

	return m.Run(), nil
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)

	return filepath.Join(filepath.Dir(file), "..", "..")
}

func tail(out []byte) []byte {
	if len(out) > 4000 {
		return out[len(out)-4000:]
	}

	return out
}

// addresses hands every node its own loopback address, so each listens on the Talos
// API port as a real node does.
var nextAddress atomic.Int32

func newAddress() string {
	return fmt.Sprintf("127.0.77.%d", nextAddress.Add(1))
}

// node is a running real Talos node.
type node struct {
	name    string
	address string
}

// endpoint is where its Talos API answers.
func (n node) endpoint() string { return n.address + ":50000" }

// startNode boots a real node from config on address and stops it when the test ends.
func startNode(t *testing.T, name, address string, config []byte) node {
	t.Helper()

	cfg := filepath.Join(t.TempDir(), name+".yaml")
	if err := os.WriteFile(cfg, config, 0o600); err != nil {
		t.Fatal(err)
	}

	n := node{name: name, address: address}

	t.Cleanup(func() { n.stop(t) })

	script(t, 3*time.Minute, "start.sh", "-c", cfg, name, n.endpoint())

	return n
}

func (n node) stop(t *testing.T) {
	t.Helper()

	if t.Failed() {
		log, _ := os.ReadFile(filepath.Join(work, "nodes", n.name, "machined.log"))
		t.Logf("machined.log of %s (tail):\n%s", n.name, tail(log))
	}

	script(t, time.Minute, "stop.sh", n.name)
}

// bootstrapEtcd imports the etcd image into the node and bootstraps it, as the first
// control plane of a new cluster is bootstrapped.
func (n node) bootstrapEtcd(t *testing.T, talosconfig string) {
	t.Helper()

	run(t, 3*time.Minute, filepath.Join(work, "bin", "rtclient"), "etcd", "-addr", n.endpoint(), "-talosconfig", talosconfig, "-image", filepath.Join(work, "images", "etcd.tar"))
}

// reboot emulates a reboot as the harness can: the node stops and boots again from its
// saved state and config (container mode refuses the Reboot call itself).
func (n node) reboot(t *testing.T) {
	t.Helper()

	script(t, time.Minute, "stop.sh", n.name)
	runEnv(t, []string{"KEEP_STATE=1"}, 3*time.Minute, "bash", filepath.Join(harness, "start.sh"), n.name, n.endpoint())
}

func script(t *testing.T, timeout time.Duration, name string, args ...string) string {
	t.Helper()

	return run(t, timeout, "bash", append([]string{filepath.Join(harness, name)}, args...)...)
}

func run(t *testing.T, timeout time.Duration, name string, args ...string) string {
	t.Helper()

	return runEnv(t, nil, timeout, name, args...)
}

func runEnv(t *testing.T, env []string, timeout time.Duration, name string, args ...string) string {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	var stdout, stderr bytes.Buffer

	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(append(os.Environ(), "REALTALOS_WORK="+work), env...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr

	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", filepath.Base(name), strings.Join(args, " "), err, stdout.String(), tail(stderr.Bytes()))
	}

	return stdout.String()
}

// result is what one talops command did.
type result struct {
	stdout, stderr string
	code           int
}

// talopsRun runs the talops binary with args and the environment env (nothing else of
// the test's environment but PATH and HOME), within a generous bound.
func talopsRun(t *testing.T, env []string, args ...string) result {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	var stdout, stderr bytes.Buffer

	cmd := exec.CommandContext(ctx, talops, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr

	err := cmd.Run()

	r := result{stdout: stdout.String(), stderr: stderr.String()}

	var exit *exec.ExitError

	switch {
	case err == nil:
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	default:
		t.Fatalf("talops %s: %v", strings.Join(args, " "), err)
	}

	t.Logf("talops %s → exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)

	return r
}
