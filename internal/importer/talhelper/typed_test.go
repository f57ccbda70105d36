package talhelper_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/importer/talhelper"
)

// nodeOp is the value of the operation on a path of a node's talhelper fields patch.
func nodeOp(t *testing.T, res *talhelper.Result, path string) any {
	t.Helper()

	var ops []struct {
		Path  string
		Value any
	}

	text := written(t, res, "nodes/n1-talhelper.yaml")
	if err := yaml.Unmarshal([]byte(text), &ops); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}

	for _, o := range ops {
		if o.Path == path {
			return o.Value
		}
	}

	t.Fatalf("no operation on %s in\n%s", path, text)

	return nil
}

// TestImport_MachineDisksAreWrittenAsTalhelperWritesThem: talhelper sets machine.disks from
// machineDisks (deprecated, and still written).
func TestImport_MachineDisksAreWrittenAsTalhelperWritesThem(t *testing.T) {
	res := importText(t, head+"nodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n    machineDisks:\n      - device: /dev/sdb\n        partitions:\n          - mountpoint: /var/mnt/extra\n", nil, nil)

	want := []any{map[string]any{"device": "/dev/sdb", "partitions": []any{map[string]any{"mountpoint": "/var/mnt/extra"}}}}
	if got := nodeOp(t, res, "/machine/disks"); !reflect.DeepEqual(got, want) {
		t.Fatalf("machine.disks: want %v, got %v", want, got)
	}

	if got := findingPlaces(res.Findings, talhelper.CodeUnsupported, "machineDisks"); len(got) > 0 {
		t.Fatalf("machineDisks is still reported: %v", got)
	}
}

// TestImport_TypedFieldsDropTheKeysTalhelpersTypesDoNotKnow: talhelper reads these fields
// into Talos' Go types, which drop a key they do not know; the import drops it too, with a
// finding at its line, and keeps the rest.
func TestImport_TypedFieldsDropTheKeysTalhelpersTypesDoNotKnow(t *testing.T) {
	for _, tc := range []struct {
		name, node, path string
		want             any
		findings         []string
	}{
		{
			"installDiskSelector.transport",
			"    installDiskSelector:\n      size: '>= 100GB'\n      transport: nvme\n",
			"/machine/install/diskSelector", map[string]any{"size": ">= 100GB"},
			[]string{"10 nodes[0].installDiskSelector.transport"},
		},
		{
			"a kernel module's unknown key",
			"    kernelModules:\n      - name: zfs\n        options: []\n        load: early\n",
			"/machine/kernel", map[string]any{"modules": []any{map[string]any{"name": "zfs"}}},
			[]string{"10 nodes[0].kernelModules[0].options", "11 nodes[0].kernelModules[0].load"},
		},
		{
			"a machine file's unknown key",
			"    machineFiles:\n      - path: /var/etc/x\n        op: create\n        permissions: 0o644\n        content: hi\n        owner: root\n",
			"/machine/files", []any{map[string]any{"path": "/var/etc/x", "op": "create", "permissions": 420, "content": "hi"}},
			[]string{"13 nodes[0].machineFiles[0].owner"},
		},
		{
			"a machine disk partition's unknown key",
			"    machineDisks:\n      - device: /dev/sdb\n        partitions:\n          - mountpoint: /var/mnt/extra\n            fs: xfs\n",
			"/machine/disks", []any{map[string]any{"device": "/dev/sdb", "partitions": []any{map[string]any{"mountpoint": "/var/mnt/extra"}}}},
			[]string{"12 nodes[0].machineDisks[0].partitions[0].fs"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := importText(t, head+"nodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n"+tc.node, nil, nil)

			if got := nodeOp(t, res, tc.path); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("%s: want %v, got %v", tc.path, tc.want, got)
			}

			if got := findingPlaces(res.Findings, talhelper.CodeUnsupported, "nodes[0]"); !slices.Equal(got, tc.findings) {
				t.Fatalf("findings: want %v, got %v", tc.findings, got)
			}
		})
	}
}

