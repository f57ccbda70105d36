package talhelper_test

import (
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/importer/talhelper"
	"github.com/talops/talops/internal/schematic"
)

// The schematic of the nodes' talosImageURL below, and one an extension away from it.
const (
	gpuSchematic = `customization:
  systemExtensions:
    officialExtensions:
      - siderolabs/amd-ucode
      - siderolabs/nvidia-container-toolkit-production
      - siderolabs/nvidia-open-gpu-kernel-modules-production
`
	gpuID         = "44186a005dfca322f81df634a457384455475fbfa518777f3ee58d35f173d73b"
	driftedSchema = `customization:
  systemExtensions:
    officialExtensions:
      - siderolabs/amd-ucode
      - siderolabs/gvisor
      - siderolabs/nvidia-container-toolkit-production
      - siderolabs/nvidia-open-gpu-kernel-modules-production
`
	driftedID = "d5d1a460585c520280f57762c3f260b63b2fe6f24163104f6d517b02bb24f311"
	vanillaID = "376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba"
)

// imageURLTalconfig has two nodes installing the factory installer of gpuID.
const imageURLTalconfig = `clusterName: lab
endpoint: https://10.0.0.1:6443
talosVersion: v1.13.8
kubernetesVersion: v1.36.3
nodes:
  - hostname: cp1
    ipAddress: 10.0.0.1
    controlPlane: true
    machineSpec:
      secureboot: true
    talosImageURL: factory.talos.dev/installer-secureboot/` + gpuID + `
  - hostname: w1
    ipAddress: 10.0.0.2
    talosImageURL: factory.talos.dev/installer/` + gpuID + `
`

// importDir imports imageURLTalconfig from a directory holding files, with the given
// --schematic files.
func importDir(t *testing.T, files map[string]string, given ...talhelper.SchematicFile) (*talhelper.Result, error) {
	t.Helper()

	var listed []string
	for name := range files {
		listed = append(listed, name)
	}

	return talhelper.Import(talhelper.Input{
		File: "talos/talconfig.yaml", Data: []byte(imageURLTalconfig), Secrets: "secrets.sops.yaml",
		Lookup: func(string) (string, bool) { return "", false },
		ReadPatch: func(rel string) ([]byte, error) {
			if data, ok := files[rel]; ok {
				return []byte(data), nil
			}

			return nil, fs.ErrNotExist
		},
		ListDir:    func() ([]string, error) { return append(listed, "talconfig.yaml"), nil },
		Schematics: given,
	})
}

func nodeSchematics(t *testing.T, res *talhelper.Result) map[string]string {
	t.Helper()

	files := cluster.MapFiles{"secrets.sops.yaml": []byte("{}\n")}
	for _, f := range res.Files {
		files[f.Path] = f.Data
	}

	c, err := cluster.Load("lab", files)
	if err != nil {
		t.Fatalf("talops.yaml does not load: %v", err)
	}

	out := map[string]string{}
	for _, n := range c.Spec.Nodes {
		out[n.Name] = n.Schematic + " " + c.Spec.Schematics[n.Schematic].File
	}

	return out
}

func fileOf(res *talhelper.Result, path string) (string, bool) {
	for _, f := range res.Files {
		if f.Path == path {
			return string(f.Data), true
		}
	}

	return "", false
}

// findingsAt are the findings with a code as "severity file node path" lines.
func findingsAt(res *talhelper.Result, code string) []string {
	var out []string

	for _, f := range res.Findings {
		if f.Code == code {
			out = append(out, strings.Join([]string{string(f.Severity), f.File, f.Node, f.Path}, " "))
		}
	}

	return out
}

