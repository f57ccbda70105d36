package rules_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/rules"
)

// gpuRepo is a small repository built in a test: one GPU worker with a schematic and patches.
type gpuRepo struct {
	talos string
	// k8s defaults to the newest minor the release supports.
	k8s string
	// flavour and pin fill talops.yaml's nvidia section; both empty leave it out.
	flavour, pin string
	// extensions make the node's schematic; nil gives the node no schematic.
	extensions []string
	// schematic replaces the generated schematic file when set.
	schematic string
	// patches are the node's patch files, applied in order.
	patches []string
	// plain adds a second worker on the vanilla image, with the same patches.
	plain bool
}

func (r gpuRepo) files(t testing.TB) cluster.MapFiles {
	t.Helper()

	k8s := r.k8s
	if k8s == "" {
		_, maxMinor, err := catalog.KubernetesRange(r.talos)
		if err != nil {
			t.Fatal(err)
		}

		k8s = "v" + maxMinor + ".0"
	}

	var b strings.Builder

	fmt.Fprintf(&b, "cluster:\n  name: t\n  endpoint: https://10.0.0.1:6443\ntalosVersion: %s\nkubernetesVersion: %s\nplatform: nocloud\n", r.talos, k8s)

	if r.flavour != "" || r.pin != "" {
		fmt.Fprintf(&b, "nvidia:\n  flavour: %s\n", r.flavour)

		if r.pin != "" {
			fmt.Fprintf(&b, "  driver: %q\n", r.pin)
		}
	}

	files := cluster.MapFiles{}

	hasSchematic := r.extensions != nil || r.schematic != ""
	if hasSchematic {
		b.WriteString("schematics:\n  gpu: schematics/gpu.yaml\n")

		s := r.schematic
		if s == "" {
			s = "customization:\n  systemExtensions:\n    officialExtensions:\n"
			for _, e := range r.extensions {
				s += "      - " + e + "\n"
			}

			if len(r.extensions) == 0 {
				s = "{}\n"
			}
		}

		files["schematics/gpu.yaml"] = []byte(s)
	}

	var patches []string
	for i, p := range r.patches {
		name := fmt.Sprintf("patches/p%d.yaml", i)
		files[name] = []byte(p)
		patches = append(patches, name)
	}

	node := func(name, addr string, schematic bool) {
		fmt.Fprintf(&b, "  - name: %s\n    address: %s\n    role: worker\n    installDisk: /dev/sda\n", name, addr)

		if schematic {
			b.WriteString("    schematic: gpu\n")
		}

		if len(patches) > 0 {
			fmt.Fprintf(&b, "    patches: [%s]\n", strings.Join(patches, ", "))
		}
	}

	b.WriteString("nodes:\n")
	node("gpu-1", "10.0.0.2", hasSchematic)

	if r.plain {
		node("plain-1", "10.0.0.3", false)
	}

	files["talops.yaml"] = []byte(b.String())

	return files
}

// input renders a repository and returns what the rules see.
func input(t testing.TB, files cluster.MapFiles) *rules.Input {
	t.Helper()

	c, err := cluster.Load("repo", files)
	if err != nil {
		t.Fatal(err)
	}

	b, err := shared.Load(c)
	if err != nil {
		t.Fatal(err)
	}

	ids, err := render.SchematicIDs(c)
	if err != nil {
		t.Fatal(err)
	}

	nodes := render.All(context.Background(), c, b, render.Options{Installer: render.FactoryInstaller(ids)})

	return &rules.Input{Cluster: c, Nodes: nodes, Bundle: b, Schematics: ids, SchematicFiles: rules.LoadSchematicFiles(c)}
}

// releaseCodes keeps the findings of the release checks (extensions, NVIDIA, versions), as
// "severity code" in order, so that a table states exactly what is reported.
func releaseCodes(fs []finding.Finding) []string {
	var out []string

	for _, f := range fs {
		if isReleaseCode(f.Code) {
			out = append(out, string(f.Severity)+" "+f.Code)
		}
	}

	return out
}

func onlyRelease(fs []finding.Finding) []finding.Finding {
	var out []finding.Finding

	for _, f := range fs {
		if isReleaseCode(f.Code) {
			out = append(out, f)
		}
	}

	return out
}

func isReleaseCode(code string) bool {
	for _, p := range []string{"nvidia.", "extension.", "versions."} {
		if strings.HasPrefix(code, p) {
			return true
		}
	}

	return false
}

// renderErrors fails the test when a node did not render: a case must test the rule, not
// a broken fixture.
func renderErrors(t testing.TB, in *rules.Input) {
	t.Helper()

	for _, n := range in.Nodes {
		if n.Err != nil {
			t.Fatalf("node %s does not render: %v", n.Name, n.Err)
		}
	}
}
