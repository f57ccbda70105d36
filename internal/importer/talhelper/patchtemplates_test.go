package talhelper_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/importer/talhelper"
)

// Two nodes, one global patch of each kind a template can be: the same text on every node,
// a text per node, a secret read, a template that does not render.
const patchTemplatesTalconfig = head + `nodes:
  - hostname: cp1
    ipAddress: 10.0.0.11
    controlPlane: true
    installDisk: /dev/sda
  - hostname: w1
    ipAddress: 10.0.0.12
    installDisk: /dev/vdb
patches:
  - "@./patches/same.yaml"
  - "@./patches/per-node.yaml"
  - |-
    machine:
      nodeAnnotations:
        token: "{{ .MachineConfig.MachineToken }}"
  - |-
    machine:
      nodeAnnotations:
        broken: "{{ .NoSuchField }}"
`

func TestImport_TemplatedPatchesRenderAsTalhelperRendersThem(t *testing.T) {
	t.Parallel()

	res := importText(t, patchTemplatesTalconfig, map[string]string{
		"patches/same.yaml":     "machine:\n  nodeAnnotations:\n    cluster: \"{{ .ClusterConfig.ClusterName | upper }}.${DOMAIN}\"\n",
		"patches/per-node.yaml": "machine:\n  nodeAnnotations:\n    disk: \"{{ .MachineConfig.MachineInstall.InstallDisk }}\"\n",
	}, map[string]string{"DOMAIN": "example.org"})

	// The same text on every node: one file, rendered, then substituted.
	if got := written(t, res, "patches/same.yaml"); !strings.Contains(got, `cluster: "LAB.example.org"`) {
		t.Errorf("patches/same.yaml is not rendered and substituted:\n%s", got)
	}

	// A text per node: a file per node, in that node's list in place of the template.
	for node, disk := range map[string]string{"cp1": "/dev/sda", "w1": "/dev/vdb"} {
		if got := written(t, res, "nodes/"+node+"-per-node.yaml"); !strings.Contains(got, `disk: "`+disk+`"`) {
			t.Errorf("%s's per-node.yaml says otherwise than disk %s:\n%s", node, disk, got)
		}
	}

	if hasFile(res, "patches/per-node.yaml") {
		t.Error("the per-node template was written as one file too")
	}

	talops := written(t, res, "talops.yaml")
	if !strings.Contains(talops, "- patches/same.yaml\n      - nodes/w1-per-node.yaml\n") {
		t.Errorf("w1's rendered patch is not in its place:\n%s", talops)
	}

	// Neither the secret nor the failing template is imported, and both are said.
	for _, f := range res.Files {
		if strings.Contains(string(f.Data), "token") || strings.Contains(string(f.Data), "broken") {
			t.Errorf("%s holds a template that reads a secret or fails:\n%s", f.Path, f.Data)
		}
	}

	if got := findingPlaces(res.Findings, talhelper.CodeUnsupported, "patches["); len(got) != 2 || got[0] != "16 global.patches[2]" || got[1] != "20 global.patches[3]" {
		t.Errorf("want the secret-reading and the failing template reported at their lines, got %q", got)
	}
}