func TestImport_TalosImageURLGetsTheSchematicFileOfItsID(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		given []talhelper.SchematicFile
		// from is the file the schematic comes from, schematic its name in talops.
		from, schematic string
	}{
		{
			name: "talhelper's schematic.yaml beside the talconfig", files: map[string]string{"schematic.yaml": gpuSchematic},
			from: "talos/schematic.yaml", schematic: "schematic",
		},
		{
			name: "another YAML file beside it, found by the scan", files: map[string]string{"talenv.yaml": "talosVersion: v1.13.8\n", "GPU Image.yml": gpuSchematic},
			from: "talos/GPU Image.yml", schematic: "gpu-image",
		},
		{
			name: "a file given with --schematic", given: []talhelper.SchematicFile{{File: "/elsewhere/nvidia.yaml", Data: []byte(gpuSchematic)}},
			from: "/elsewhere/nvidia.yaml", schematic: "nvidia",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := importDir(t, tc.files, tc.given...)
			if err != nil {
				t.Fatal(err)
			}

			want := tc.schematic + " schematics/" + tc.schematic + ".yaml"
			if got := nodeSchematics(t, res); got["cp1"] != want || got["w1"] != want {
				t.Errorf("node schematics = %v, want %q for both", got, want)
			}

			data, ok := fileOf(res, "schematics/"+tc.schematic+".yaml")
			if !ok || !strings.HasSuffix(data, gpuSchematic) || !strings.Contains(data, "(ID "+gpuID+")") {
				t.Errorf("schematics/%s.yaml = %q, want the file with its ID in a header", tc.schematic, data)
			}

			// talops names the installer (under the URL's name, talops.yaml's installer), so it
			// follows talosVersion: no patch pins it.
			if patch, ok := fileOf(res, "nodes/cp1-talhelper.yaml"); ok && strings.Contains(patch, "/machine/install/image") {
				t.Errorf("cp1's patch pins the installer:\n%s", patch)
			}

			want2 := []string{"info talos/talconfig.yaml cp1 nodes[0].talosImageURL", "info talos/talconfig.yaml w1 nodes[1].talosImageURL"}
			if got := findingsAt(res, talhelper.CodeMapped); !slices.Equal(got, want2) {
				t.Errorf("import.mapped findings = %q, want %q", got, want2)
			}

			if talops := written(t, res, "talops.yaml"); !strings.Contains(talops, "\ninstaller: installer\n") {
				t.Errorf("talops.yaml does not keep the installer's name:\n%s", talops)
			}

			installers := map[string]string{"cp1": "installer-secureboot", "w1": "installer"}
			for _, f := range res.Findings {
				if f.Code == talhelper.CodeMapped && !strings.Contains(f.Message, tc.from+" has this image's schematic ID") {
					t.Errorf("the note does not name %s: %s", tc.from, f.Message)
				}

				if want := "factory.talos.dev/" + installers[f.Node] + "/" + gpuID + ":v1.13.8"; f.Code == talhelper.CodeMapped && !strings.Contains(f.Message, want) {
					t.Errorf("%s's note does not name its installer %s: %s", f.Node, want, f.Message)
				}
			}
		})
	}
}

func TestImport_SchematicFileOfAnotherIDIsReportedAsDriftAndNotUsed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		given []talhelper.SchematicFile
		file  string
		// severity is the drift's: a warning where the file is meant for the image, a note
		// for another schematic beside the talconfig, which may be one for nodes to come.
		severity string
	}{
		{name: "schematic.yaml beside the talconfig is a warning", files: map[string]string{"schematic.yaml": driftedSchema}, file: "talos/schematic.yaml", severity: "warning"},
		{name: "a file given with --schematic is a warning", given: []talhelper.SchematicFile{{File: "drifted.yaml", Data: []byte(driftedSchema)}}, file: "drifted.yaml", severity: "warning"},
		{name: "another schematic beside the talconfig is a note", files: map[string]string{"gvisor.yaml": driftedSchema}, file: "talos/gvisor.yaml", severity: "info"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := importDir(t, tc.files, tc.given...)
			if err != nil {
				t.Fatal(err)
			}

			// The image's ID has no file: the nodes get it as an opaque schematic.
			opaque := "factory-44186a005dfc schematics/factory-44186a005dfc.yaml"
			if got := nodeSchematics(t, res); got["cp1"] != opaque || got["w1"] != opaque {
				t.Errorf("node schematics = %v, want the opaque %q", got, opaque)
			}

			want := []string{
				"warning talos/talconfig.yaml cp1 nodes[0].talosImageURL",
				"warning talos/talconfig.yaml w1 nodes[1].talosImageURL",
				tc.severity + " " + tc.file + "  ",
			}
			got := findingsAt(res, talhelper.CodeMapped)
			slices.Sort(got)
			slices.Sort(want)

			if !slices.Equal(got, want) {
				t.Fatalf("import.mapped findings = %q, want %q", got, want)
			}

			drift := res.Findings[slices.IndexFunc(res.Findings, func(f finding.Finding) bool { return f.File == tc.file })]
			if !strings.Contains(drift.Message, "this schematic's ID is "+driftedID) || !strings.Contains(drift.Message, gpuID+" (cp1, w1)") {
				t.Errorf("the drift does not name both IDs: %s", drift.Message)
			}
		})
	}
}

