package action_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/action"
	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/testlab"
)

var update = flag.Bool("update", false, "rewrite golden files")

// runner is a constructed GitHub Actions runner environment.
type runner struct {
	env            map[string]string
	stdout, stderr bytes.Buffer
	deps           *cli.Deps
	// dirs are more repository directories (for the plan's against input).
	dirs map[string]cluster.MapFiles
}

func newRunner(t *testing.T, files cluster.MapFiles, inputs map[string]string) *runner {
	t.Helper()

	dir := t.TempDir()
	event := filepath.Join(dir, "event.json")

	if err := os.WriteFile(event, []byte(`{"number": 7, "pull_request": {"number": 7, "base": {"sha": "aaaa"}, "head": {"sha": "bbbb"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}

	r := &runner{dirs: map[string]cluster.MapFiles{}, env: map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_EVENT_NAME":   "pull_request",
		"GITHUB_EVENT_PATH":   event,
		"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary"),
		"GITHUB_WORKSPACE":    dir,
		"GITHUB_REPOSITORY":   "lab/infra",
	}}

	for k, v := range inputs {
		r.env["INPUT_"+strings.ToUpper(k)] = v
	}

	r.deps = &cli.Deps{
		Outside: app.Outside{
			Getenv:   func(k string) string { return r.env[k] },
			ReadFile: os.ReadFile,
			OpenDir: func(d string) (cluster.Files, func() error, error) {
				switch {
				case d == "examples/homelab":
					return files, func() error { return nil }, nil
				case r.dirs[d] != nil:
					return r.dirs[d], func() error { return nil }, nil
				default:
					return nil, nil, errors.New("no such directory")
				}
			},
			Now: time.Now,
		},
		Stdout:     &r.stdout,
		Stderr:     &r.stderr,
		HTTPClient: http.DefaultClient,
		AppendFile: cli.OSDeps().AppendFile,
	}

	return r
}

func (r *runner) file(t *testing.T, name string) string {
	t.Helper()

	data, err := os.ReadFile(r.env[name])
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}

	return string(data)
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	testlab.Golden(t, name, got, *update)
}

func brokenLab(t *testing.T) cluster.MapFiles {
	files := testlab.Files(t)
	testlab.SetVersions(t, files, "", "v1.30.0")
	files["patches/worker.yaml"] = append(files["patches/worker.yaml"], []byte("  files:\n    - path: /var/etc/motd\n      permissions: 0o644\n      op: create\n      content: hello\n")...)

	return files
}

func TestValidate_AnnotationsSummaryAndOutputs(t *testing.T) {
	t.Parallel()

	r := newRunner(t, brokenLab(t), map[string]string{"dir": "examples/homelab", "strict": "false"})

	err := action.Run(context.Background(), r.deps, []string{"validate"})
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d (%v)", cli.ExitCode(err), err)
	}

	stdout := r.stdout.String()

	// Secret masks come first, then one annotation per finding.
	if !strings.HasPrefix(stdout, "::add-mask::") {
		t.Errorf("stdout does not start with the secret masks")
	}

	var annotations []string
	for _, line := range strings.Split(stdout, "\n") {
		if !strings.HasPrefix(line, "::add-mask::") {
			annotations = append(annotations, line)
		}
	}

	golden(t, "validate-annotations.txt", strings.Join(annotations, "\n"))
	golden(t, "validate-summary.md", r.file(t, "GITHUB_STEP_SUMMARY"))

	out := r.file(t, "GITHUB_OUTPUT")
	for _, want := range []string{"errors<<", "\n1\n", "warnings<<", "\n4\n", `"code":"versions.k8s-unsupported"`} {
		if !strings.Contains(out, want) {
			t.Errorf("outputs lack %q:\n%s", want, out)
		}
	}
}

func TestValidate_CleanLabPasses(t *testing.T) {
	t.Parallel()

	r := newRunner(t, testlab.Files(t), map[string]string{"dir": "examples/homelab"})

	if err := action.Run(context.Background(), r.deps, []string{"validate"}); err != nil {
		t.Fatalf("validate: %v\n%s", err, r.stdout.String())
	}

	if !strings.Contains(r.file(t, "GITHUB_STEP_SUMMARY"), "validate ok: 5 nodes checked") {
		t.Errorf("summary: %s", r.file(t, "GITHUB_STEP_SUMMARY"))
	}
}

func TestCommandInputSelectsTheCommand(t *testing.T) {
	t.Parallel()

	r := newRunner(t, testlab.Files(t), map[string]string{"dir": "examples/homelab", "command": "validate"})

	if err := action.Run(context.Background(), r.deps, nil); err != nil {
		t.Fatalf("validate through the command input: %v", err)
	}

	r = newRunner(t, testlab.Files(t), map[string]string{"command": "destroy"})
	if err := action.Run(context.Background(), r.deps, nil); cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("unknown command: exit %d", cli.ExitCode(err))
	}

	if !strings.Contains(r.stdout.String(), "::error::action: unknown command \"destroy\"") {
		t.Errorf("stdout: %s", r.stdout.String())
	}
}

func TestInputsKeepTheirHyphensAndSecretInputsAreMasked(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	bundle := string(files["secrets.THROWAWAY.yaml"])
	testlab.Edit(t, files, "talops.yaml", "secrets: secrets.THROWAWAY.yaml\n", "")

	r := newRunner(t, files, map[string]string{"dir": "examples/homelab", "talos-secrets": bundle})

	if _, ok := r.env["INPUT_TALOS-SECRETS"]; !ok {
		t.Fatal("runner environment lacks INPUT_TALOS-SECRETS")
	}

	if err := action.Run(context.Background(), r.deps, []string{"validate"}); err != nil {
		t.Fatalf("validate: %v", err)
	}

	// The bundle came from the input, so no throwaway note.
	if strings.Contains(r.stdout.String(), "secrets.throwaway") {
		t.Errorf("the talos-secrets input was not used:\n%s", r.stdout.String())
	}

	c := testlab.Load(t, testlab.Files(t))

	b, err := (&secrets.Loader{Getenv: testlab.NoEnv, Now: time.Now}).Load(c)
	if err != nil {
		t.Fatal(err)
	}

	for _, v := range b.Values() {
		for _, line := range action.MaskLines(v) {
			if !strings.Contains(r.stdout.String(), "::add-mask::"+line+"\n") {
				t.Errorf("secret value (%d characters) not masked with the runner", len(v))
			}
		}
	}

	for _, name := range []string{"GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"} {
		for _, v := range b.Values() {
			if strings.Contains(r.file(t, name), v) {
				t.Errorf("%s contains a secret value", name)
			}
		}
	}
}

func TestInputErrorBecomesAnAnnotationOnItsFileAndLineAndTheSummary(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	testlab.Edit(t, files, "talops.yaml", "schematic: gpu", "schematic: gpux")
	testlab.Edit(t, files, "talops.yaml", "address: 10.0.20.104", "address: 10.0.20.103")

	r := newRunner(t, files, map[string]string{"dir": "examples/homelab"})

	if err := action.Run(context.Background(), r.deps, []string{"validate"}); cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d", cli.ExitCode(err))
	}

	for _, want := range []string{
		"::error file=examples/homelab/talops.yaml,line=31,title=talops::nodes[1].schematic: unknown schematic \"gpux\" (known: base, gpu)\n",
		"::error file=examples/homelab/talops.yaml,line=50,title=talops::nodes[4].address: duplicate address \"10.0.20.103\" (also nodes[3])\n",
	} {
		if !strings.Contains(r.stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout.String())
		}
	}

	if !strings.Contains(r.file(t, "GITHUB_STEP_SUMMARY"), "unknown schematic") {
		t.Errorf("summary: %s", r.file(t, "GITHUB_STEP_SUMMARY"))
	}
}

func TestBadBooleanInput(t *testing.T) {
	t.Parallel()

	r := newRunner(t, testlab.Files(t), map[string]string{"dir": "examples/homelab", "strict": "yes please"})

	if err := action.Run(context.Background(), r.deps, []string{"validate"}); cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d", cli.ExitCode(err))
	}

	if !strings.Contains(r.stdout.String(), `input strict must be true or false, got \"yes please\"`) && !strings.Contains(r.stdout.String(), `input strict must be true or false, got "yes please"`) {
		t.Errorf("stdout: %s", r.stdout.String())
	}
}

// labValues are the secret values of the reference lab's bundle.
func labValues(t *testing.T) []string {
	t.Helper()

	b, err := (&secrets.Loader{Getenv: testlab.NoEnv, Now: time.Now}).Load(testlab.Load(t, testlab.Files(t)))
	if err != nil {
		t.Fatal(err)
	}

	return b.Values()
}

func TestOutputs_FramedByARandomDelimiter(t *testing.T) {
	t.Parallel()

	frames := map[string]bool{}

	for range 2 {
		r := newRunner(t, testlab.Files(t), map[string]string{"dir": "examples/homelab"})
		if err := action.Run(context.Background(), r.deps, []string{"validate"}); err != nil {
			t.Fatal(err)
		}

		lines := strings.Split(strings.TrimSpace(r.file(t, "GITHUB_OUTPUT")), "\n")
		for i := 0; i < len(lines); i += 3 {
			name, delim, ok := strings.Cut(lines[i], "<<")
			if !ok || len(delim) != len("ghadelimiter_")+32 || lines[i+2] != delim {
				t.Fatalf("output %q is not framed by its own random delimiter:\n%s", name, r.file(t, "GITHUB_OUTPUT"))
			}

			frames[delim] = true
		}
	}

	if len(frames) != 8 {
		t.Errorf("%d distinct delimiters for 8 outputs", len(frames))
	}
}

// TestHelp_IsPlainHelpNotAnError: `talops action --help` at a terminal prints the action's
// help and its commands, exits 0, and writes no workflow command.
func TestHelp_IsPlainHelpNotAnError(t *testing.T) {
	t.Parallel()

	for _, arg := range []string{"-h", "--help", "help"} {
		r := newRunner(t, testlab.Files(t), nil)

		if err := action.Run(context.Background(), r.deps, []string{arg}); err != nil {
			t.Fatalf("action %s: %v", arg, err)
		}

		out := r.stdout.String()
		if !strings.HasPrefix(out, "Usage: talops action <command>") || !strings.Contains(out, "apply, backup, plan, schematics, validate, versions") {
			t.Errorf("action %s printed %q", arg, out)
		}

		if strings.Contains(out, "::") || r.file(t, "GITHUB_OUTPUT") != "" {
			t.Errorf("action %s wrote workflow commands or outputs: %q", arg, out)
		}
	}
}
