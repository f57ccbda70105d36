// Package binary_test runs the talops binary as a user does: built once, executed with a
// temporary cache and no network, against the reference lab written to a directory, with a
// loopback Image Factory fake where a release must be learnt.
package binary_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/factory/factorytest"
	"github.com/talops/talops/internal/testlab"
)

// talops is the binary TestMain built.
var talops string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "talops-binary-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}

	talops = filepath.Join(dir, "talops")

	build := exec.Command("go", "build", "-o", talops, "./cmd/talops")
	build.Dir = testlab.Root()

	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build talops: %v\n%s", err, out)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}

	code := m.Run()

	_ = os.RemoveAll(dir)
	os.Exit(code)
}

type finding struct{ Severity, Code, Message string }

// result is what a run of the binary gave back.
type result struct {
	exit     int
	stdout   string
	stderr   string
	findings []finding
}

// has reports whether a finding of that severity and code was given, with every part of
// want in its message.
func (r result) has(severity, code string, want ...string) bool {
	for _, f := range r.findings {
		if f.Severity != severity || f.Code != code {
			continue
		}

		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(f.Message, w)
		}

		if ok {
			return true
		}
	}

	return false
}

func (r result) codes() string {
	var out []string
	for _, f := range r.findings {
		out = append(out, f.Severity+" "+f.Code)
	}

	return strings.Join(out, ", ")
}

func (r result) count(severity string) int {
	n := 0

	for _, f := range r.findings {
		if f.Severity == severity {
			n++
		}
	}

	return n
}

// run executes talops in dir with only a home and a cache of the test's own: nothing of
// the environment the tests run in reaches it.
func run(t *testing.T, cache string, args ...string) result {
	t.Helper()

	cmd := exec.Command(talops, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"HOME=" + t.TempDir(), "TALOPS_CACHE_DIR=" + cache, "PATH=" + os.Getenv("PATH")}

	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr

	r := result{}

	err := cmd.Run()

	var exit *exec.ExitError

	switch {
	case errors.As(err, &exit):
		r.exit = exit.ExitCode()
	case err != nil:
		t.Fatalf("run talops %s: %v", strings.Join(args, " "), err)
	}

	r.stdout, r.stderr = stdout.String(), stderr.String()

	var out struct{ Findings []finding }
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("talops %s: the output is not JSON: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, r.stdout, r.stderr)
	}

	r.findings = out.Findings

	return r
}

// write puts a lab in a new directory and returns it.
func write(t *testing.T, files cluster.MapFiles) string {
	t.Helper()

	dir := t.TempDir()

	for name, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}

		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	return dir
}

// lab is the reference lab on a Talos and Kubernetes release, asking fake for what it
// does not know ("" for none).
func lab(t *testing.T, talos, kubernetes string, fake *factorytest.Server) cluster.MapFiles {
	t.Helper()

	files := testlab.At(t, talos, kubernetes)
	if fake != nil {
		testlab.Edit(t, files, "talops.yaml", "platform: nocloud\n", "platform: nocloud\nimageFactory: "+fake.URL()+"\n")
	}

	return files
}

// gpuOn moves the GPU worker to another kernel module and container toolkit.
func gpuOn(t *testing.T, files cluster.MapFiles, kmod, toolkit string) {
	t.Helper()

	testlab.Edit(t, files, "schematics/gpu.yaml", "siderolabs/nvidia-open-gpu-kernel-modules-lts", "siderolabs/"+kmod)
	testlab.Edit(t, files, "schematics/gpu.yaml", "siderolabs/nvidia-container-toolkit-lts", "siderolabs/"+toolkit)
}

// bump114To115 serves a fake factory that lists v1.14.7 and v1.15.0, as a versions or plan
// run from a v1.14.7 base to a v1.15.0 head asks it: the versions once, each release's
// extensions once.
func bump114To115(t *testing.T) *factorytest.Server {
	t.Helper()

	fake := factorytest.New(t)
	fake.ExpectVersions("v1.12.7", "v1.14.7", "v1.15.0")
	fake.ExpectExtensions("v1.14.7", testlab.Listing114(t)...)
	fake.ExpectExtensions("v1.15.0", testlab.Listing115("v1.15.0")...)

	return fake
}

