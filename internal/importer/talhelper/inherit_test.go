package talhelper_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/importer/talhelper"
)

// TestImport_GroupFieldsFillTheNodesZeroFieldsAsTalhelperDoes: talhelper gives a node its
// group's field where the node's own is the zero value of its type (absent, null, false,
// ""), not where it is set, even empty.
func TestImport_GroupFieldsFillTheNodesZeroFieldsAsTalhelperDoes(t *testing.T) {
	for _, tc := range []struct {
		name, node, file, want, notWant string
	}{
		{
			"a false boolean takes the group's true",
			"    disableSearchDomain: false\n", "nodes/n1-documents.yaml", "disableDefault: true", "",
		},
		{
			"a null takes the group's",
			"    nodeLabels: ~\n", "nodes/n1-talhelper.yaml", "group: label", "",
		},
		{
			"an empty mapping is the node's own",
			"    nodeLabels: {}\n", "nodes/n1-talhelper.yaml", "path: /machine/nodeLabels", "group: label",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			talconfig := head + "nodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n" + tc.node +
				"worker:\n  disableSearchDomain: true\n  nodeLabels: {group: label}\n"

			got := written(t, importText(t, talconfig, nil, nil), tc.file)
			if !strings.Contains(got, tc.want) || (tc.notWant != "" && strings.Contains(got, tc.notWant)) {
				t.Fatalf("want %q and not %q in\n%s", tc.want, tc.notWant, got)
			}
		})
	}
}

// TestImport_GroupPatchesStayWhenTheNodeOverridesWithNone: overridePatches without patches
// of the node's own leaves the node its group's, as talhelper does.
func TestImport_GroupPatchesStayWhenTheNodeOverridesWithNone(t *testing.T) {
	talconfig := head + "nodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n    overridePatches: true\n  - hostname: n2\n    ipAddress: 10.0.0.12\n    overridePatches: true\n    patches: ['machine: {env: {own: \"1\"}}']\nworker:\n  patches: ['machine: {env: {group: \"1\"}}']\n"

	patches := nodePatches(t, importText(t, talconfig, nil, nil))

	if !slices.Contains(patches["n1"], "patches/worker-01.yaml") {
		t.Fatalf("n1 lost its group's patch: %v", patches["n1"])
	}

	if slices.Contains(patches["n2"], "patches/worker-01.yaml") {
		t.Fatalf("n2 overrides its group's patch with its own, and has it: %v", patches["n2"])
	}
}

// TestImport_GroupKeyThatIsNoGroupFieldIsIgnoredWithAFinding: talhelper reads controlPlane
// and worker as node groups: installDisk there is ignored, not given to the nodes.
func TestImport_GroupKeyThatIsNoGroupFieldIsIgnoredWithAFinding(t *testing.T) {
	res := importText(t, head+"nodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\nworker:\n  installDisk: /dev/sda\n", nil, nil)

	if strings.Contains(written(t, res, "talops.yaml"), "/dev/sda") {
		t.Fatal("the group's installDisk is given to the node")
	}

	if got := findingPlaces(res.Findings, talhelper.CodeUnsupported, "installDisk"); !slices.Equal(got, []string{"9 worker.installDisk"}) {
		t.Fatalf("want one finding at line 9, got %v", got)
	}
}
