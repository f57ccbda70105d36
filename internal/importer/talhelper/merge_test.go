package talhelper_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/importer/talhelper"
)

// TestImport_MergeKeysAreExpandedAsTalhelpersParserDoes: `<<: *anchor` gives a mapping the
// anchor's keys it does not set itself (yaml.v3, talhelper's parser: the mapping's own keys
// win, then the first of a list of anchors), at any depth.
func TestImport_MergeKeysAreExpandedAsTalhelpersParserDoes(t *testing.T) {
	for _, tc := range []struct {
		name, nodes, file, want string
	}{
		{
			"a node gets the anchor's fields",
			"x-common: &common\n  installDisk: /dev/sda\n  nodeLabels: {zone: a}\nnodes:\n  - <<: *common\n    hostname: n1\n    ipAddress: 10.0.0.11\n",
			"nodes/n1-talhelper.yaml", "zone: a",
		},
		{
			"the node's own key wins over the anchor's",
			"x-common: &common\n  nodeLabels: {zone: a}\nnodes:\n  - hostname: n1\n    nodeLabels: {zone: b}\n    <<: *common\n    ipAddress: 10.0.0.11\n",
			"nodes/n1-talhelper.yaml", "zone: b",
		},
		{
			"the first anchor of a list wins",
			"x-a: &a\n  nodeLabels: {zone: a}\nx-b: &b\n  nodeLabels: {zone: b}\nnodes:\n  - <<: [*a, *b]\n    hostname: n1\n    ipAddress: 10.0.0.11\n",
			"nodes/n1-talhelper.yaml", "zone: a",
		},
		{
			"an anchor merged below a node's key",
			"x-if: &if\n  interface: eth0\n  dhcp: true\nnodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n    networkInterfaces:\n      - <<: *if\n        mtu: 9000\n",
			"nodes/n1-documents.yaml", "name: eth0",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := importText(t, head+tc.nodes, nil, nil)

			if got := written(t, res, tc.file); !strings.Contains(got, tc.want) {
				t.Fatalf("%s: want %q in\n%s", tc.file, tc.want, got)
			}

			if got := findingPlaces(res.Findings, talhelper.CodeUnsupported, "<<"); len(got) > 0 {
				t.Fatalf("the merge key is reported as a field: %v", got)
			}
		})
	}
}

// TestImport_MergedInstallDiskIsTheNodes: a field that comes only from a merged anchor is
// the node's, as talhelper reads it.
func TestImport_MergedInstallDiskIsTheNodes(t *testing.T) {
	res := importText(t, head+"x-common: &common\n  installDisk: /dev/sda\n  controlPlane: true\nnodes:\n  - <<: *common\n    hostname: n1\n    ipAddress: 10.0.0.11\n", nil, nil)

	talops := written(t, res, "talops.yaml")
	for _, want := range []string{"installDisk: /dev/sda", "role: controlplane"} {
		if !strings.Contains(talops, want) {
			t.Fatalf("want %q in talops.yaml:\n%s", want, talops)
		}
	}
}

// TestImport_MergedInterfaceWithVLANsIsImported: on the multidoc contract, an interface
// whose vlans come from a merged anchor gets its VLANConfig (it used to panic).
func TestImport_MergedInterfaceWithVLANsIsImported(t *testing.T) {
	talconfig := head + "x-bond: &bond\n  interface: bond0\n  bond: {mode: active-backup, interfaces: [eth0, eth1]}\n  vlans:\n    - vlanId: 20\n      addresses: [10.0.20.11/24]\nnodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n    networkInterfaces:\n      - <<: *bond\n        mtu: 1500\n"

	res := importText(t, talconfig, nil, nil)

	docs := written(t, res, "nodes/n1-documents.yaml")
	for _, want := range []string{"kind: VLANConfig", "name: bond0.20", "kind: BondConfig"} {
		if !strings.Contains(docs, want) {
			t.Fatalf("want %q in\n%s", want, docs)
		}
	}
}

// TestImport_MergeOfNoMappingIsRefusedAsTalhelperRefusesIt: talhelper's parser fails on a
// merge of a scalar; so does the import, at its line.
func TestImport_MergeOfNoMappingIsRefusedAsTalhelperRefusesIt(t *testing.T) {
	_, err := talhelper.Import(talhelper.Input{File: "talconfig.yaml", Data: []byte(head + "nodes:\n  - hostname: n1\n    <<: just-a-string\n")})
	if err == nil || !strings.HasPrefix(err.Error(), "talconfig.yaml:7: ") {
		t.Fatalf("want an error at talconfig.yaml:7, got %v", err)
	}
}
