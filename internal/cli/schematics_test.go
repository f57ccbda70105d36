package cli_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/factory"
	"github.com/talops/talops/internal/factory/factorytest"
	"github.com/talops/talops/internal/images"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/schematic"
	"github.com/talops/talops/internal/testlab"
)

// readLabFiles lets `schematic id` read examples/homelab/... from the in-memory lab.
func readLabFiles(h *harness, files cluster.MapFiles) {
	h.deps.ReadFile = func(name string) ([]byte, error) {
		if data, ok := files[strings.TrimPrefix(name, "examples/homelab/")]; ok && strings.HasPrefix(name, "examples/homelab/") {
			return data, nil
		}

		return nil, fs.ErrNotExist
	}
}

func schematicsJSON(t *testing.T, h *harness) images.Schematics {
	t.Helper()

	var s images.Schematics
	if err := json.Unmarshal(h.stdout.Bytes(), &s); err != nil {
		t.Fatalf("schematics --format json: %v\n%s", err, h.stdout.String())
	}

	return s
}

func TestSchematicID_OneFilePrintsTheIDAloneSeveralPrintIDAndFile(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)

	h := newHarness(t, files, nil)
	readLabFiles(h, files)

	if err := h.run("schematic", "id", "examples/homelab/schematics/gpu.yaml"); err != nil {
		t.Fatal(err)
	}

	one := h.stdout.String()
	if len(one) != 65 || !strings.HasSuffix(one, "\n") {
		t.Fatalf("one file: stdout = %q, want the ID alone on its line", one)
	}

	h = newHarness(t, files, nil)
	readLabFiles(h, files)

	if err := h.run("schematic", "id", "examples/homelab/schematics/base.yaml", "examples/homelab/schematics/gpu.yaml"); err != nil {
		t.Fatal(err)
	}

	lines := strings.Split(strings.TrimSuffix(h.stdout.String(), "\n"), "\n")
	if len(lines) != 2 || lines[1] != strings.TrimSpace(one)+"  examples/homelab/schematics/gpu.yaml" ||
		!strings.HasSuffix(lines[0], "  examples/homelab/schematics/base.yaml") {
		t.Errorf("several files: stdout = %q", h.stdout.String())
	}
}

func TestSchematicID_ErrorsNameFileLineAndFieldAndTheGoodFilesStillPrint(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	files["schematics/typo.yaml"] = []byte("customization:\n  systemExtension:\n    officialExtensions: [siderolabs/zfs]\n")
	files["schematics/type.yaml"] = []byte("customization:\n  systemExtensions:\n    officialExtensions: siderolabs/zfs\n")

	h := newHarness(t, files, nil)
	readLabFiles(h, files)

	err := h.run("schematic", "id", "examples/homelab/schematics/typo.yaml", "examples/homelab/schematics/base.yaml",
		"examples/homelab/schematics/type.yaml", "examples/homelab/schematics/missing.yaml")
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d", cli.ExitCode(err))
	}

	want := "talops: examples/homelab/schematics/typo.yaml:2: customization.systemExtension: unknown field\n" +
		"talops: examples/homelab/schematics/type.yaml:3: customization.systemExtensions.officialExtensions: cannot construct !!str `siderol...` into []string\n" +
		"talops: examples/homelab/schematics/missing.yaml: file not found\n"
	if h.stderr.String() != want {
		t.Errorf("stderr = %q, want %q", h.stderr.String(), want)
	}

	if !strings.HasSuffix(h.stdout.String(), "  examples/homelab/schematics/base.yaml\n") || strings.Count(h.stdout.String(), "\n") != 1 {
		t.Errorf("stdout = %q, want the ID of base.yaml alone", h.stdout.String())
	}
}

func TestSchematicID_UsageErrors(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"schematic"}, "talops: schematic: a subcommand is required (id)\n"},
		{[]string{"schematic", "hash", "x.yaml"}, "talops: unknown schematic command \"hash\" (known: id)\n"},
		{[]string{"schematic", "id"}, "talops: schematic id: at least one FILE is required\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			h := newHarness(t, nil, nil)

			if err := h.run(tc.args...); cli.ExitCode(err) != cli.ExitFailure {
				t.Fatalf("exit code %d", cli.ExitCode(err))
			}

			if !strings.HasSuffix(h.stderr.String(), tc.want) {
				t.Errorf("stderr = %q, want it to end with %q", h.stderr.String(), tc.want)
			}
		})
	}
}