// TestImport_TypedFieldOfTheWrongTypeIsReportedNotWritten: talhelper fails on a value its
// type cannot hold; the import leaves it out and says so at its line.
func TestImport_TypedFieldOfTheWrongTypeIsReportedNotWritten(t *testing.T) {
	for _, key := range []string{"nodeTaints", "nodeLabels", "nodeAnnotations"} {
		t.Run(key, func(t *testing.T) {
			res := importText(t, head+"nodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n    "+key+":\n      dedicated: {effect: NoSchedule}\n    installDisk: /dev/sda\n", nil, nil)

			if got := findingPlaces(res.Findings, talhelper.CodeUnsupported, key); !slices.Equal(got, []string{"9 nodes[0]." + key}) {
				t.Fatalf("findings: want the %s at line 9, got %v", key, got)
			}

			if hasFile(res, "nodes/n1-talhelper.yaml") && strings.Contains(written(t, res, "nodes/n1-talhelper.yaml"), "dedicated") {
				t.Fatalf("the value is written:\n%s", written(t, res, "nodes/n1-talhelper.yaml"))
			}
		})
	}
}

// TestImport_NodeKeysSayWhetherTalhelperKnowsThem: a key talhelper ignores is said to be
// unknown to it; one it reads for its own work only is said to have no talops equivalent.
func TestImport_NodeKeysSayWhetherTalhelperKnowsThem(t *testing.T) {
	res := importText(t, head+"nodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n    rack: r1\n    filenameTmpl: x.yaml\n", nil, nil)

	var got []string

	for _, f := range res.Findings {
		if f.Code == talhelper.CodeUnsupported {
			got = append(got, f.Path+": "+f.Message)
		}
	}

	want := []string{
		"nodes[0].rack: unknown to talhelper, which ignores it: not imported",
		"nodes[0].filenameTmpl: talops has no equivalent; not imported",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("want %q, got %q", want, got)
	}
}

// TestImport_DocumentFieldsDropTheKeysTalhelpersTypesDoNotKnow: volumes, the firewall and
// extension services keep their documents when an entry has a key talhelper's types do not
// know: the key alone is dropped, with a finding at its line.
func TestImport_DocumentFieldsDropTheKeysTalhelpersTypesDoNotKnow(t *testing.T) {
	for _, tc := range []struct {
		name, node, kind, key string
		findings              []string
	}{
		{
			"a volume's unknown key",
			"    volumes:\n      - name: EPHEMERAL\n        provisioning:\n          maxSize: 50GiB\n          shrink: true\n",
			"VolumeConfig", "shrink", []string{"12 nodes[0].volumes[0].provisioning.shrink"},
		},
		{
			"a firewall rule's unknown key",
			"    ingressFirewall:\n      defaultAction: block\n      rules:\n        - name: kubelet\n          portSelector: {ports: [10250], protocol: tcp}\n          ingress: [{subnet: 10.0.0.0/8}]\n          comment: the kubelet\n",
			"NetworkRuleConfig", "comment", []string{"14 nodes[0].ingressFirewall.rules[0].comment"},
		},
		{
			"an extension service's unknown key",
			"    extensionServices:\n      - name: tailscale\n        environment: [TS_HOSTNAME=n1]\n        enabled: true\n",
			"ExtensionServiceConfig", "enabled", []string{"11 nodes[0].extensionServices[0].enabled"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := importText(t, head+"nodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n"+tc.node, nil, nil)

			docs := written(t, res, "nodes/n1-documents.yaml")

			var kinds []string

			dec := yaml.NewDecoder(strings.NewReader(docs))

			for {
				var d map[string]any
				if dec.Decode(&d) != nil {
					break
				}

				kinds = append(kinds, fmt.Sprint(d["kind"]))

				if d["kind"] == tc.kind && strings.Contains(fmt.Sprint(d), tc.key+":") {
					t.Fatalf("the unknown key is written:\n%s", docs)
				}
			}

			if !slices.Contains(kinds, tc.kind) {
				t.Fatalf("no %s among %v:\n%s", tc.kind, kinds, docs)
			}

			if got := findingPlaces(res.Findings, talhelper.CodeUnsupported, "nodes[0]"); !slices.Equal(got, tc.findings) {
				t.Fatalf("findings: want %v, got %v", tc.findings, got)
			}
		})
	}
}

