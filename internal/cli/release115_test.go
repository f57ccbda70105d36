package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/testlab"
)

// lab114 is the reference lab on v1.14.7 and Kubernetes 1.37.1 (the config contract stays
// pinned at 1.13, as the lab's is).
func lab114(t *testing.T) cluster.MapFiles {
	t.Helper()

	return testlab.At(t, "v1.14.7", "v1.37.1")
}

// lab115 is lab114 bumped to a 1.15 release.
func lab115(t *testing.T, talos string) cluster.MapFiles {
	t.Helper()

	return testlab.At(t, talos, "v1.37.1")
}

type jsonFinding struct{ Severity, Code, Message, Node string }

func findingsOf(t *testing.T, out []byte) []jsonFinding {
	t.Helper()

	var res struct{ Findings []jsonFinding }
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}

	return res.Findings
}

func codesOf(fs []jsonFinding) string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Severity+" "+f.Code)
	}

	return strings.Join(out, ", ")
}

func TestValidate_Lab1147IsKnownOfflineWithNoUnknownFinding(t *testing.T) {
	t.Parallel()

	h := newHarness(t, lab114(t), nil)
	releaseFactory(t, h) // expects nothing

	if err := h.run("validate", "--dir", "examples/homelab", "--format", "json", "--offline"); err != nil {
		t.Fatalf("validate: %v\n%s", err, h.stdout.String())
	}

	fs := findingsOf(t, h.stdout.Bytes())
	if got := codesOf(fs); got != "info versions.release-data" {
		t.Errorf("findings = %q, want only where the facts came from\n%s", got, h.stdout.String())
	}

	if !strings.Contains(fs[0].Message, "lts 580.196.07") {
		t.Errorf("the note does not give the LTS driver: %s", fs[0].Message)
	}
}

// A release the embedded data lacks is learnt from the factory, kept in the release cache,
// and used from it on the next run, offline, with the day it was learnt.
func TestValidate_Release115IsLearntKeptAndUsedOffline(t *testing.T) {
	t.Parallel()

	cache := t.TempDir()

	h := newHarness(t, lab115(t, "v1.15.0-beta.1"), nil)
	h.deps.ReleaseCache = cache
	fake := releaseFactory(t, h)
	fake.ExpectVersions("v1.14.7", "v1.15.0-alpha.2", "v1.15.0-beta.0", "v1.15.0-beta.1")
	fake.ExpectExtensions("v1.15.0-beta.1", testlab.Listing115("v1.15.0-beta.1")...)

	if err := h.run("validate", "--dir", "examples/homelab", "--format", "json"); err != nil {
		t.Fatalf("validate online: %v\n%s", err, h.stdout.String())
	}

	if got := codesOf(findingsOf(t, h.stdout.Bytes())); got != "info versions.release-data" {
		t.Errorf("online findings = %q\n%s", got, h.stdout.String())
	}

	if !strings.Contains(h.stdout.String(), "listed by the Image Factory") {
		t.Errorf("online: the note does not say the factory listed the release:\n%s", h.stdout.String())
	}

	// The harness keeps what talops writes: put the cache file where the next run reads it.
	kept, ok := h.written[filepath.Join(cache, "releases.json")]
	if !ok || !strings.Contains(string(kept), "620.70.06-v1.15.0-beta.1") {
		t.Fatalf("the learnt release was not kept: %v\n%s", ok, kept)
	}

	if err := os.WriteFile(filepath.Join(cache, "releases.json"), kept, 0o600); err != nil {
		t.Fatal(err)
	}

	// Offline, with a factory that must not be asked: the cache answers.
	h = newHarness(t, lab115(t, "v1.15.0-beta.1"), nil)
	h.deps.ReleaseCache = cache
	releaseFactory(t, h)

	if err := h.run("validate", "--dir", "examples/homelab", "--format", "json", "--offline"); err != nil {
		t.Fatalf("validate offline: %v\n%s", err, h.stdout.String())
	}

	fs := findingsOf(t, h.stdout.Bytes())
	if got := codesOf(fs); got != "info versions.release-data" || !strings.Contains(fs[0].Message, "from the release cache") {
		t.Errorf("offline findings = %q\n%s", got, h.stdout.String())
	}
}

// versions115 runs versions from base to head with the 1.15 listing served by a fake.
func versions115(t *testing.T, base, head cluster.MapFiles, talos string) (string, error) {
	t.Helper()

	h := newHarness(t, head, nil)
	h.dirs["base"] = base
	fake := releaseFactory(t, h)
	fake.ExpectExtensions(talos, testlab.Listing115(talos)...)

	// A base on a release of the embedded data is not asked about.
	if strings.Contains(string(base["talops.yaml"]), "v1.12.7") {
		fake.ExpectVersions("v1.12.7", "v1.14.7", talos)
	} else {
		fake.ExpectVersions("v1.12.7", "v1.14.7", talos).Times(2)
		fake.ExpectExtensions("v1.14.7", testlab.Listing114(t)...)
	}

	err := h.run("versions", "--dir", "examples/homelab", "--against", "base", "--format", "json")

	return h.stdout.String(), err
}