// The reference lab as shipped, on v1.14.7 with the LTS driver 580.196.07.
func TestBinary_Lab1147ValidatesOfflineWithNoUnknownFinding(t *testing.T) {
	t.Parallel()

	r := run(t, t.TempDir(), "validate", "--offline", "--format", "json", "--dir", testlab.Dir())

	if r.exit != 0 || r.codes() != "info versions.release-data" {
		t.Fatalf("exit %d, findings %q; want 0 and only where the facts came from\n%s%s", r.exit, r.codes(), r.stdout, r.stderr)
	}

	if !r.has("info", "versions.release-data", "Talos v1.14.7", "lts 580.196.07", "--offline") {
		t.Errorf("the note does not say the release was derived offline with the LTS driver:\n%s", r.stdout)
	}
}

func TestBinary_Bump114To115(t *testing.T) {
	t.Parallel()

	t.Run("clean bump: a clean plan, the toolkit's bare tag read and its new role explained", func(t *testing.T) {
		t.Parallel()

		fake := bump114To115(t)
		base := write(t, lab(t, "v1.14.7", "v1.37.1", fake))
		head := write(t, lab(t, "v1.15.0", "v1.37.1", fake))
		cache := t.TempDir()

		r := run(t, cache, "plan", "--dir", head, "--against", base, "--format", "json")
		if r.exit != 0 || r.count("error") != 0 {
			t.Fatalf("plan: exit %d, findings %q\n%s%s", r.exit, r.codes(), r.stdout, r.stderr)
		}

		var p struct {
			Summary struct {
				Blocked bool
				Upgrade int
				Line    string
			}
		}

		if err := json.Unmarshal([]byte(r.stdout), &p); err != nil {
			t.Fatal(err)
		}

		if p.Summary.Blocked || p.Summary.Upgrade != 5 || !strings.Contains(p.Summary.Line, "v1.14.7 → v1.15.0") {
			t.Errorf("summary %+v, want five upgrades v1.14.7 → v1.15.0, not blocked", p.Summary)
		}

		if !r.has("warning", "nvidia.toolkit-nri", "GPU Operator") {
			t.Errorf("no nvidia.toolkit-nri advice: %q\n%s", r.codes(), r.stdout)
		}

		if r.has("warning", "extension.data-missing") {
			t.Errorf("the factory's listing was not used: %q\n%s", r.codes(), r.stdout)
		}

		// The same bump judged by versions, offline: both releases come from the cache the
		// plan filled. The 1.15 toolkit's bare tag ("620.70.06") is read as the driver alone:
		// no container toolkit version on the 1.15 side.
		r = run(t, cache, "versions", "--offline", "--dir", head, "--against", base, "--format", "json")
		if r.exit != 0 || r.count("error") != 0 {
			t.Fatalf("versions: exit %d, findings %q\n%s%s", r.exit, r.codes(), r.stdout, r.stderr)
		}

		var v struct {
			Upgrade         struct{ Verdict, Floor string }
			KubernetesRange string
			GPUNodes        []struct{ Driver, Toolkit struct{ From, To string } }
		}

		if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
			t.Fatal(err)
		}

		if v.Upgrade.Verdict != "ok" || v.Upgrade.Floor != "v1.13.0" || v.KubernetesRange != "1.33.0 to 1.38.x" {
			t.Errorf("upgrade %+v, Kubernetes range %q", v.Upgrade, v.KubernetesRange)
		}

		if len(v.GPUNodes) != 1 || v.GPUNodes[0].Driver.From != "580.196.07" || v.GPUNodes[0].Driver.To != "620.70.06" || v.GPUNodes[0].Toolkit.To != "" {
			t.Errorf("GPU nodes %+v, want the driver 580.196.07 → 620.70.06 and no toolkit version on 1.15", v.GPUNodes)
		}

		if !r.has("info", "versions.release-data", "from the release cache") {
			t.Errorf("offline, the facts did not come from the cache: %q\n%s", r.codes(), r.stdout)
		}
	})

	t.Run("the proprietary LTS module is gone from 1.15: refused, the open one named", func(t *testing.T) {
		t.Parallel()

		fake := bump114To115(t)
		baseFiles, headFiles := lab(t, "v1.14.7", "v1.37.1", fake), lab(t, "v1.15.0", "v1.37.1", fake)
		gpuOn(t, baseFiles, "nonfree-kmod-nvidia-lts", "nvidia-container-toolkit-lts")
		gpuOn(t, headFiles, "nonfree-kmod-nvidia-lts", "nvidia-container-toolkit-lts")

		r := run(t, t.TempDir(), "versions", "--dir", write(t, headFiles), "--against", write(t, baseFiles), "--format", "json")

		if r.exit != 1 || !r.has("error", "nvidia.open-only", "replace it with nvidia-open-gpu-kernel-modules-lts") {
			t.Errorf("exit %d, findings %q; want 1 and nvidia.open-only naming the replacement\n%s%s", r.exit, r.codes(), r.stdout, r.stderr)
		}
	})

	t.Run("from a 1.12 host: below the 1.13.0 floor", func(t *testing.T) {
		t.Parallel()

		fake := factorytest.New(t)
		fake.ExpectVersions("v1.12.7", "v1.14.7", "v1.15.0")
		fake.ExpectExtensions("v1.15.0", testlab.Listing115("v1.15.0")...)

		baseFiles := lab(t, "v1.12.7", "v1.35.2", fake)
		testlab.Unpin(t, baseFiles) // a 1.12 host cannot have the 1.13 contract

		r := run(t, t.TempDir(), "versions", "--dir", write(t, lab(t, "v1.15.0", "v1.35.2", fake)), "--against", write(t, baseFiles), "--format", "json")

		if r.exit != 1 || !r.has("error", "versions.upgrade-unsupported") || !strings.Contains(r.stdout, `"verdict": "below-floor"`) {
			t.Errorf("exit %d, findings %q; want 1 and the upgrade refused below the floor\n%s%s", r.exit, r.codes(), r.stdout, r.stderr)
		}
	})

	t.Run("Kubernetes 1.32 under 1.15: outside 1.33 to 1.38", func(t *testing.T) {
		t.Parallel()

		fake := bump114To115(t)
		base := write(t, lab(t, "v1.14.7", "v1.32.9", fake))
		head := write(t, lab(t, "v1.15.0", "v1.32.9", fake))

		r := run(t, t.TempDir(), "versions", "--dir", head, "--against", base, "--format", "json")

		if r.exit != 1 || !r.has("error", "versions.k8s-unsupported", "1.33.0") {
			t.Errorf("exit %d, findings %q; want 1 and Kubernetes refused with the 1.15 range\n%s%s", r.exit, r.codes(), r.stdout, r.stderr)
		}
	})
}

