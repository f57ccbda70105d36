package cli_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/testlab"
)

var update = flag.Bool("update", false, "rewrite golden files")

// harness runs commands against an in-memory repository.
type harness struct {
	deps           *cli.Deps
	stdout, stderr bytes.Buffer
	written        map[string][]byte
	mu             sync.Mutex
	// dirs are more repository directories (for plan --against).
	dirs map[string]cluster.MapFiles
}

func newHarness(t *testing.T, files cluster.MapFiles, env map[string]string) *harness {
	t.Helper()

	h := &harness{written: map[string][]byte{}, dirs: map[string]cluster.MapFiles{}}
	h.deps = &cli.Deps{
		Outside: app.Outside{
			Getenv:   func(k string) string { return env[k] },
			ReadFile: os.ReadFile,
			WriteFile: func(name string, data []byte, perm os.FileMode) error {
				h.mu.Lock()
				defer h.mu.Unlock()

				if perm != 0o600 {
					t.Errorf("%s written with mode %o, want 0600", name, perm)
				}

				h.written[name] = data

				return nil
			},
			MkdirAll: func(string, os.FileMode) error { return nil },
			CreateFile: func(name string, data []byte, perm os.FileMode) error {
				h.mu.Lock()
				defer h.mu.Unlock()

				if _, ok := h.written[name]; ok {
					return &os.PathError{Op: "create", Path: name, Err: os.ErrExist}
				}

				if perm != 0o600 {
					t.Errorf("%s created with mode %o, want 0600", name, perm)
				}

				h.written[name] = data

				return nil
			},
			OpenDir: func(dir string) (cluster.Files, func() error, error) {
				switch {
				case dir == "examples/homelab":
					return files, func() error { return nil }, nil
				case h.dirs[dir] != nil:
					return h.dirs[dir], func() error { return nil }, nil
				default:
					return nil, nil, noDir{}
				}
			},
			Now: func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) },
		},
		Stdout: &h.stdout,
		Stderr: &h.stderr,
	}

	return h
}

// noDir is the harness' missing directory: as the disk says it, fs.ErrNotExist.
type noDir struct{}

func (noDir) Error() string        { return "no such directory" }
func (noDir) Is(target error) bool { return target == fs.ErrNotExist }

func (h *harness) run(args ...string) error {
	return cli.Run(context.Background(), h.deps, args)
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	testlab.Golden(t, name, got, *update)
}

// brokenLab is the reference lab with one mistake of each kind validate reports.
func brokenLab(t *testing.T) cluster.MapFiles {
	files := testlab.Files(t)
	testlab.SetVersions(t, files, "", "v1.30.0")
	files["patches/worker.yaml"] = append(files["patches/worker.yaml"], []byte("  files:\n    - path: /var/etc/motd\n      permissions: 0o644\n      op: create\n      content: hello\n")...)
	testlab.Edit(t, files, "nodes/k8s-master.yaml", "hostname: k8s-master", "hostnam: k8s-master")

	return files
}

func TestValidate_ReferenceLabIsClean(t *testing.T) {
	t.Parallel()

	h := newHarness(t, testlab.Files(t), nil)

	if err := h.run("validate", "--dir", "examples/homelab"); err != nil {
		t.Fatalf("validate: %v\n%s", err, h.stderr.String())
	}

	golden(t, "validate-clean.txt", h.stdout.String())

	if h.stderr.Len() != 0 {
		t.Errorf("stderr: %s", h.stderr.String())
	}
}

func TestValidate_FindingsInEachFormat(t *testing.T) {
	t.Parallel()

	for _, format := range []string{"text", "json", "github"} {
		t.Run(format, func(t *testing.T) {
			h := newHarness(t, brokenLab(t), nil)

			err := h.run("validate", "--dir", "examples/homelab", "--format", format)
			if cli.ExitCode(err) != cli.ExitFailure {
				t.Fatalf("exit code %d, want 1 (err %v)", cli.ExitCode(err), err)
			}

			golden(t, "validate-broken."+format, h.stdout.String())

			if h.stderr.Len() != 0 {
				t.Errorf("stderr: %s", h.stderr.String())
			}
		})
	}
}

func TestValidate_InputErrorsAreOneLineEachWithExitOne(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	testlab.Edit(t, files, "talops.yaml", "schematic: gpu", "schematic: gpux")
	testlab.Edit(t, files, "talops.yaml", "platform: nocloud", "platfrom: nocloud")

	h := newHarness(t, files, nil)

	err := h.run("validate", "--dir", "examples/homelab")
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d", cli.ExitCode(err))
	}

	want := "talops: examples/homelab/talops.yaml:10: platfrom: unknown field; did you mean platform?\n"
	if h.stderr.String() != want {
		t.Errorf("stderr = %q, want %q", h.stderr.String(), want)
	}

	if h.stdout.Len() != 0 {
		t.Errorf("stdout: %s", h.stdout.String())
	}
}

