package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/factory"
	"github.com/talops/talops/internal/factory/factorytest"
	"github.com/talops/talops/internal/testlab"
)

// productionLab is the reference lab on the production NVIDIA track with its driver pinned to
// the 570 branch, as a cluster set up on Talos 1.11 would have it.
func productionLab(t *testing.T, talos string) cluster.MapFiles {
	t.Helper()

	files := testlab.Files(t)
	testlab.Unpin(t, files) // the lab moves across minors here
	testlab.SetVersions(t, files, talos, "")
	testlab.SetVersions(t, files, "", "v1.34.1")
	testlab.Edit(t, files, "talops.yaml", "  flavour: lts\n", "  flavour: production\n  driver: \"570\"\n")
	testlab.Edit(t, files, "schematics/gpu.yaml", "nvidia-container-toolkit-lts", "nvidia-container-toolkit-production")
	testlab.Edit(t, files, "schematics/gpu.yaml", "nvidia-open-gpu-kernel-modules-lts", "nvidia-open-gpu-kernel-modules-production")

	return files
}

func TestVersions_PinnedProductionDriverFrom1_11To1_13(t *testing.T) {
	t.Parallel()

	for _, format := range []string{"text", "markdown", "json"} {
		t.Run(format, func(t *testing.T) {
			h := newHarness(t, productionLab(t, "v1.13.9"), nil)
			h.dirs["base"] = productionLab(t, "v1.11.6")

			err := h.run("versions", "--dir", "examples/homelab", "--against", "base", "--format", format)
			if cli.ExitCode(err) != cli.ExitFailure {
				t.Fatalf("exit code %d, want 1 for the broken pin (err %v)\n%s", cli.ExitCode(err), err, h.stderr.String())
			}

			golden(t, "versions-pinned-1.11-to-1.13."+format, h.stdout.String())

			if h.stderr.Len() != 0 {
				t.Errorf("stderr: %s", h.stderr.String())
			}
		})
	}
}

func TestVersions_JSONCarriesTheDriversBeforeAndAfter(t *testing.T) {
	t.Parallel()

	h := newHarness(t, productionLab(t, "v1.13.9"), nil)
	h.dirs["base"] = productionLab(t, "v1.11.6")

	_ = h.run("versions", "--dir", "examples/homelab", "--against", "base", "--format", "json")

	var out struct {
		Summary  string
		Upgrade  struct{ Verdict string }
		GPUNodes []struct {
			Node      string
			Driver    struct{ From, To string }
			PinBroken bool
		}
		Findings []struct{ Code string }
	}

	if err := json.Unmarshal(h.stdout.Bytes(), &out); err != nil {
		t.Fatal(err)
	}

	g := out.GPUNodes
	if out.Upgrade.Verdict != "skips-minor" || len(g) != 1 || g[0].Node != "k8s-node1" || g[0].Driver.From != "570.172.08" || g[0].Driver.To != "595.91.07" || !g[0].PinBroken {
		t.Errorf("versions json = %+v", out)
	}
}

func TestVersions_UnchangedLabIsQuiet(t *testing.T) {
	t.Parallel()

	h := newHarness(t, testlab.Files(t), nil)
	h.dirs["base"] = testlab.Files(t)

	if err := h.run("versions", "--dir", "examples/homelab", "--against", "base"); err != nil {
		t.Fatalf("versions: %v", err)
	}

	// The one note says where the facts about the lab's release came from.
	want := "versions ok: Talos " + testlab.Talos + ", Kubernetes " + testlab.Kubernetes + ", 1 GPU node, 0 errors, 0 warnings, 1 note\n"
	if !strings.HasSuffix(h.stdout.String(), want) {
		t.Errorf("stdout = %q, want it to end with %q", h.stdout.String(), want)
	}
}

func TestVersions_NeedsExactlyOneOtherState(t *testing.T) {
	t.Parallel()

	for _, args := range [][]string{
		{"versions", "--dir", "examples/homelab"},
		{"versions", "--dir", "examples/homelab", "--base", "main", "--against", "base"},
	} {
		h := newHarness(t, testlab.Files(t), nil)

		if err := h.run(args...); cli.ExitCode(err) != cli.ExitFailure {
			t.Fatalf("%v: exit code %d", args, cli.ExitCode(err))
		}

		if h.stderr.String() != "talops: give one of --base REF or --against DIR\n" {
			t.Errorf("%v: stderr = %q", args, h.stderr.String())
		}
	}
}

