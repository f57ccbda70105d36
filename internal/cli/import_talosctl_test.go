package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/encoder"
	"github.com/siderolabs/talos/pkg/machinery/config/generate"
	gensecrets "github.com/siderolabs/talos/pkg/machinery/config/generate/secrets"
	"github.com/siderolabs/talos/pkg/machinery/config/machine"

	"github.com/talops/talops/internal/importer/importtest"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/secrets/sops"
)

// talosctlDir is what talosctl gen config writes (the same machinery, with comments) into
// a directory, with the bundle's secret values.
func talosctlDir(t *testing.T) (string, []string) {
	t.Helper()

	return talosctlDirWith(t, "ghcr.io/siderolabs/installer:v1.13.7")
}

// talosctlDirWith is talosctlDir with the configs installing image.
func talosctlDirWith(t *testing.T, image string) (string, []string) {
	t.Helper()

	contract, err := coreconfig.ParseContractFromVersion("v1.13.7")
	if err != nil {
		t.Fatal(err)
	}

	b, err := gensecrets.NewBundle(gensecrets.NewFixedClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), contract)
	if err != nil {
		t.Fatal(err)
	}

	in, err := generate.NewInput("lab", "https://10.0.0.10:6443", "1.36.2", generate.WithVersionContract(contract),
		generate.WithSecretsBundle(b), generate.WithInstallImage(image), generate.WithInstallDisk("/dev/sda"))
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()

	for name, typ := range map[string]machine.Type{"controlplane.yaml": machine.TypeControlPlane, "worker.yaml": machine.TypeWorker} {
		cfg, err := in.Config(typ)
		if err != nil {
			t.Fatal(err)
		}

		data, err := cfg.EncodeBytes(encoder.WithComments(encoder.CommentsAll))
		if err != nil {
			t.Fatal(err)
		}

		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	return dir, (&secrets.Bundle{Bundle: b}).Values()
}

func TestImportTalosctl_SecretsGoToAnEncryptedBundleTheConfigsRenderBackAndValidate(t *testing.T) {
	id, keyFile := ageKey(t)
	src, values := talosctlDir(t)

	// A per-node config beside them: a worker with a label of its own.
	worker := string(readFile(t, filepath.Join(src, "worker.yaml")))
	node := filepath.Join(t.TempDir(), "10.0.0.12.yaml")

	if err := os.WriteFile(node, []byte(strings.Replace(worker, "machine:\n", "machine:\n    nodeLabels:\n        rack: r1\n", 1)), 0o600); err != nil {
		t.Fatal(err)
	}

	h := newDiskHarness(t)
	h.env["SOPS_AGE_KEY_FILE"] = keyFile
	repo := filepath.Join(t.TempDir(), "repo")
	rendered := filepath.Join(t.TempDir(), "rendered")

	if err := h.run("import", "talosctl", "--from", src, "--out", repo, "--age-recipient", id.Recipient().String(), node); err != nil {
		t.Fatalf("import: %v\n%s", err, h.stderr.String())
	}

	out := h.stdout.String()

	if !sops.IsEncrypted(readFile(t, filepath.Join(repo, "secrets.sops.yaml"))) {
		t.Fatal("the bundle is not encrypted")
	}

	if err := h.run("render", "--dir", repo, "--out", rendered); err != nil {
		t.Fatalf("render: %v\n%s", err, h.stderr.String())
	}

	if err := h.run("validate", "--dir", repo, "--offline"); err != nil {
		t.Fatalf("validate: %v\n%s", err, h.stdout.String())
	}

	for nodeName, file := range map[string]string{
		"controlplane": filepath.Join(src, "controlplane.yaml"), "worker": filepath.Join(src, "worker.yaml"), "10-0-0-12": node,
	} {
		diffs, err := importtest.Compare(readFile(t, file), readFile(t, filepath.Join(rendered, nodeName+".yaml")))
		if err != nil {
			t.Fatal(err)
		}

		if len(diffs) > 0 {
			t.Errorf("%s renders otherwise than %s: %q", nodeName, file, diffs)
		}
	}

	err := filepath.WalkDir(repo, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(p, "secrets.sops.yaml") {
			return err
		}

		for _, v := range values {
			if strings.Contains(string(readFile(t, p)), v) || strings.Contains(out, v) {
				t.Fatalf("%s (or the output) holds a secret of the bundle", p)
			}
		}

		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
