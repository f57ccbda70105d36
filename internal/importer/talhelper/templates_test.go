package talhelper_test

import (
	"fmt"
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
		// Each map whole, its plain values with the rendered ones: the add applies whether
		// or not the node has the map yet.
		"path: /machine/nodeLabels\n  value:\n    plain: 'yes'\n    topology.kubernetes.io/zone: worker-LAB\n",
		"path: /machine/nodeAnnotations\n  value:\n    disk: /dev/vda\n",
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

// Templates run on a config's fields and sprig's functions: a method of the config (the
// talhelper docs' `.MachineConfig` is a field, `.Machine` a method) does not render, and
// the import says so at its line instead of writing a value.
func TestImport_TemplateCallingAMethodIsReportedNotImported(t *testing.T) {
	t.Parallel()

	talconfig := strings.Replace(templatedTalconfig, `broken: "{{ .NoSuchField }}"`, `method: "{{ .Machine.Type }}"`, 1)

	res, err := talhelper.Import(talhelper.Input{
		File: "talconfig.yaml", Data: []byte(talconfig), Secrets: "secrets.sops.yaml",
		Lookup:    func(string) (string, bool) { return "", false },
		ReadPatch: func(string) ([]byte, error) { return nil, fs.ErrNotExist },
	})
	if err != nil {
		t.Fatal(err)
	}

	if patch, _ := fileOf(res, "nodes/w1-templates.yaml"); strings.Contains(patch, "method") || !strings.Contains(patch, "zone: worker-LAB") {
		t.Errorf("want the field template imported and the method one not:\n%s", patch)
	}

	var said []string

	for _, f := range res.Findings {
		if f.Code == talhelper.CodeUnsupported && strings.Contains(f.Path, "method") {
			said = append(said, fmt.Sprintf("line %d: %s", f.Line, f.Message))
		}
	}

	if len(said) != 1 || !strings.Contains(said[0], "line 12: a talhelper template that does not render") || !strings.Contains(said[0], "can't evaluate field Machine") {
		t.Errorf("findings for the method template = %q, want one at line 12 saying it does not render", said)
	}
}
