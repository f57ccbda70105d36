package cli_test

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talops/talops/internal/importer/importtest"
)

// topfTestdata is a topf repository of the importer's testdata.
func topfTestdata(dir string) string {
	return filepath.Join("..", "importer", "topf", "testdata", dir)
}

// topfCompare holds every node's render to topf's own (topf-render/<host>.yaml): no
// document or field differs.
func topfCompare(t *testing.T, rendered, topfDir string) {
	t.Helper()

	entries, err := os.ReadDir(topfDir)
	if err != nil {
		t.Fatal(err)
	}

	if len(entries) == 0 {
		t.Fatalf("%s holds no configs", topfDir)
	}

	for _, e := range entries {
		want, err := os.ReadFile(filepath.Join(topfDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}

		got, err := os.ReadFile(filepath.Join(rendered, e.Name()))
		if err != nil {
			t.Fatalf("talops rendered no %s: %v", e.Name(), err)
		}

		diffs, err := importtest.Compare(want, got)
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}

		if len(diffs) > 0 {
			t.Errorf("%s differs from topf's render: %q", e.Name(), diffs)
		}
	}
}

// topfImportAndRender imports a topf repository and renders it, as a topf user would
// after setting the variables its templates read.
func topfImportAndRender(t *testing.T, h *diskHarness, src string) (repo, rendered string) {
	t.Helper()

	repo, rendered = filepath.Join(t.TempDir(), "repo"), filepath.Join(t.TempDir(), "rendered")

	if err := h.run("import", "topf", "--from", src, "--out", repo, "--plaintext-secrets"); err != nil {
		t.Fatalf("import: %v\n%s%s", err, h.stdout.String(), h.stderr.String())
	}

	if err := h.run("render", "--dir", repo, "--out", rendered); err != nil {
		t.Fatalf("render: %v\n%s", err, h.stderr.String())
	}

	return repo, rendered
}

// topfExampleEnv is the environment topf-render/ was made with (topf render, LOG_ENDPOINT
// set, REGISTRY_MIRROR not).
var topfExampleEnv = map[string]string{"LOG_ENDPOINT": "udp://10.0.0.5:514"}

// TestImportTopf_RendersWhatTopfRendersNodeByNode: topf's example, imported, renders
// every node as topf render did (topf-render/), every document and every field.
func TestImportTopf_RendersWhatTopfRendersNodeByNode(t *testing.T) {
	h := newDiskHarness(t)
	maps.Copy(h.env, topfExampleEnv)

	src := topfTestdata("postfinance-example")
	_, rendered := topfImportAndRender(t, h, src)

	topfCompare(t, rendered, filepath.Join(src, "topf-render"))
}

// TestImportTopf_SchematicTemplatesRenderTopfsInstallers: a templated @schematic that
// renders differently per node, secure boot on one node and a template reading
// .SchematicID: every node gets topf's installer and labels.
func TestImportTopf_SchematicTemplatesRenderTopfsInstallers(t *testing.T) {
	h := newDiskHarness(t)
	src := topfTestdata("schematics")

	_, rendered := topfImportAndRender(t, h, src)
	topfCompare(t, rendered, filepath.Join(src, "topf-render"))
}

// TestImportTopf_PostfinanceExampleRendersAndValidates: topf's example, imported from
// the disk, renders each node with topf's installer, its patches in topf's order (the
// hostname template per node, node5's own disk), and validate finds nothing to refuse.
func TestImportTopf_PostfinanceExampleRendersAndValidates(t *testing.T) {
	h := newDiskHarness(t)
	src := topfTestdata("postfinance-example")
	repo, rendered := filepath.Join(t.TempDir(), "repo"), filepath.Join(t.TempDir(), "rendered")

	if err := h.run("import", "topf", "--from", src, "--out", repo, "--plaintext-secrets"); err != nil {
		t.Fatalf("import: %v\n%s%s", err, h.stdout.String(), h.stderr.String())
	}

	if out := h.stdout.String(); !strings.Contains(out, "import from topf ("+filepath.Join(src, "topf.yaml")+"): 0 errors, 0 warnings, 0 notes") {
		t.Fatalf("import's summary:\n%s", out)
	}

	if err := h.run("render", "--dir", repo, "--out", rendered); err != nil {
		t.Fatalf("render: %v\n%s", err, h.stderr.String())
	}

	node5, err := os.ReadFile(filepath.Join(rendered, "node5.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	for _, want := range []string{
		"image: factory.talos.dev/metal-installer/376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba:v1.13.3",
		"device: /dev/sdb", "hostname: node5", "topology.kubernetes.io/region: eu-west-1",
	} {
		if !strings.Contains(string(node5), want) {
			t.Errorf("node5's config has no %q:\n%s", want, node5)
		}
	}

	if err := h.run("validate", "--dir", repo, "--offline", "--format", "json"); err != nil {
		t.Fatalf("validate: %v\n%s", err, h.stdout.String())
	}
}

// TestImportTopf_RefusesAPlainBundleWithoutRecipients, as the other imports do.
func TestImportTopf_RefusesAPlainBundleWithoutRecipients(t *testing.T) {
	h := newDiskHarness(t)

	err := h.run("import", "topf", "--from", topfTestdata("postfinance-example"), "--out", filepath.Join(t.TempDir(), "repo"))
	if err == nil || !strings.Contains(err.Error(), "give an age recipient") {
		t.Fatalf("want the plain bundle refused without a recipient, got %v", err)
	}
}