func TestValidate_StandaloneFiles(t *testing.T) {
	t.Parallel()

	h := newHarness(t, testlab.Files(t), nil)
	if err := h.run("render", "--dir", "examples/homelab", "--out", "out"); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	good := filepath.Join(dir, "k8s-node2.yaml")
	bad := filepath.Join(dir, "bad.yaml")

	if err := os.WriteFile(good, h.written[filepath.Join("out", "k8s-node2.yaml")], 0o600); err != nil {
		t.Fatal(err)
	}

	broken := strings.Replace(string(h.written[filepath.Join("out", "k8s-node2.yaml")]), "    type: worker", "    type: wrker", 1)
	if err := os.WriteFile(bad, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}

	h2 := newHarness(t, nil, nil)
	if err := h2.run("validate", good); err != nil {
		t.Fatalf("validate %s: %v\n%s", good, err, h2.stdout.String())
	}

	h3 := newHarness(t, nil, nil)
	if err := h3.run("validate", "--format", "json", good, bad); cli.ExitCode(err) != 1 {
		t.Fatalf("exit %d", cli.ExitCode(err))
	}

	if !strings.Contains(h3.stdout.String(), `"code": "config.invalid"`) || !strings.Contains(h3.stdout.String(), "bad.yaml") {
		t.Errorf("stdout: %s", h3.stdout.String())
	}
}

func TestRender_WritesOneFilePerNodeAndPrintsOnlyWhatItWrote(t *testing.T) {
	t.Parallel()

	h := newHarness(t, testlab.Files(t), nil)

	if err := h.run("render", "--dir", "examples/homelab", "--out", "out"); err != nil {
		t.Fatal(err)
	}

	golden(t, "render.txt", h.stdout.String())

	if len(h.written) != 6 || !bytes.Contains(h.written[filepath.Join("out", "k8s-node1.yaml")], []byte("nvidia_uvm")) {
		t.Errorf("written: %d files", len(h.written))
	}
}

func TestRender_WritesRealFilesWithMode0600(t *testing.T) {
	t.Parallel()

	out := filepath.Join(t.TempDir(), "rendered")

	d := cli.OSDeps()
	var stdout, stderr bytes.Buffer
	d.Stdout, d.Stderr = &stdout, &stderr
	d.Getenv = testlab.NoEnv

	if err := cli.Run(context.Background(), d, []string{"render", "--dir", testlab.Dir(), "--out", out}); err != nil {
		t.Fatal(err)
	}

	st, err := os.Stat(filepath.Join(out, "k8s-master.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %o", st.Mode().Perm())
	}
}