func TestImport_FilesThatAreNoSchematic(t *testing.T) {
	t.Run("beside the talconfig they are skipped", func(t *testing.T) {
		res, err := importDir(t, map[string]string{"talsecret.yaml": "cluster:\n  id: x\n", "schematic.yaml": "customization: [\n"})
		if err != nil {
			t.Fatal(err)
		}

		for _, f := range res.Findings {
			if f.File != "talos/talconfig.yaml" {
				t.Errorf("a file that is no schematic is reported: %+v", f)
			}
		}
	})

	t.Run("given with --schematic they are refused", func(t *testing.T) {
		_, err := importDir(t, nil, talhelper.SchematicFile{File: "talenv.yaml", Data: []byte("talosVersion: v1.13.8\n")})

		var ie *cluster.InputError
		if !errors.As(err, &ie) || ie.File != "talenv.yaml" || !strings.Contains(err.Error(), "not an Image Factory schematic") {
			t.Fatalf("want an input error at talenv.yaml, got %v", err)
		}
	})
}

// importCP1URL imports imageURLTalconfig with cp1's talosImageURL replaced by url, in a
// directory holding no file, with the given --schematic files.
func importCP1URL(url string, given ...talhelper.SchematicFile) (*talhelper.Result, error) {
	talconfig := strings.ReplaceAll(imageURLTalconfig, "factory.talos.dev/installer-secureboot/"+gpuID, url)

	return talhelper.Import(talhelper.Input{
		File: "talconfig.yaml", Data: []byte(talconfig), Secrets: "secrets.sops.yaml",
		Lookup:     func(string) (string, bool) { return "", false },
		ReadPatch:  func(string) ([]byte, error) { return nil, fs.ErrNotExist },
		Schematics: given,
	})
}

func TestImport_TalosImageURLOfNoFactoryOrTheVanillaImageNeedsNoFile(t *testing.T) {
	for _, tc := range []struct {
		name, url, severity, says string
	}{
		{"the stock installer", "ghcr.io/siderolabs/installer", "warning", "not an Image Factory installer"},
		{"the vanilla schematic's installer", "factory.talos.dev/metal-installer/" + vanillaID, "info", "the image has no extensions (the vanilla schematic)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := importCP1URL(tc.url)
			if err != nil {
				t.Fatal(err)
			}

			i := slices.IndexFunc(res.Findings, func(f finding.Finding) bool { return f.Node == "cp1" && f.Code == talhelper.CodeMapped })
			if i < 0 || string(res.Findings[i].Severity) != tc.severity || !strings.Contains(res.Findings[i].Message, tc.says) {
				t.Fatalf("want a %s saying %q at cp1's talosImageURL, got %+v", tc.severity, tc.says, res.Findings)
			}

			if got := nodeSchematics(t, res)["cp1"]; got != " " {
				t.Errorf("cp1's schematic = %q, want none", got)
			}
		})
	}
}

func TestImport_TalosImageURLTalopsCannotNameStaysInThePatch(t *testing.T) {
	for _, tc := range []struct{ name, url string }{
		{"another factory", "factory.example.com/installer-secureboot/" + gpuID},
		{"another flavour", "factory.talos.dev/nocloud-installer-secureboot/" + gpuID},
		{"the installer without secure boot on a secure boot node", "factory.talos.dev/installer/" + gpuID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := importCP1URL(tc.url, talhelper.SchematicFile{File: "gpu.yaml", Data: []byte(gpuSchematic)})
			if err != nil {
				t.Fatal(err)
			}

			if patch, _ := fileOf(res, "nodes/cp1-talhelper.yaml"); !strings.Contains(patch, tc.url+":v1.13.8") {
				t.Errorf("cp1's patch lost talhelper's installer:\n%s", patch)
			}

			if patch, _ := fileOf(res, "nodes/w1-talhelper.yaml"); strings.Contains(patch, "/machine/install/image") {
				t.Errorf("w1's installer (the legacy name of talops' own) is pinned:\n%s", patch)
			}
		})
	}
}

func TestImport_TalosImageURLWithoutAFileGetsTheFactorysSchematic(t *testing.T) {
	var asked []string

	fromFactory := func(factory, id string) (*schematic.Schematic, error) {
		asked = append(asked, factory+" "+id)

		return schematic.Load([]byte(gpuSchematic))
	}

	res, err := talhelper.Import(talhelper.Input{
		File: "talconfig.yaml", Data: []byte(imageURLTalconfig), Secrets: "secrets.sops.yaml",
		Lookup:    func(string) (string, bool) { return "", false },
		ReadPatch: func(string) ([]byte, error) { return nil, fs.ErrNotExist },
		Recover:   fromFactory,
	})
	if err != nil {
		t.Fatal(err)
	}

	if want := []string{"https://factory.talos.dev " + gpuID}; !slices.Equal(asked, want) {
		t.Errorf("the factory was asked %q, want %q (once per ID)", asked, want)
	}

	want := "factory-44186a005dfc schematics/factory-44186a005dfc.yaml"
	if got := nodeSchematics(t, res); got["cp1"] != want || got["w1"] != want {
		t.Errorf("node schematics = %v, want %q for both", got, want)
	}

	if data, _ := fileOf(res, "schematics/factory-44186a005dfc.yaml"); !strings.Contains(data, "GET /schematics/"+gpuID) {
		t.Errorf("the recovered schematic does not say where it came from:\n%s", data)
	}

	if patch, ok := fileOf(res, "nodes/cp1-talhelper.yaml"); ok && strings.Contains(patch, "/machine/install/image") {
		t.Errorf("cp1's patch pins the installer:\n%s", patch)
	}
}