// The new-feature track: refused on 1.14 (offline: its data has no such track), accepted on
// 1.15 as the factory lists it.
func TestBinary_NewFeatureTrackFrom115On(t *testing.T) {
	t.Parallel()

	newFeature := func(files cluster.MapFiles) string {
		testlab.Edit(t, files, "talops.yaml", "  flavour: lts\n", "  flavour: new-feature\n")
		gpuOn(t, files, "nvidia-open-gpu-kernel-modules-new-feature", "nvidia-container-toolkit-new-feature")

		return write(t, files)
	}

	r := run(t, t.TempDir(), "validate", "--offline", "--format", "json", "--dir", newFeature(lab(t, "v1.14.7", "v1.37.1", nil)))
	if r.exit != 1 || r.count("error") != 3 || !r.has("error", "nvidia.track-unavailable") {
		t.Errorf("1.14: exit %d, findings %q; want 1 and nvidia.track-unavailable for the setting, the module and the toolkit\n%s%s", r.exit, r.codes(), r.stdout, r.stderr)
	}

	for _, f := range r.findings {
		if f.Severity == "error" && f.Code != "nvidia.track-unavailable" {
			t.Errorf("1.14: another error: %s %s", f.Code, f.Message)
		}
	}

	fake := factorytest.New(t)
	fake.ExpectVersions("v1.15.0")
	fake.ExpectExtensions("v1.15.0", testlab.Listing115("v1.15.0")...)

	r = run(t, t.TempDir(), "validate", "--format", "json", "--dir", newFeature(lab(t, "v1.15.0", "v1.37.1", fake)))
	if r.exit != 0 || r.count("error") != 0 {
		t.Errorf("1.15: exit %d, findings %q; want 0 and no error\n%s%s", r.exit, r.codes(), r.stdout, r.stderr)
	}
}