// TestRender_IntoAnOldOutputTightensModesAndRemovesOnlyItsStaleNodes: a second render into
// the same directory makes the directory and every config private again, and removes the
// config of a node no longer in talops.yaml, which it wrote itself, but no other file.
func TestRender_IntoAnOldOutputTightensModesAndRemovesOnlyItsStaleNodes(t *testing.T) {
	t.Parallel()

	out := filepath.Join(t.TempDir(), "rendered")
	for name, mode := range map[string]os.FileMode{"k8s-master.yaml": 0o644, "k8s-old.yaml": 0o600, "other.yaml": 0o644, "notes.txt": 0o644} {
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}

		if err := os.WriteFile(filepath.Join(out, name), []byte("old\n"), mode); err != nil {
			t.Fatal(err)
		}
	}

	if err := os.Chmod(out, 0o755); err != nil {
		t.Fatal(err)
	}

	// The previous render wrote k8s-master and k8s-old; ../escape.yaml is a hand edit.
	if err := os.WriteFile(filepath.Join(out, ".talops-rendered"), []byte("k8s-master.yaml\nk8s-old.yaml\n../escape.yaml\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	d := cli.OSDeps()
	var stdout, stderr bytes.Buffer
	d.Stdout, d.Stderr = &stdout, &stderr
	d.Getenv = testlab.NoEnv

	if err := cli.Run(context.Background(), d, []string{"render", "--dir", testlab.Dir(), "--out", out}); err != nil {
		t.Fatal(err)
	}

	for name, want := range map[string]os.FileMode{"": 0o700 | os.ModeDir, "k8s-master.yaml": 0o600, "other.yaml": 0o644, "notes.txt": 0o644} {
		st, err := os.Stat(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}

		if st.Mode() != want {
			t.Errorf("%s: mode %v, want %v", filepath.Join(out, name), st.Mode(), want)
		}
	}

	if _, err := os.Stat(filepath.Join(out, "k8s-old.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale node's config is still there (%v)", err)
	}

	if want := "removed " + filepath.Join(out, "k8s-old.yaml") + " (its node is no longer in talops.yaml)\n"; !strings.HasSuffix(stdout.String(), want) {
		t.Errorf("stdout does not end with %q:\n%s", want, stdout.String())
	}

	if data, err := os.ReadFile(filepath.Join(out, "k8s-master.yaml")); err != nil || bytes.Equal(data, []byte("old\n")) {
		t.Errorf("k8s-master.yaml was not rewritten (%v)", err)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, "talops: unknown command \"frobnicate\" (run talops help)\n"},
		{[]string{"aply"}, "talops: unknown command \"aply\"; did you mean apply? (run talops help)\n"},
		{[]string{"validate", "--dir", "examples/homelab", "--fromat", "json"}, "talops: flag provided but not defined: -fromat; did you mean --format? (run talops validate -h)\n"},
		{[]string{"apply", "--allow-removes"}, "talops: flag provided but not defined: -allow-removes; did you mean --allow-remove? (run talops apply -h)\n"},
		{[]string{"proxmox", "imgaes"}, "talops: unknown proxmox command \"imgaes\"; did you mean images? (known: images, vms)\n"},
		{[]string{"catalog", "updat"}, "talops: unknown catalog command \"updat\"; did you mean update? (known: update)\n"},
		{[]string{"import", "talhelpr"}, "talops: unknown source \"talhelpr\"; did you mean talhelper? (known: talhelper, topf, talosctl)\n"},
		{[]string{"schematic", "di"}, "talops: unknown schematic command \"di\"; did you mean id? (known: id)\n"},
		{[]string{"validate", "--format", "xml"}, "talops: --format must be one of text, json, github, got \"xml\"\n"},
		{[]string{"render", "--dir", "examples/homelab"}, "talops: --out is required\n"},
		{[]string{"plan", "--against", "base", "stray"}, "talops: unexpected argument \"stray\" (run talops plan -h)\n"},
		{[]string{"apply", "stray"}, "talops: unexpected argument \"stray\" (run talops apply -h)\n"},
		{[]string{"validate", "--dir", "nowhere"}, "talops: open repository directory nowhere: no such directory\n"},
		{[]string{"validate", "--dir", "examples/homelab", "node.yaml"}, "talops: validate takes --dir or FILE arguments, not both\n"},
		{[]string{"validate", "../../examples/homelab/talops.yaml"}, "talops: ../../examples/homelab/talops.yaml is a talops repository file, not a machine config: validate its repository with talops validate --dir ../../examples/homelab\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			h := newHarness(t, testlab.Files(t), nil)

			if err := h.run(tc.args...); cli.ExitCode(err) != cli.ExitFailure {
				t.Fatalf("exit code %d", cli.ExitCode(err))
			}

			if h.stderr.String() != tc.want {
				t.Errorf("stderr = %q, want %q", h.stderr.String(), tc.want)
			}
		})
	}
}

func TestHelpExitsZero(t *testing.T) {
	t.Parallel()

	h := newHarness(t, nil, nil)

	if err := h.run("validate", "-h"); cli.ExitCode(err) != cli.ExitOK {
		t.Errorf("exit code %d", cli.ExitCode(err))
	}

	if !strings.Contains(h.stdout.String(), "--strict") || h.stderr.Len() > 0 {
		t.Errorf("help: stdout %q, stderr %q", h.stdout.String(), h.stderr.String())
	}
}

func TestValidate_TamperedSecretsFileIsRefusedWithOneLine(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)

	enc, err := os.ReadFile("../secrets/testdata/bundle.sops.yaml")
	if err != nil {
		t.Fatal(err)
	}

	files["secrets.sops.yaml"] = []byte(strings.Replace(string(enc), "mac: ENC[AES256_GCM,data:", "mac: ENC[AES256_GCM,data:AA", 1))
	testlab.Edit(t, files, "talops.yaml", "secrets: secrets.THROWAWAY.yaml", "secrets: secrets.sops.yaml")

	h := newHarness(t, files, map[string]string{"SOPS_AGE_KEY_FILE": "../secrets/testdata/THROWAWAY-age-key.txt"})

	if err := h.run("validate", "--dir", "examples/homelab"); cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d", cli.ExitCode(err))
	}

	lines := strings.Split(strings.TrimSpace(h.stderr.String()), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "talops: examples/homelab/secrets.sops.yaml: cannot decrypt secrets: ") {
		t.Errorf("stderr = %q", h.stderr.String())
	}
}

