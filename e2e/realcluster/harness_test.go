//go:build realtalos && k8s && cluster

package realcluster

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
	"testing"
	"time"
)

// The harness: where its scripts are, where it keeps its work, and the talops binary built
// once for every test.
var (
	harness string
	work    string
	talops  string
)

func TestMain(m *testing.M) {
	code, err := setup(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "realcluster:", err)
		os.Exit(1)
	}

	os.Exit(code)
}

func setup(m *testing.M) (int, error) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")

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

	// Idempotent: seconds when everything is built.
	build := exec.Command("bash", filepath.Join(harness, "build.sh"))
	build.Env = append(os.Environ(), "ETCD=1", "K8S=1", "REALTALOS_WORK="+work)
	if out, err := build.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("build the harness: %w\n%s", err, tail(out))
	}

	tmp, err := os.MkdirTemp("", "talops-e2e-cluster-")
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

func tail(out []byte) []byte {
	if len(out) > 4000 {
		return out[len(out)-4000:]
	}

	return out
}

func script(t *testing.T, timeout time.Duration, name string, args ...string) string {
	t.Helper()

	return run(t, timeout, "bash", append([]string{filepath.Join(harness, name)}, args...)...)
}

func run(t *testing.T, timeout time.Duration, name string, args ...string) string {
	t.Helper()

	out, err := runErr(timeout, name, args...)
	if err != nil {
		t.Fatal(err)
	}

	return out
}

// runErr runs a harness command with the harness's work directory.
func runErr(timeout time.Duration, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	var stdout, stderr bytes.Buffer

	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "REALTALOS_WORK="+work)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr

	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w\n%s%s", filepath.Base(name), strings.Join(args, " "), err, stdout.String(), tail(stderr.Bytes()))
	}

	return stdout.String(), nil
}

// result is what one talops command did.
type result struct {
	stdout, stderr string
	code           int
}

// talopsStart runs the talops binary with args and the environment env (nothing else of the
// test's environment but PATH and HOME) in the background: the result comes on the channel
// (code -1 when it could not run). It is killed after timeout.
func talopsStart(t *testing.T, timeout time.Duration, env []string, args ...string) <-chan result {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), timeout)

	ch := make(chan result, 1)
	cmd := exec.CommandContext(ctx, talops, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)

	var stdout, stderr bytes.Buffer

	cmd.Stdout, cmd.Stderr = &stdout, &stderr

	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("talops %s: %v", strings.Join(args, " "), err)
	}

	t.Cleanup(cancel) // it may have ended

	go func() {
		err := cmd.Wait()

		r := result{stdout: stdout.String(), stderr: stderr.String()}

		var exit *exec.ExitError

		switch {
		case err == nil:
		case errors.As(err, &exit):
			r.code = exit.ExitCode()
		default:
			r.code, r.stderr = -1, err.Error()
		}

		ch <- r
	}()

	return ch
}

// talopsRun runs talops like talopsStart and waits for it.
func talopsRun(t *testing.T, timeout time.Duration, env []string, args ...string) result {
	t.Helper()

	r := <-talopsStart(t, timeout, env, args...)
	t.Logf("talops %s → exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)

	return r
}

// eventually polls check every 2 seconds until it holds, failing the test after within.
func eventually(t *testing.T, what string, within time.Duration, check func() bool) {
	t.Helper()

	deadline := time.Now().Add(within)
	for !check() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, within)
		}

		time.Sleep(2 * time.Second)
	}
}