func TestSchematics_LabInEachFormat(t *testing.T) {
	t.Parallel()

	for _, format := range report.SchematicFormats {
		t.Run(format, func(t *testing.T) {
			h := newHarness(t, testlab.Files(t), nil)

			if err := h.run("schematics", "--dir", "examples/homelab", "--format", format); err != nil {
				t.Fatalf("schematics: %v\n%s", err, h.stderr.String())
			}

			golden(t, "schematics."+format, h.stdout.String())

			if h.stderr.Len() != 0 {
				t.Errorf("stderr: %s", h.stderr.String())
			}
		})
	}
}

func TestSchematics_LabHasTwoSchematicsAndFiveInstallersWithTheIDsOfSchematicID(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)

	h := newHarness(t, files, nil)
	if err := h.run("schematics", "--dir", "examples/homelab", "--format", "json"); err != nil {
		t.Fatal(err)
	}

	s := schematicsJSON(t, h)
	if len(s.Schematics) != 2 || len(s.Nodes) != 5 {
		t.Fatalf("%d schematics, %d nodes; want 2 and 5", len(s.Schematics), len(s.Nodes))
	}

	ids := map[string]string{}

	for _, sc := range s.Schematics {
		h := newHarness(t, files, nil)
		readLabFiles(h, files)

		if err := h.run("schematic", "id", sc.File); err != nil {
			t.Fatal(err)
		}

		id := strings.TrimSpace(h.stdout.String())
		if sc.ID != id {
			t.Errorf("schematic %s: schematics says %s, schematic id %s says %s", sc.Name, sc.ID, sc.File, id)
		}

		ids[sc.Name] = id
	}

	for _, n := range s.Nodes {
		want := "factory.talos.dev/nocloud-installer/" + ids[n.Schematic] + ":" + testlab.Talos
		if n.Installer != want || n.ID != ids[n.Schematic] {
			t.Errorf("node %s: installer %s, want %s", n.Name, n.Installer, want)
		}

		if !strings.HasPrefix(n.ISO, "https://factory.talos.dev/image/"+ids[n.Schematic]+"/"+testlab.Talos+"/") {
			t.Errorf("node %s: ISO %s", n.Name, n.ISO)
		}
	}
}

func TestSchematics_SecureBootVanillaNodesAndACustomFactory(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	testlab.Edit(t, files, "talops.yaml", "platform: nocloud\n", "platform: metal\nimageFactory: https://tif.example.org:8443/\n")
	testlab.Edit(t, files, "talops.yaml", "    schematic: base\n    installDisk: /dev/sda\n    patches: [nodes/k8s-node4.yaml]", "    installDisk: /dev/sda\n    secureBoot: true\n    patches: [nodes/k8s-node4.yaml]")

	h := newHarness(t, files, nil)
	if err := h.run("schematics", "--dir", "examples/homelab", "--format", "json"); err != nil {
		t.Fatal(err)
	}

	s := schematicsJSON(t, h)

	want := images.NodeImage{
		Name: "k8s-node4", ID: schematic.VanillaID, SecureBoot: true,
		Installer: "tif.example.org:8443/metal-installer-secureboot/" + schematic.VanillaID + ":" + testlab.Talos,
		ISO:       "https://tif.example.org:8443/image/" + schematic.VanillaID + "/" + testlab.Talos + "/metal-amd64-secureboot.iso",
		DiskImage: "https://tif.example.org:8443/image/" + schematic.VanillaID + "/" + testlab.Talos + "/metal-amd64-secureboot.raw.zst",
	}
	if s.Nodes[4] != want {
		t.Errorf("node = %+v\nwant   %+v", s.Nodes[4], want)
	}

	if s.ImageFactory != "https://tif.example.org:8443" || !strings.HasPrefix(s.Nodes[0].Installer, "tif.example.org:8443/metal-installer/") {
		t.Errorf("factory %s, installer %s", s.ImageFactory, s.Nodes[0].Installer)
	}
}

// fakeFactory points the harness's Image Factory door at a fake, and checks that talops
// asked for the factory talops.yaml names.
func fakeFactory(t *testing.T, h *harness, wantBase string) *factorytest.Server {
	t.Helper()

	fake := factorytest.New(t)
	// The lab's base schematic is in factorytest.RealIDs; no public source gives the real
	// factory's ID of its gpu schematic, so this is talops' own: a test that registers it
	// proves the flow, not the ID.
	fake.Assume(string(testlab.Files(t)["schematics/gpu.yaml"]), "36c59f07be430e8460e0638ca70f5ceb0ae1398df636c99ec717ed132b8bbfe0")
	h.deps.ImageFactory = func(base string) (*factory.Client, error) {
		if base != wantBase {
			t.Errorf("factory base URL %q, want %q", base, wantBase)
		}

		return factory.New(fake.URL(), factory.WithHTTPClient(fake.Client()), factory.WithRetries(0))
	}

	return fake
}

