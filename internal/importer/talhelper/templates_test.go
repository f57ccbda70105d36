package talhelper_test

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/talops/talops/internal/importer/talhelper"
)

const templatedTalconfig = `clusterName: lab
endpoint: https://10.0.0.1:6443
talosVersion: v1.13.8
kubernetesVersion: v1.35.0
nodes:
  - hostname: w1
    ipAddress: 10.0.0.2
    nodeLabels:
      plain: "yes"
      topology.kubernetes.io/zone: "{{ .MachineConfig.MachineType }}-{{ .ClusterConfig.ClusterName | upper }}"
      token: "{{ .MachineConfig.MachineToken }}"
      broken: "{{ .NoSuchField }}"
    nodeAnnotations:
      disk: "{{ .MachineConfig.MachineInstall.InstallDisk }}"
    installDisk: /dev/vda
`

func TestImport_TemplatedLabelsRenderOnTheNodesConfigAsTalhelperDoes(t *testing.T) {
	t.Parallel()

	res, err := talhelper.Import(talhelper.Input{
		File: "talconfig.yaml", Data: []byte(templatedTalconfig), Secrets: "secrets.sops.yaml",
		Lookup:    func(string) (string, bool) { return "", false },
		ReadPatch: func(string) ([]byte, error) { return nil, fs.ErrNotExist },
	})
	if err != nil {
		t.Fatal(err)
	}

	patch, ok := fileOf(res, "nodes/w1-templates.yaml")
	if !ok {
		t.Fatalf("no templates patch; findings %+v", res.Findings)
	}

	for _, want := range []string{
		"path: /machine/nodeLabels/topology.kubernetes.io~1zone\n  value: worker-LAB\n",
		"path: /machine/nodeAnnotations/disk\n  value: /dev/vda\n",
	} {
		if !strings.Contains(patch, want) {
			t.Errorf("the templates patch lacks %q:\n%s", want, patch)
		}
	}

	if strings.Contains(patch, "token") || strings.Contains(patch, "broken") {
		t.Errorf("a template that reads a secret or fails was imported:\n%s", patch)
	}

	if got := findingPlaces(res.Findings, talhelper.CodeUnsupported, "nodeLabels"); len(got) != 2 {
		t.Errorf("want the secret-reading and the failing template reported, got %q", got)
	}

	talops, _ := fileOf(res, "talops.yaml")
	if !strings.Contains(talops, "- nodes/w1-talhelper.yaml\n      - nodes/w1-templates.yaml\n") {
		t.Errorf("the templates patch does not follow the node's talhelper patch:\n%s", talops)
	}
}
