package action_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/action"
	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/factory"
	"github.com/talops/talops/internal/factory/factorytest"
	"github.com/talops/talops/internal/images"
	"github.com/talops/talops/internal/schematic"
	"github.com/talops/talops/internal/testlab"
)

// output returns the value of one step output from the runner's GITHUB_OUTPUT file,
// written as name<<DELIMITER / value / DELIMITER.
func output(t *testing.T, r *runner, name string) string {
	t.Helper()

	lines := strings.Split(r.file(t, "GITHUB_OUTPUT"), "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, name+"<<") && i+1 < len(lines) {
			return lines[i+1]
		}
	}

	t.Fatalf("no output %s", name)

	return ""
}

func TestSchematics_SummaryTableAndOutputs(t *testing.T) {
	t.Parallel()

	r := newRunner(t, testlab.Files(t), map[string]string{"dir": "examples/homelab"})

	if err := action.Run(context.Background(), r.deps, []string{"schematics"}); err != nil {
		t.Fatalf("schematics: %v\n%s", err, r.stdout.String())
	}

	golden(t, "schematics-summary.md", r.file(t, "GITHUB_STEP_SUMMARY"))

	if !strings.Contains(r.stdout.String(), "2 schematics, 5 nodes: Talos "+testlab.Talos) {
		t.Errorf("log: %s", r.stdout.String())
	}

	var s images.Schematics
	if err := json.Unmarshal([]byte(output(t, r, "schematics")), &s); err != nil {
		t.Fatal(err)
	}

	var ids, installers map[string]string
	if err := json.Unmarshal([]byte(output(t, r, "ids")), &ids); err != nil {
		t.Fatal(err)
	}

	if err := json.Unmarshal([]byte(output(t, r, "installers")), &installers); err != nil {
		t.Fatal(err)
	}

	if len(s.Nodes) != 5 || len(ids) != 2 || len(installers) != 5 {
		t.Fatalf("%d nodes, %d ids, %d installers", len(s.Nodes), len(ids), len(installers))
	}

	for _, sc := range s.Schematics {
		if ids[sc.Name] != sc.ID || output(t, r, "id-"+sc.Name) != sc.ID {
			t.Errorf("schematic %s: ids %s, id-%s %s, want %s", sc.Name, ids[sc.Name], sc.Name, output(t, r, "id-"+sc.Name), sc.ID)
		}
	}

	if installers["k8s-node1"] != "factory.talos.dev/nocloud-installer/"+ids["gpu"]+":"+testlab.Talos {
		t.Errorf("installers = %v", installers)
	}
}

func TestSchematics_RegisterInputAndAMismatchFailsTheStep(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)

	load := func(name string) *schematic.Schematic {
		s, err := schematic.Load(files["schematics/"+name+".yaml"])
		if err != nil {
			t.Fatal(err)
		}

		return s
	}

	fake := factorytest.New(t)
	fake.ExpectRegister(load("base"))
	fake.ExpectRegister(load("gpu")).AnswerID(strings.Repeat("f", 64))

	r := newRunner(t, files, map[string]string{"dir": "examples/homelab", "register": "true"})
	r.deps.ImageFactory = func(string) (*factory.Client, error) {
		return factory.New(fake.URL(), factory.WithHTTPClient(fake.Client()), factory.WithRetries(0))
	}

	err := action.Run(context.Background(), r.deps, []string{"schematics"})
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d (%v)", cli.ExitCode(err), err)
	}

	want := "::error::register schematic gpu (examples/homelab/schematics/gpu.yaml) with " + fake.URL() + ": image factory gave schematic ID " + strings.Repeat("f", 64)
	if !strings.Contains(r.stdout.String(), want) {
		t.Errorf("stdout lacks %q:\n%s", want, r.stdout.String())
	}

	if !strings.Contains(r.file(t, "GITHUB_STEP_SUMMARY"), "image factory gave schematic ID") {
		t.Errorf("summary: %s", r.file(t, "GITHUB_STEP_SUMMARY"))
	}

	if strings.Contains(r.file(t, "GITHUB_OUTPUT"), "ids<<") {
		t.Errorf("outputs set although the factory did not confirm the IDs")
	}
}

func TestSchematics_ActionYAMLDeclaresWhatTheCommandReadsAndWrites(t *testing.T) {
	t.Parallel()

	meta := readMeta(t, "actions", "schematics", "action.yml")

	if got := slices.Sorted(maps.Keys(meta.Inputs)); !slices.Equal(got, []string{action.InputDir, action.InputRegister}) {
		t.Errorf("inputs = %v", got)
	}

	if !slices.Equal(meta.Runs.Args, []string{"action", "schematics"}) {
		t.Errorf("args = %v", meta.Runs.Args)
	}

	r := newRunner(t, testlab.Files(t), map[string]string{"dir": "examples/homelab"})
	if err := action.Run(context.Background(), r.deps, meta.Runs.Args[1:]); err != nil {
		t.Fatal(err)
	}

	// The id-<name> outputs depend on the repository's schematic names, so they cannot be declared.
	var set []string
	for _, line := range strings.Split(r.file(t, "GITHUB_OUTPUT"), "\n") {
		if name, _, ok := strings.Cut(line, "<<"); ok && !strings.HasPrefix(name, "id-") {
			set = append(set, name)
		}
	}

	slices.Sort(set)

	if declared := slices.Sorted(maps.Keys(meta.Outputs)); !slices.Equal(set, declared) {
		t.Errorf("outputs set %v, declared %v", set, declared)
	}
}
