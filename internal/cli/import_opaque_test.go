package cli_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"testing"
)

// TestImportTalhelper_OfflineUnknownInstallerIDValidatesWithAnOpaqueSchematic: without the
// schematic file of its talosImageURL and without the factory, lukeevans-talos-cluster's
// import keeps the ID as an opaque schematic; validate then finds no installer.mismatch,
// says once that the schematic is opaque, and the render is still talhelper's.
func TestImportTalhelper_OfflineUnknownInstallerIDValidatesWithAnOpaqueSchematic(t *testing.T) {
	const dir = "lukeevans-talos-cluster"

	tc := talhelperCaseOf(dir)
	src := filepath.Join(t.TempDir(), "talos")

	if err := os.CopyFS(src, os.DirFS(talhelperTestdata(dir))); err != nil {
		t.Fatal(err)
	}

	if err := os.Remove(filepath.Join(src, "schematic.yaml")); err != nil {
		t.Fatal(err)
	}

	h := newDiskHarness(t)
	maps.Copy(h.env, tc.env)

	repo, rendered, _ := importAndRender(t, h, src, "--plaintext-secrets", "--offline")

	if err := h.run("validate", "--dir", repo, "--offline", "--format", "json"); err != nil {
		t.Fatalf("validate: %v\n%s", err, h.stdout.String())
	}

	var v struct {
		Findings []struct{ Severity, Code, File string }
	}

	if err := json.Unmarshal(h.stdout.Bytes(), &v); err != nil {
		t.Fatal(err)
	}

	var opaque []string

	for _, f := range v.Findings {
		switch {
		case f.Code == "installer.mismatch" || f.Severity == "error":
			t.Errorf("validate reports %s %s at %s", f.Severity, f.Code, f.File)
		case f.Code == "schematic.opaque":
			opaque = append(opaque, f.Severity+" "+filepath.Base(f.File))
		}
	}

	if len(opaque) != 1 || opaque[0] != "info factory-"+lukeevansID[:12]+".yaml" {
		t.Errorf("schematic.opaque findings = %q, want one info at the opaque file", opaque)
	}

	compareNodes(t, rendered, filepath.Join(src, "talhelper-genconfig"), tc)
}