func TestImport_TalosImageURLTheFactoryDoesNotKnowSaysWhy(t *testing.T) {
	res, err := talhelper.Import(talhelper.Input{
		File: "talconfig.yaml", Data: []byte(imageURLTalconfig), Secrets: "secrets.sops.yaml",
		Lookup:    func(string) (string, bool) { return "", false },
		ReadPatch: func(string) ([]byte, error) { return nil, fs.ErrNotExist },
		Recover: func(string, string) (*schematic.Schematic, error) {
			return nil, errors.New("GET https://factory.talos.dev/schematics/x: 404 Not Found")
		},
	})
	if err != nil {
		t.Fatal(err)
	}

	i := slices.IndexFunc(res.Findings, func(f finding.Finding) bool { return f.Node == "cp1" && f.Code == talhelper.CodeMapped })
	if i < 0 || res.Findings[i].Severity != finding.Warning || !strings.Contains(res.Findings[i].Message, "the Image Factory did not give it: GET https://factory.talos.dev/schematics/x: 404 Not Found") {
		t.Fatalf("want a warning saying why the factory did not give the schematic, got %+v", res.Findings)
	}

	if data, _ := fileOf(res, "schematics/factory-44186a005dfc.yaml"); !strings.Contains(data, "the Image Factory did not give it: GET https://factory.talos.dev/schematics/x: 404 Not Found") {
		t.Errorf("the opaque schematic does not say why it is opaque:\n%s", data)
	}
}

// Offline, an installer ID no file has becomes an opaque schematic file the nodes name, so
// talops names their installers and they follow talosVersion; the finding says how to fill
// it in.
func TestImport_OfflineTalosImageURLOfAnUnknownIDBecomesAnOpaqueSchematic(t *testing.T) {
	res, err := importDir(t, nil)
	if err != nil {
		t.Fatal(err)
	}

	want := "factory-44186a005dfc schematics/factory-44186a005dfc.yaml"
	if got := nodeSchematics(t, res); got["cp1"] != want || got["w1"] != want {
		t.Errorf("node schematics = %v, want %q for both", got, want)
	}

	data, _ := fileOf(res, "schematics/factory-44186a005dfc.yaml")
	if id, ok := schematic.Opaque([]byte(data)); !ok || id != gpuID {
		t.Errorf("schematics/factory-44186a005dfc.yaml is not the opaque schematic of %s:\n%s", gpuID, data)
	}

	if !strings.Contains(data, "import ran --offline") || !strings.Contains(data, "GET https://factory.talos.dev/schematics/"+gpuID) {
		t.Errorf("the opaque schematic does not say why, nor how to fill it in:\n%s", data)
	}

	if patch, ok := fileOf(res, "nodes/cp1-talhelper.yaml"); ok && strings.Contains(patch, "/machine/install/image") {
		t.Errorf("cp1's patch pins the installer:\n%s", patch)
	}

	i := slices.IndexFunc(res.Findings, func(f finding.Finding) bool { return f.Node == "w1" && f.Code == talhelper.CodeMapped })
	if i < 0 {
		t.Fatalf("no import.mapped finding for w1: %+v", res.Findings)
	}

	if f := res.Findings[i]; f.Severity != finding.Warning || f.Message != "talops has no schematic file for this image (no file beside the talconfig, nor one given with --schematic, has its ID; "+
		"import ran --offline, so the Image Factory was not asked for it): schematics/factory-44186a005dfc.yaml holds only the ID (an opaque schematic) and is the node's schematic, "+
		"talops names its installer, factory.talos.dev/installer/"+gpuID+":v1.13.8: it follows talosVersion; "+
		"talops cannot check its extensions until the file is filled in with what the factory gives for GET https://factory.talos.dev/schematics/"+gpuID+" (or the import runs online)" {
		t.Errorf("w1's finding = %+v", f)
	}
}