// TestVersions_BaseFromGitLeavesTheWorkTreeAlone reads the base state from a real git
// repository, the way the action does on a pull request.
func TestVersions_BaseFromGitLeavesTheWorkTreeAlone(t *testing.T) {
	t.Parallel()

	g := newGitLab(t)
	lab, write, git := g.Dir, g.write, g.git

	// A warning both states have: it is not new, so versions must not list it.
	oldWarning := []byte("  files:\n    - path: /var/etc/motd\n      permissions: 0o644\n      op: create\n      content: hello\n")

	base := testlab.Files(t)
	testlab.SetVersions(t, base, "v1.14.6", "")
	base["patches/worker.yaml"] = append(base["patches/worker.yaml"], oldWarning...)
	write(base)
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "base")

	head := testlab.Files(t)
	head["patches/worker.yaml"] = append(head["patches/worker.yaml"], oldWarning...)
	write(head)

	d := cli.OSDeps()

	var stdout, stderr bytes.Buffer
	d.Stdout, d.Stderr, d.Getenv = &stdout, &stderr, testlab.NoEnv
	d.ReleaseCache = "" // the lab's release is derived here, never read from this machine's cache

	if err := cli.Run(context.Background(), d, []string{"versions", "--dir", lab, "--base", "HEAD", "--offline"}); err != nil {
		t.Fatalf("versions: %v\n%s", err, stderr.String())
	}

	for _, want := range []string{
		"Talos       v1.14.6 → v1.14.7  ok",
		// The kernel module's tag carries the Talos release: the base's is read from git.
		"extension gpu/nvidia-open-gpu-kernel-modules-lts  580.196.07-v1.14.6 → 580.196.07-v1.14.7",
		"versions ok: Talos v1.14.6 → v1.14.7",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}

	if strings.Contains(stdout.String(), "config.warning") {
		t.Errorf("a finding both states have is listed as new:\n%s", stdout.String())
	}

	data, err := os.ReadFile(filepath.Join(lab, "talops.yaml"))
	if err != nil || !bytes.Contains(data, []byte("talosVersion: "+testlab.Talos)) {
		t.Errorf("work tree changed: %v\n%s", err, data)
	}
}

// releaseFactory points the Image Factory door at a fake for the release lookups.
func releaseFactory(t *testing.T, h *harness) *factorytest.Server {
	t.Helper()

	fake := factorytest.New(t)
	h.deps.ImageFactory = func(string) (*factory.Client, error) {
		return factory.New(fake.URL(), factory.WithHTTPClient(fake.Client()), factory.WithRetries(0))
	}

	return fake
}

// newerLab is the reference lab on a Talos release newer than any refresh of the embedded
// data will hold.
func newerLab(t *testing.T) cluster.MapFiles {
	files := testlab.Files(t)
	testlab.SetVersions(t, files, "v1.14.99", "")

	return files
}

func releaseCodes(t *testing.T, out []byte) string {
	t.Helper()

	var res struct {
		Findings []struct{ Severity, Code, Message string }
	}

	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}

	var codes []string

	for _, f := range res.Findings {
		if strings.HasPrefix(f.Code, "extension.") || strings.HasPrefix(f.Code, "versions.") || (strings.HasPrefix(f.Code, "nvidia.") && f.Severity != "info") {
			codes = append(codes, f.Severity+" "+f.Code)
		}
	}

	return strings.Join(codes, ", ")
}

func TestValidate_ReleaseNewerThanTheDataComesFromTheFactory(t *testing.T) {
	t.Parallel()

	h := newHarness(t, newerLab(t), nil)
	fake := releaseFactory(t, h)
	fake.ExpectVersions("v1.13.9", "v1.14.0", "v1.14.99")
	// As the factory would list it if nfs-utils had been dropped: the finding proves the
	// fetched list, not a guess from older data, was used.
	fake.ExpectExtensions("v1.14.99",
		factorytest.Ext("siderolabs/qemu-guest-agent", "11.0.2"),
		factorytest.Ext("siderolabs/nvidia-open-gpu-kernel-modules-lts", "580.178.04-v1.14.99"),
		factorytest.Ext("siderolabs/nvidia-container-toolkit-lts", "580.178.04-v1.19.1"),
	)

	_ = h.run("validate", "--dir", "examples/homelab", "--format", "json")

	if got := releaseCodes(t, h.stdout.Bytes()); got != "error extension.unavailable, error extension.unavailable, info versions.release-data" {
		t.Errorf("release findings = %q (nfs-utils in both schematics, and where the data came from)\n%s", got, h.stdout.String())
	}

	if !strings.Contains(h.stdout.String(), "listed by the Image Factory") {
		t.Errorf("the report does not say the factory listed the release:\n%s", h.stdout.String())
	}
}

