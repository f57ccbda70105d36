package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/factory/factorytest"
	"github.com/talops/talops/internal/testlab"
)

// exactPinLab is the reference lab on Talos talos with its LTS driver pinned to the exact
// version pin, the comment beside the pin included.
func exactPinLab(t *testing.T, talos, kubernetes, pin string) cluster.MapFiles {
	t.Helper()

	files := testlab.At(t, talos, kubernetes)
	testlab.Edit(t, files, "talops.yaml", "  flavour: lts\n", "  flavour: lts\n  driver: \""+pin+"\"   # exact, moved by talops versions --fix-driver-pin\n")

	return files
}

// pinHarness is a harness whose writes land in the head repository it serves.
func pinHarness(t *testing.T, head, base cluster.MapFiles) (*harness, *int) {
	t.Helper()

	h := newHarness(t, head, nil)
	h.dirs["base"] = base
	writes := 0
	h.deps.WriteFile = func(name string, data []byte, _ os.FileMode) error {
		rel, err := filepath.Rel("examples/homelab", name)
		if err != nil {
			return err
		}

		head[filepath.ToSlash(rel)] = data
		writes++

		return nil
	}

	return h, &writes
}

// A Talos patch that moves the LTS driver 580.173.02 → 580.178.04 within its branch: the
// exact pin moves in the same change, the line alone, and the bump is then clean.
func TestVersions_FixDriverPinMovesAnExactPinWithinItsBranch(t *testing.T) {
	t.Parallel()

	head := exactPinLab(t, "v1.13.9", "v1.36.4", "580.173.02")
	want := strings.Replace(string(head["talops.yaml"]), `"580.173.02"`, `"580.178.04"`, 1)

	h, writes := pinHarness(t, head, exactPinLab(t, "v1.13.8", "v1.36.4", "580.173.02"))

	if err := h.run("versions", "--dir", "examples/homelab", "--against", "base", "--fix-driver-pin"); err != nil {
		t.Fatalf("versions: %v\n%s%s", err, h.stdout.String(), h.stderr.String())
	}

	golden(t, "versions-fix-driver-pin.text", h.stdout.String())

	if got := string(head["talops.yaml"]); got != want || *writes != 1 {
		t.Errorf("%d writes; talops.yaml =\n%s\nwant\n%s", *writes, got, want)
	}
}

// The head release is newer than the embedded data: its driver comes from the Image
// Factory's extension listing, and the pin follows it.
func TestVersions_FixDriverPinReadsTheDriverFromTheFactoryListing(t *testing.T) {
	t.Parallel()

	head := exactPinLab(t, "v1.14.99", "", "580.196.07")
	h, _ := pinHarness(t, head, exactPinLab(t, testlab.Talos, "", "580.196.07"))

	fake := releaseFactory(t, h)
	// Both releases are newer than the embedded listings: each is asked for once.
	fake.ExpectVersions("v1.14.7", "v1.14.99").Times(2)
	fake.ExpectExtensions("v1.14.7",
		factorytest.Ext("siderolabs/nfs-utils", "v0.1.1"),
		factorytest.Ext("siderolabs/qemu-guest-agent", "11.0.2"),
		factorytest.Ext("siderolabs/nvidia-open-gpu-kernel-modules-lts", "580.196.07-v1.14.7"),
		factorytest.Ext("siderolabs/nvidia-container-toolkit-lts", "580.196.07-v1.19.1"),
	)
	fake.ExpectExtensions("v1.14.99",
		factorytest.Ext("siderolabs/nfs-utils", "v0.1.1"),
		factorytest.Ext("siderolabs/qemu-guest-agent", "11.0.2"),
		factorytest.Ext("siderolabs/nvidia-open-gpu-kernel-modules-lts", "580.199.02-v1.14.99"),
		factorytest.Ext("siderolabs/nvidia-container-toolkit-lts", "580.199.02-v1.19.1"),
	)

	if err := h.run("versions", "--dir", "examples/homelab", "--against", "base", "--fix-driver-pin", "--format", "markdown"); err != nil {
		t.Fatalf("versions: %v\n%s%s", err, h.stdout.String(), h.stderr.String())
	}

	golden(t, "versions-fix-driver-pin-factory.md", h.stdout.String())

	if !strings.Contains(string(head["talops.yaml"]), "  driver: \"580.199.02\"   # exact") {
		t.Errorf("talops.yaml:\n%s", head["talops.yaml"])
	}
}

// A pin that would have to cross branches, or a branch pin, is never rewritten: the
// nvidia.driver-pin finding stays the answer, and the step fails.
func TestVersions_FixDriverPinNeverCrossesBranches(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name     string
		pin      string
		from, to string
	}{
		{name: "an exact pin of the old branch", pin: "570.211.01", from: "v1.12.11", to: "v1.13.9"},
		{name: "a branch pin", pin: "570", from: "v1.11.6", to: "v1.13.9"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			lab := func(talos string) cluster.MapFiles {
				files := productionLab(t, talos)
				testlab.Edit(t, files, "talops.yaml", `driver: "570"`, `driver: "`+tt.pin+`"`)

				return files
			}

			head := lab(tt.to)
			before := string(head["talops.yaml"])
			h, writes := pinHarness(t, head, lab(tt.from))

			err := h.run("versions", "--dir", "examples/homelab", "--against", "base", "--fix-driver-pin")
			if cli.ExitCode(err) != cli.ExitFailure {
				t.Fatalf("exit code %d, want 1 for the broken pin (%v)", cli.ExitCode(err), err)
			}

			if *writes != 0 || string(head["talops.yaml"]) != before {
				t.Errorf("talops.yaml written %d times:\n%s", *writes, head["talops.yaml"])
			}

			if !strings.Contains(h.stdout.String(), "error nvidia.driver-pin [k8s-node1] nvidia.driver: Talos "+tt.from+" → "+tt.to) || strings.Contains(h.stdout.String(), "\nnvidia.driver ") {
				t.Errorf("stdout:\n%s", h.stdout.String())
			}
		})
	}
}