func labSchematic(t *testing.T, files cluster.MapFiles, name string) *schematic.Schematic {
	t.Helper()

	s, err := schematic.Load(files["schematics/"+name+".yaml"])
	if err != nil {
		t.Fatal(err)
	}

	return s
}

func TestSchematics_RegisterPostsEverySchematicAndConfirmsTheIDs(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)

	h := newHarness(t, files, nil)
	fake := fakeFactory(t, h, "https://factory.talos.dev")
	fake.ExpectRegister(labSchematic(t, files, "base"))
	fake.ExpectRegister(labSchematic(t, files, "gpu"))

	if err := h.run("schematics", "--dir", "examples/homelab", "--register"); err != nil {
		t.Fatalf("schematics --register: %v\n%s", err, h.stderr.String())
	}

	if !strings.Contains(h.stdout.String(), "(every schematic registered, IDs confirmed)") {
		t.Errorf("stdout: %s", h.stdout.String())
	}

	for _, r := range fake.Requests() {
		if r.ContentType != "application/yaml" {
			t.Errorf("%s %s sent as %q", r.Method, r.Path, r.ContentType)
		}
	}
}

func TestSchematics_RegisterFailsWhenTheFactoryGivesAnotherID(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	other := strings.Repeat("0", 64)

	h := newHarness(t, files, nil)
	fake := fakeFactory(t, h, "https://factory.talos.dev")
	fake.ExpectRegister(labSchematic(t, files, "base"))
	fake.ExpectRegister(labSchematic(t, files, "gpu")).AnswerID(other)

	err := h.run("schematics", "--dir", "examples/homelab", "--register")
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d (%v)", cli.ExitCode(err), err)
	}

	var mismatch *factory.IDMismatchError
	if !errors.As(err, &mismatch) || mismatch.Factory != other {
		t.Fatalf("error %v, want an ID mismatch", err)
	}

	if !strings.HasPrefix(h.stderr.String(), "talops: register schematic gpu (examples/homelab/schematics/gpu.yaml) with "+fake.URL()+": image factory gave schematic ID "+other) ||
		strings.Count(h.stderr.String(), "\n") != 1 {
		t.Errorf("stderr = %q", h.stderr.String())
	}

	if h.stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing printed for IDs the factory does not confirm", h.stdout.String())
	}
}

func TestSchematics_RegisterStopsWhenTheFactoryIsDown(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)

	h := newHarness(t, files, nil)
	fake := fakeFactory(t, h, "https://factory.talos.dev")
	fake.ExpectRegister(nil).Respond(http.StatusServiceUnavailable, "maintenance")

	err := h.run("schematics", "--dir", "examples/homelab", "--register")

	var down *factory.UnavailableError
	if !errors.As(err, &down) {
		t.Fatalf("error %v, want the factory unavailable", err)
	}

	if len(fake.Requests()) != 1 {
		t.Errorf("%d requests, want the run to stop after the first", len(fake.Requests()))
	}
}

func TestSchematics_NoNetworkWithoutRegister(t *testing.T) {
	t.Parallel()

	h := newHarness(t, testlab.Files(t), nil)
	h.deps.ImageFactory = func(string) (*factory.Client, error) {
		t.Error("the factory was asked for without --register")

		return nil, errors.New("no network")
	}

	if err := h.run("schematics", "--dir", "examples/homelab"); err != nil {
		t.Fatal(err)
	}
}

func TestSchematics_BrokenSchematicIsOneLineNamingFileLineAndField(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	testlab.Edit(t, files, "schematics/gpu.yaml", "    officialExtensions:", "    officialExtension:")

	h := newHarness(t, files, nil)

	if err := h.run("schematics", "--dir", "examples/homelab"); cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d", cli.ExitCode(err))
	}

	want := "talops: examples/homelab/schematics/gpu.yaml:5: customization.systemExtensions.officialExtension: unknown field\n"
	if h.stderr.String() != want || h.stdout.Len() != 0 {
		t.Errorf("stderr = %q, want %q; stdout = %q", h.stderr.String(), want, h.stdout.String())
	}
}