// TestImport_ClusterFieldsDropTheKeysTalhelpersTypesDoNotKnow: cniConfig and
// inlineManifests entries keep what Talos' types know; another key is a finding at its line.
func TestImport_ClusterFieldsDropTheKeysTalhelpersTypesDoNotKnow(t *testing.T) {
	talconfig := head + "cniConfig:\n  name: custom\n  urls: [https://example.org/cni.yaml]\n  vendor: x\ninlineManifests:\n  - name: ns\n    contents: 'kind: Namespace'\n    namespace: kube-system\nnodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n"

	res := importText(t, talconfig, nil, nil)

	patch := written(t, res, "patches/talhelper-cluster.yaml")
	for _, want := range []string{"name: custom", "https://example.org/cni.yaml", "name: ns", "contents: 'kind: Namespace'"} {
		if !strings.Contains(patch, want) {
			t.Fatalf("want %q in\n%s", want, patch)
		}
	}

	if strings.Contains(patch, "vendor") || strings.Contains(patch, "kube-system") {
		t.Fatalf("an unknown key is written:\n%s", patch)
	}

	want := []string{"8 cniConfig.vendor", "12 inlineManifests[0].namespace"}
	if got := findingPlaces(res.Findings, talhelper.CodeUnsupported, ""); !slices.Equal(got, want) {
		t.Fatalf("findings: want %v, got %v", want, got)
	}
}

// TestImport_SchematicDropsTheKeysTheFactorysTypeDoesNotKnow: talhelper reads a node's
// schematic into the Image Factory's type; a key it does not know is dropped with a
// finding, and the schematic file talops reads strictly does not carry it.
func TestImport_SchematicDropsTheKeysTheFactorysTypeDoesNotKnow(t *testing.T) {
	res := importText(t, head+"nodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n    schematic:\n      customization:\n        systemExtensions:\n          officialExtensions: [siderolabs/iscsi-tools]\n        extensions: [siderolabs/zfs]\n", nil, nil)

	file := written(t, res, "schematics/n1.yaml")
	if !strings.Contains(file, "siderolabs/iscsi-tools") || strings.Contains(file, "siderolabs/zfs") {
		t.Fatalf("want iscsi-tools and not the unknown key's zfs:\n%s", file)
	}

	if got := findingPlaces(res.Findings, talhelper.CodeUnsupported, "schematic"); !slices.Equal(got, []string{"12 nodes[0].schematic.customization.extensions"}) {
		t.Fatalf("findings: want the unknown key at line 12, got %v", got)
	}
}

// TestImport_KeysTalhelperIgnoresAreSaidToBeUnknownToIt: below imageFactory and
// machineSpec too; imageFactory's ISOURLTmpl is talhelper's, and only a note.
func TestImport_KeysTalhelperIgnoresAreSaidToBeUnknownToIt(t *testing.T) {
	res := importText(t, head+"imageFactory:\n  ISOURLTmpl: x\n  imageURLTmpl: y\nnodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n    machineSpec:\n      platform: metal\n", nil, nil)

	var got []string

	for _, f := range res.Findings {
		got = append(got, string(f.Severity)+" "+f.Path+": "+f.Message)
	}

	want := []string{
		"warning imageFactory.imageURLTmpl: unknown to talhelper, which ignores it: not imported",
		"warning nodes[0].machineSpec.platform: unknown to talhelper, which ignores it: not imported",
		"info imageFactory.ISOURLTmpl: boot image URLs are talops' own (talops schematics lists them); the template is not needed",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("want %q, got %q", want, got)
	}
}