func TestValidate_StandaloneFileProblemsNameTheLineAndKey(t *testing.T) {
	t.Parallel()

	dir := t.TempDir()

	for _, tc := range []struct {
		name    string
		content string
		want    string
	}{
		{
			name:    "unknown keys are reported one per key with their line",
			content: "version: v1alpha1\nmachine:\n  type: worker\n  bogus: 1\n  kernel:\n    modules:\n      - name: a\n        bogus: 2\n",
			want: "unknown-keys.yaml:4: error config.invalid machine.bogus: unknown key\n" +
				"unknown-keys.yaml:8: error config.invalid machine.kernel.modules[0].bogus: unknown key\n",
		},
		{
			name:    "a value of the wrong type names its key",
			content: "version: v1alpha1\nmachine:\n  type: worker\n  sysctls: [a]\n",
			want:    "wrong-type.yaml:4: error config.invalid machine.sysctls: YAML: cannot construct !!seq into map[string]string\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := strings.Fields(tc.want)[0]
			file, _, _ = strings.Cut(file, ":")
			path := filepath.Join(dir, file)

			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}

			h := newHarness(t, nil, nil)
			if err := h.run("validate", path); cli.ExitCode(err) != cli.ExitFailure {
				t.Fatalf("exit code %d", cli.ExitCode(err))
			}

			got := strings.ReplaceAll(h.stdout.String(), dir+string(filepath.Separator), "")
			got = got[:strings.LastIndex(strings.TrimSuffix(got, "\n"), "\n")+1] // without the summary line

			if got != tc.want {
				t.Errorf("stdout:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestFileArguments_MissingFileIsOneLineNamingIt(t *testing.T) {
	t.Parallel()

	for _, args := range [][]string{{"validate", "nowhere.yaml"}, {"schematic", "id", "nowhere.yaml"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			h := newHarness(t, nil, nil)

			if err := h.run(args...); cli.ExitCode(err) != cli.ExitFailure {
				t.Fatalf("exit code %d", cli.ExitCode(err))
			}

			if want := "talops: nowhere.yaml: file not found\n"; h.stderr.String() != want {
				t.Errorf("stderr = %q, want %q", h.stderr.String(), want)
			}
		})
	}
}

func TestTopLevelHelpGoesToStdoutAndNoCommandIsAnError(t *testing.T) {
	t.Parallel()

	h := newHarness(t, nil, nil)
	if err := h.run("--help"); err != nil || !strings.Contains(h.stdout.String(), "Commands:") || h.stderr.Len() != 0 {
		t.Errorf("--help: %v, stdout %q, stderr %q", err, h.stdout.String(), h.stderr.String())
	}

	h = newHarness(t, nil, nil)
	if err := h.run(); cli.ExitCode(err) != cli.ExitFailure || !strings.Contains(h.stderr.String(), "talops: a command is required") || h.stdout.Len() != 0 {
		t.Errorf("no command: %v, stdout %q, stderr %q", err, h.stdout.String(), h.stderr.String())
	}
}

// The formats tools read carry the typo's file and line, as the text on stderr does.
func TestValidate_TalopsYAMLTypoIsAPlacedFindingInJSONAndGitHubFormats(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct{ cmd, format, want string }{
		{"validate", "json", `"file": "examples/homelab/talops.yaml",` + "\n      \"line\": 10,\n      \"path\": \"platfrom\""},
		{"validate", "github", "::error file=examples/homelab/talops.yaml,line=10"},
		{"plan", "json", `"file": "examples/homelab/talops.yaml",` + "\n      \"line\": 10,\n      \"path\": \"platfrom\""},
	} {
		t.Run(tc.cmd+" "+tc.format, func(t *testing.T) {
			t.Parallel()

			files := testlab.Files(t)
			testlab.Edit(t, files, "talops.yaml", "platform: nocloud", "platfrom: nocloud")

			h := newHarness(t, files, nil)

			args := []string{tc.cmd, "--dir", "examples/homelab", "--format", tc.format}
			if tc.cmd == "plan" {
				args = append(args, "--against", "examples/homelab")
			}

			if err := h.run(args...); cli.ExitCode(err) != cli.ExitFailure {
				t.Fatalf("exit code %d: %v", cli.ExitCode(err), err)
			}

			if !strings.Contains(h.stdout.String(), tc.want) || !strings.Contains(h.stdout.String(), "unknown field") {
				t.Errorf("stdout lacks %q:\n%s", tc.want, h.stdout.String())
			}
		})
	}
}

func TestValidate_UnknownFieldSuggestsTheFieldATypoMeant(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	testlab.Edit(t, files, "talops.yaml", "    installDisk: /dev/sda", "    instalDisk: /dev/sda")

	h := newHarness(t, files, nil)
	_ = h.run("validate", "--dir", "examples/homelab")

	if want := "talops: examples/homelab/talops.yaml:25: nodes[0].instalDisk: unknown field; did you mean installDisk?\n"; h.stderr.String() != want {
		t.Errorf("stderr = %q, want %q", h.stderr.String(), want)
	}
}
