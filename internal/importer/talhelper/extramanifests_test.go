package talhelper_test

import (
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/importer/talhelper"
)

// nodePatches are the patches talops.yaml lists for each node.
func nodePatches(t *testing.T, res *talhelper.Result) map[string][]string {
	t.Helper()

	var spec struct {
		Nodes []struct {
			Name    string
			Patches []string
		}
	}

	if err := yaml.Unmarshal([]byte(written(t, res, "talops.yaml")), &spec); err != nil {
		t.Fatal(err)
	}

	out := map[string][]string{}
	for _, n := range spec.Nodes {
		out[n.Name] = n.Patches
	}

	return out
}

// TestImport_ExtraManifestsAreAppendedAsTalhelperAppendsThem: talhelper appends the
// documents of a node's extraManifests, then its role's unless overrideExtraManifests,
// after every patch; each is the node's last patches, its text as written.
func TestImport_ExtraManifestsAreAppendedAsTalhelperAppendsThem(t *testing.T) {
	const rule = "apiVersion: v1alpha1\nkind: NetworkRuleConfig\nname: ${NOT_SUBSTITUTED}\nportSelector:\n  ports: [50000]\n  protocol: tcp\ningress:\n  - subnet: 10.0.0.0/8\n"

	talconfig := head + "nodes:\n" +
		"  - hostname: n1\n    ipAddress: 10.0.0.11\n    extraManifests: [manifests/n1.yaml]\n" +
		"  - hostname: n2\n    ipAddress: 10.0.0.12\n    overrideExtraManifests: true\n    extraManifests: [\"@manifests/n2.yaml\"]\n" +
		"  - hostname: n3\n    ipAddress: 10.0.0.13\n" +
		"patches: ['machine: {env: {a: \"1\"}}']\n" +
		"worker:\n  extraManifests: [manifests/workers.yaml]\n"
	files := map[string]string{"manifests/n1.yaml": rule, "manifests/n2.yaml": rule, "manifests/workers.yaml": rule}

	res := importText(t, talconfig, files, nil)

	patches := nodePatches(t, res)
	for node, want := range map[string][]string{
		"n1": {"patches/global-01.yaml", "manifests/n1.yaml", "manifests/workers.yaml"},
		"n2": {"patches/global-01.yaml", "manifests/n2.yaml"},
		"n3": {"patches/global-01.yaml", "manifests/workers.yaml"},
	} {
		got := patches[node]
		if len(got) < len(want) || !slices.Equal(got[len(got)-len(want):], want) {
			t.Errorf("%s: want its patches to end with %v, got %v", node, want, got)
		}
	}

	if got := written(t, res, "manifests/n1.yaml"); got != rule {
		t.Fatalf("the manifest is not written as it is:\n%s", got)
	}

	if got := findingPlaces(res.Findings, talhelper.CodeUnsupported, "xtraManifests"); len(got) > 0 {
		t.Fatalf("extraManifests still reported: %v", got)
	}
}

// TestImport_ExtraManifestThatCannotBeReadIsReportedAtItsLine: a missing file is a finding
// at its entry, and the node keeps its other patches.
func TestImport_ExtraManifestThatCannotBeReadIsReportedAtItsLine(t *testing.T) {
	res := importText(t, head+"nodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n    extraManifests:\n      - missing.yaml\n      - /etc/absolute.yaml\n", nil, nil)

	want := []string{"9 nodes[0].extraManifests[0]", "10 nodes[0].extraManifests[1]"}
	if got := findingPlaces(res.Findings, talhelper.CodeUnsupported, "extraManifests"); !slices.Equal(got, want) {
		t.Fatalf("want %v, got %v", want, got)
	}

	if strings.Contains(written(t, res, "talops.yaml"), "missing.yaml") {
		t.Fatal("a manifest that could not be read is listed")
	}
}