// A patch release of a known minor, offline: its minor's names and rules, marked derived,
// and no false "unavailable".
func TestValidate_OfflinePatchReleaseIsDerivedFromItsMinor(t *testing.T) {
	t.Parallel()

	h := newHarness(t, newerLab(t), nil)
	releaseFactory(t, h) // expects nothing: any request fails the test

	_ = h.run("validate", "--dir", "examples/homelab", "--format", "json", "--offline")

	if got := releaseCodes(t, h.stdout.Bytes()); got != "info versions.release-data" {
		t.Errorf("release findings = %q\n%s", got, h.stdout.String())
	}

	if !strings.Contains(h.stdout.String(), "derived from the extensions of v1.14.0-rc.1") || !strings.Contains(h.stdout.String(), "was not asked: --offline") {
		t.Errorf("the finding does not say how the data was derived, or why:\n%s", h.stdout.String())
	}
}

// A new minor offline: the hand-kept compatibility entry, and a plain warning that the
// extension data is unknown, never an error and never a false "ok" on the extensions.
func TestValidate_OfflineSaysTheDataIsMissing(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	testlab.SetVersions(t, files, "v1.15.0", "")

	h := newHarness(t, files, nil)
	releaseFactory(t, h) // expects nothing: any request fails the test

	_ = h.run("validate", "--dir", "examples/homelab", "--format", "json", "--offline")

	if got := releaseCodes(t, h.stdout.Bytes()); got != "warning extension.data-missing" {
		t.Errorf("release findings = %q\n%s", got, h.stdout.String())
	}

	for _, want := range []string{"was not asked (--offline)", "hand-kept", "extension data unknown", "talops catalog update"} {
		if !strings.Contains(h.stdout.String(), want) {
			t.Errorf("the finding does not say %q:\n%s", want, h.stdout.String())
		}
	}
}

func TestValidate_ReleaseTheFactoryDoesNotBuild(t *testing.T) {
	t.Parallel()

	h := newHarness(t, newerLab(t), nil)
	fake := releaseFactory(t, h)
	fake.ExpectVersions("v1.13.9", "v1.14.0")

	err := h.run("validate", "--dir", "examples/homelab", "--format", "json")
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d", cli.ExitCode(err))
	}

	if got := releaseCodes(t, h.stdout.Bytes()); got != "error versions.unknown-release" {
		t.Errorf("release findings = %q\n%s", got, h.stdout.String())
	}
}

func TestValidate_OldStyleLabIsCaught(t *testing.T) {
	t.Parallel()

	d := cli.OSDeps()

	var stdout, stderr bytes.Buffer
	d.Stdout, d.Stderr, d.Getenv = &stdout, &stderr, testlab.NoEnv

	err := cli.Run(context.Background(), d, []string{"validate", "--dir", "testdata/homelab-oldstyle", "--offline"})
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d, want 1 (%v)\n%s", cli.ExitCode(err), err, stderr.String())
	}

	golden(t, "validate-oldstyle.text", stdout.String())

	for _, want := range []string{
		"nodes/k8s-node1.yaml:5: error nvidia.talos-mismatch [k8s-node1]",
		"nodes/k8s-node1.yaml:5: error nvidia.flavour-mismatch [k8s-node1]",
		"nodes/k8s-node1.yaml:6: error extension.unavailable [k8s-node1]",
		"nodes/k8s-node1.yaml:6: error nvidia.flavour-mismatch [k8s-node1]",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestPlan_ReleaseNewerThanTheDataIsAskedForOnce(t *testing.T) {
	t.Parallel()

	h := newHarness(t, newerLab(t), nil)
	h.dirs["base"] = newerLab(t)

	fake := releaseFactory(t, h)
	fake.ExpectVersions("v1.13.9", "v1.14.99")
	fake.ExpectExtensions("v1.14.99",
		factorytest.Ext("siderolabs/nfs-utils", "v0.1.1"),
		factorytest.Ext("siderolabs/qemu-guest-agent", "11.0.2"),
		factorytest.Ext("siderolabs/nvidia-open-gpu-kernel-modules-lts", "580.178.04-v1.14.99"),
		factorytest.Ext("siderolabs/nvidia-container-toolkit-lts", "580.178.04-v1.19.1"),
	)

	// Both states name v1.14.99: one /versions and one extensions call (the fake fails a second).
	_ = h.run("plan", "--dir", "examples/homelab", "--against", "base")

	if len(fake.Requests()) != 2 {
		t.Errorf("factory requests = %d, want 2", len(fake.Requests()))
	}
}