func TestVersions_Bump114To115(t *testing.T) {
	t.Parallel()

	t.Run("clean bump: the floor, the range, the driver move and the toolkit's new role", func(t *testing.T) {
		t.Parallel()

		out, err := versions115(t, lab114(t), lab115(t, "v1.15.0"), "v1.15.0")
		if err != nil {
			t.Fatalf("versions: %v\n%s", err, out)
		}

		var v struct {
			Upgrade         struct{ Verdict, Floor string }
			KubernetesRange string
			GPUNodes        []struct {
				Driver struct{ From, To string }
			}
			Findings []jsonFinding
		}

		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatal(err)
		}

		if v.Upgrade.Verdict != "ok" || v.Upgrade.Floor != "v1.13.0" || v.KubernetesRange != "1.33.0 to 1.38.x" {
			t.Errorf("upgrade %+v, range %q", v.Upgrade, v.KubernetesRange)
		}

		if len(v.GPUNodes) != 1 || v.GPUNodes[0].Driver.From != "580.196.07" || v.GPUNodes[0].Driver.To != "620.70.06" {
			t.Errorf("GPU nodes = %+v", v.GPUNodes)
		}

		if got := codesOf(v.Findings); got != "warning nvidia.toolkit-nri, info versions.release-data, info nvidia.driver-changed" {
			t.Errorf("findings = %q\n%s", got, out)
		}
	})

	t.Run("the proprietary LTS module is gone: replaced by the open one, named", func(t *testing.T) {
		t.Parallel()

		base, head := lab114(t), lab115(t, "v1.15.0")
		for _, files := range []cluster.MapFiles{base, head} {
			testlab.Edit(t, files, "schematics/gpu.yaml", "nvidia-open-gpu-kernel-modules-lts", "nonfree-kmod-nvidia-lts")
		}

		out, err := versions115(t, base, head, "v1.15.0")
		if cli.ExitCode(err) != cli.ExitFailure {
			t.Fatalf("exit %d, want 1\n%s", cli.ExitCode(err), out)
		}

		var found bool

		for _, f := range findingsOf(t, []byte(out)) {
			if f.Code == "extension.unavailable" {
				t.Errorf("the dropped module is also reported unavailable: %s", f.Message)
			}

			if f.Code == "nvidia.open-only" && f.Severity == "error" && strings.Contains(f.Message, "replace it with nvidia-open-gpu-kernel-modules-lts") {
				found = true
			}
		}

		if !found {
			t.Errorf("no nvidia.open-only naming the replacement:\n%s", out)
		}
	})

	t.Run("from a 1.12 host: below the 1.13.0 floor", func(t *testing.T) {
		t.Parallel()

		base := lab114(t)
		testlab.Unpin(t, base) // a 1.12 host cannot have the 1.13 contract
		testlab.Edit(t, base, "talops.yaml", "talosVersion: v1.14.7", "talosVersion: v1.12.7")
		testlab.Edit(t, base, "talops.yaml", "kubernetesVersion: v1.37.1", "kubernetesVersion: v1.35.2")

		head := lab115(t, "v1.15.0")
		testlab.Edit(t, head, "talops.yaml", "kubernetesVersion: v1.37.1", "kubernetesVersion: v1.35.2")

		out, err := versions115(t, base, head, "v1.15.0")
		if cli.ExitCode(err) != cli.ExitFailure || !strings.Contains(out, `"verdict": "below-floor"`) || !strings.Contains(out, "versions.upgrade-unsupported") {
			t.Errorf("exit %d, %v\n%s", cli.ExitCode(err), err, out)
		}
	})

	t.Run("Kubernetes 1.32 under 1.15: outside 1.33 to 1.38", func(t *testing.T) {
		t.Parallel()

		base := lab114(t)
		testlab.Edit(t, base, "talops.yaml", "kubernetesVersion: v1.37.1", "kubernetesVersion: v1.32.9")

		head := lab115(t, "v1.15.0")
		testlab.Edit(t, head, "talops.yaml", "kubernetesVersion: v1.37.1", "kubernetesVersion: v1.32.9")

		out, err := versions115(t, base, head, "v1.15.0")
		if cli.ExitCode(err) != cli.ExitFailure || !strings.Contains(out, "versions.k8s-unsupported") || !strings.Contains(out, "1.33.0") {
			t.Errorf("exit %d\n%s", cli.ExitCode(err), out)
		}
	})
}

// The new-feature track: refused on 1.14 (module and nvidia.flavour), accepted on 1.15.
func TestValidate_NewFeatureTrackFrom115On(t *testing.T) {
	t.Parallel()

	newFeature := func(files cluster.MapFiles) {
		testlab.Edit(t, files, "talops.yaml", "  flavour: lts\n", "  flavour: new-feature\n")
		testlab.Edit(t, files, "schematics/gpu.yaml", "nvidia-container-toolkit-lts", "nvidia-container-toolkit-new-feature")
		testlab.Edit(t, files, "schematics/gpu.yaml", "nvidia-open-gpu-kernel-modules-lts", "nvidia-open-gpu-kernel-modules-new-feature")
	}

	on114 := lab114(t)
	newFeature(on114)

	h := newHarness(t, on114, nil)
	releaseFactory(t, h)

	err := h.run("validate", "--dir", "examples/homelab", "--format", "json", "--offline")
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("1.14: exit %d\n%s", cli.ExitCode(err), h.stdout.String())
	}

	var refused int

	for _, f := range findingsOf(t, h.stdout.Bytes()) {
		switch {
		case f.Code == "nvidia.track-unavailable" && f.Severity == "error":
			refused++
		case f.Severity == "error":
			t.Errorf("1.14: another error: %s %s", f.Code, f.Message)
		}
	}

	// nvidia.flavour, the kernel module and the toolkit.
	if refused != 3 {
		t.Errorf("1.14: %d nvidia.track-unavailable errors, want 3\n%s", refused, h.stdout.String())
	}

	on115 := lab115(t, "v1.15.0")
	newFeature(on115)

	h = newHarness(t, on115, nil)
	fake := releaseFactory(t, h)
	fake.ExpectVersions("v1.15.0")
	fake.ExpectExtensions("v1.15.0", testlab.Listing115("v1.15.0")...)

	if err := h.run("validate", "--dir", "examples/homelab", "--format", "json"); err != nil {
		t.Fatalf("1.15: %v\n%s", err, h.stdout.String())
	}
}
