package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// The workflows this repository runs (.github/workflows) and the copy-ready ones users
// take (docs/workflows) hold the merge-time job's trust: what they run, with which secrets.
// These tests hold the rules of docs/threat-model.md on every one of them.

// workflowStep is one step of a workflow, with what it runs and the environment it sees.
type workflowStep struct {
	file, job string
	line      int
	uses      string
	// usesComment is the comment after uses: on its line ("# v4.4.0").
	usesComment string
	run         string
	// id, cond and with are the step's id, if and with.
	id, cond string
	with     map[string]string
	// env is the workflow's, the job's and the step's env, the step's winning.
	env map[string]string
}

func (s workflowStep) String() string { return fmt.Sprintf("%s:%d (job %s)", s.file, s.line, s.job) }

func workflowFiles(t *testing.T) []string {
	t.Helper()

	var files []string

	for _, glob := range []string{".github/workflows/*.yml", ".github/workflows/*.yaml", "docs/workflows/*.yml", "docs/workflows/*.yaml"} {
		found, err := filepath.Glob(filepath.Join(repoRoot(t), glob))
		if err != nil {
			t.Fatal(err)
		}

		files = append(files, found...)
	}

	// A glob that found nothing would pass every rule.
	if len(files) < 4 {
		t.Fatalf("found %d workflow files, want the CI, release and catalog workflows and the copy-ready ones", len(files))
	}

	return files
}

func repoRoot(t *testing.T) string {
	t.Helper()

	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}

	return root
}

// workflowSteps reads every step of every job of a workflow file.
func workflowSteps(t *testing.T, path string) []workflowStep {
	t.Helper()

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	rel, _ := filepath.Rel(repoRoot(t), path)

	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}

	if len(doc.Content) == 0 {
		t.Fatalf("%s: empty", rel)
	}

	top := doc.Content[0]
	wfEnv := envOf(mapValue(top, "env"))

	var steps []workflowStep

	jobs := mapValue(top, "jobs")
	if jobs == nil {
		t.Fatalf("%s: no jobs", rel)
	}

	for i := 0; i+1 < len(jobs.Content); i += 2 {
		name, job := jobs.Content[i].Value, jobs.Content[i+1]
		jobEnv := merged(wfEnv, envOf(mapValue(job, "env")))

		// A job that calls a reusable workflow has uses: of its own.
		if u := mapValue(job, "uses"); u != nil {
			steps = append(steps, workflowStep{file: rel, job: name, line: u.Line, uses: u.Value, usesComment: u.LineComment, env: jobEnv})
		}

		stepList := mapValue(job, "steps")
		if stepList == nil {
			continue
		}

		for _, st := range stepList.Content {
			s := workflowStep{file: rel, job: name, line: st.Line, env: merged(jobEnv, envOf(mapValue(st, "env")))}
			if u := mapValue(st, "uses"); u != nil {
				s.uses, s.usesComment = u.Value, u.LineComment
			}

			if r := mapValue(st, "run"); r != nil {
				s.run = r.Value
			}

			if v := mapValue(st, "id"); v != nil {
				s.id = v.Value
			}

			if v := mapValue(st, "if"); v != nil {
				s.cond = v.Value
			}

			s.with = envOf(mapValue(st, "with"))

			steps = append(steps, s)
		}
	}

	return steps
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}

	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}

	return nil
}

func envOf(n *yaml.Node) map[string]string {
	out := map[string]string{}

	if n == nil || n.Kind != yaml.MappingNode {
		return out
	}

	for i := 0; i+1 < len(n.Content); i += 2 {
		out[n.Content[i].Value] = n.Content[i+1].Value
	}

	return out
}

func merged(outer, inner map[string]string) map[string]string {
	out := make(map[string]string, len(outer)+len(inner))
	for k, v := range outer {
		out[k] = v
	}

	for k, v := range inner {
		out[k] = v
	}

	return out
}

// pinnedUses is an action or reusable workflow of another repository at a full commit SHA.
var pinnedUses = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(/[A-Za-z0-9_./-]+)?@[0-9a-f]{40}$`)

// versionComment names the release the SHA is, as Renovate reads it.
var versionComment = regexp.MustCompile(`^# v\d+(\.\d+){0,2}$`)

// usesProblem says why a uses: reference may change under the workflow, or "" when it cannot.
func usesProblem(uses, comment string) string {
	switch {
	case strings.HasPrefix(uses, "./"):
		// This repository's own files, at the commit that runs.
		return ""
	case strings.HasPrefix(uses, "talops/talops/"):
		return ownActionProblem(uses, comment)
	case strings.HasPrefix(uses, "docker://"):
		if !regexp.MustCompile(`@sha256:[0-9a-f]{64}$`).MatchString(uses) {
			return "an image by tag: pin it by digest"
		}

		return ""
	case !pinnedUses.MatchString(uses):
		return "not pinned by a full commit SHA: a tag can be moved to other code"
	case !versionComment.MatchString(comment):
		return fmt.Sprintf("the SHA has no version comment (%q): write it as uses: owner/repo@<sha> # vX.Y.Z", comment)
	}

	return ""
}

// ownAction is one of talops' own actions at its major tag, or at a full commit SHA.
var ownAction = regexp.MustCompile(`^talops/talops/actions/[a-z]+@(v\d+|[0-9a-f]{40})$`)

// ownActionProblem says why a use of talops' own actions may change under the workflow, or
// "" when it cannot more than the release process lets it. The release moves the actions'
// major tag to the commit that runs the released image by digest (docs/releasing.md): that
// commit, not the vX.Y.Z tag's (whose action.yml still names the previous image), is the one
// to pin, as @<sha> # v<major>, which Renovate moves when the tag moves. Until a first release
// there is no such commit, and the major tag is the name.
func ownActionProblem(uses, comment string) string {
	m := ownAction.FindStringSubmatch(uses)

	switch {
	case m == nil:
		return "talops' own actions are named talops/talops/actions/<name>@v<major>, or @<full commit SHA> # v<major>"
	case strings.HasPrefix(m[1], "v"):
		return ""
	case !regexp.MustCompile(`^# v\d+$`).MatchString(comment):
		return fmt.Sprintf("the SHA has no major-tag comment (%q): write it as # v<major>, the tag whose commit runs the released image", comment)
	}

	return ""
}

func TestWorkflows_EveryUsesIsPinnedByCommitSHAWithItsVersion(t *testing.T) {
	t.Parallel()

	count := 0

	for _, f := range workflowFiles(t) {
		for _, s := range workflowSteps(t, f) {
			if s.uses == "" {
				continue
			}

			count++

			if p := usesProblem(s.uses, s.usesComment); p != "" {
				t.Errorf("%s: uses: %s: %s", s, s.uses, p)
			}
		}
	}

	if count == 0 {
		t.Fatal("found no uses: at all")
	}
}

// The guides show steps to copy: they follow the same rule as the workflows.
func TestDocs_UsesInGuidesIsPinnedByCommitSHAWithItsVersion(t *testing.T) {
	t.Parallel()

	usesLine := regexp.MustCompile(`^\s*(?:-\s+)?uses:\s+(\S+)\s*(#.*)?$`)
	root := repoRoot(t)

	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}

		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}

		if d.IsDir() || filepath.Ext(path) != ".md" {
			return nil
		}

		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}

		rel, _ := filepath.Rel(root, path)

		for i, line := range strings.Split(string(data), "\n") {
			m := usesLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}

			if p := usesProblem(m[1], strings.TrimSpace(m[2])); p != "" {
				t.Errorf("%s:%d: uses: %s: %s", rel, i+1, m[1], p)
			}
		}

		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestUsesProblem_RefusesWhatCanMove(t *testing.T) {
	t.Parallel()

	const sha = "11d5960a326750d5838078e36cf38b85af677262"

	tests := []struct {
		name, uses, comment string
		pinned              bool
	}{
		{name: "sha with its version", uses: "actions/checkout@" + sha, comment: "# v4.4.0", pinned: true},
		{name: "sha of an action in a subdirectory", uses: "anchore/sbom-action/download-syft@" + sha, comment: "# v0.24.0", pinned: true},
		{name: "major tag", uses: "actions/checkout@v4"},
		{name: "branch", uses: "actions/checkout@main"},
		{name: "short sha", uses: "actions/checkout@11d5960", comment: "# v4.4.0"},
		{name: "sha without a version comment", uses: "actions/checkout@" + sha},
		{name: "sha with a comment that is no version", uses: "actions/checkout@" + sha, comment: "# latest"},
		{name: "image by tag", uses: "docker://alpine:3.20"},
		{name: "image by digest", uses: "docker://alpine@sha256:" + strings.Repeat("ab", 32), pinned: true},
		{name: "local action", uses: "./actions/plan", pinned: true},
		{name: "talops' own action at its major tag", uses: "talops/talops/actions/plan@v0", pinned: true},
		{name: "talops' own action at the commit of its major tag", uses: "talops/talops/actions/plan@" + sha, comment: "# v0", pinned: true},
		{name: "talops' own action on a branch", uses: "talops/talops/actions/plan@main"},
		{name: "talops' own action at a release tag whose commit runs the previous image", uses: "talops/talops/actions/plan@v0.2.0"},
		{name: "talops' own action at a SHA without its tag", uses: "talops/talops/actions/plan@" + sha},
		{name: "talops' own action at a short SHA", uses: "talops/talops/actions/plan@11d5960", comment: "# v0"},
		{name: "talops' own workflow outside actions/", uses: "talops/talops/.github/workflows/ci.yml@v0"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			if got := usesProblem(tt.uses, tt.comment) == ""; got != tt.pinned {
				t.Errorf("usesProblem(%q, %q) = %q, want pinned %v", tt.uses, tt.comment, usesProblem(tt.uses, tt.comment), tt.pinned)
			}
		})
	}
}

// An expression inside run: is pasted into the script before the shell reads it: a value
// holding quotes or $(…) would run as code. Values reach scripts through env.
func TestWorkflows_NoExpressionInsideRunScripts(t *testing.T) {
	t.Parallel()

	runs := 0

	for _, f := range workflowFiles(t) {
		for _, s := range workflowSteps(t, f) {
			if s.run == "" {
				continue
			}

			runs++

			if strings.Contains(s.run, "${{") {
				t.Errorf("%s: run: expands an expression into the script: pass it through the step's env and use $NAME", s)
			}
		}
	}

	if runs == 0 {
		t.Fatal("found no run: step at all")
	}
}

// The Proxmox token goes only where the runner's own configuration says: a step that sees
// it also sees PROXMOX_URL, which talops requires beside it (docs/proxmox.md).
func TestWorkflows_ProxmoxTokenGoesWithPinnedURL(t *testing.T) {
	t.Parallel()

	withToken := 0

	for _, f := range workflowFiles(t) {
		for _, s := range workflowSteps(t, f) {
			_, id := s.env["PROXMOX_TOKEN_ID"]
			_, secret := s.env["PROXMOX_TOKEN_SECRET"]

			if !id && !secret {
				continue
			}

			withToken++

			if url := s.env["PROXMOX_URL"]; url == "" {
				t.Errorf("%s: the step has the Proxmox token but no PROXMOX_URL: set it from the environment's variables (vars.PROXMOX_URL)", s)
			}
		}
	}

	// The apply and nightly workflows use the token.
	if withToken < 2 {
		t.Errorf("found %d steps with the Proxmox token, want the apply and the nightly ones", withToken)
	}
}

// GitHub's CI runs .ci/run, and every fuzz test runs in CI: hack/fuzz.sh finds them, and
// here it must find every one the Go parser finds.
func TestCI_RunsTheCIScriptAndEveryFuzzTest(t *testing.T) {
	t.Parallel()

	root := repoRoot(t)

	var ciRun, fuzz bool

	for _, s := range workflowSteps(t, filepath.Join(root, ".github/workflows/ci.yml")) {
		for _, line := range strings.Split(s.run, "\n") {
			switch strings.Fields(line + " x")[0] {
			case ".ci/run":
				ciRun = true
			case "hack/fuzz.sh":
				fuzz = true
			}
		}
	}

	if !ciRun {
		t.Error(".github/workflows/ci.yml: no step runs .ci/run")
	}

	if !fuzz {
		t.Error(".github/workflows/ci.yml: no step runs hack/fuzz.sh")
	}

	script, err := os.ReadFile(filepath.Join(root, ".ci/run"))
	if err != nil {
		t.Fatal(err)
	}

	if !regexp.MustCompile(`(?m)^hack/fuzz\.sh\b`).Match(script) {
		t.Error(".ci/run: does not run hack/fuzz.sh")
	}

	want := fuzzTests(t, root)

	out, err := exec.Command("bash", filepath.Join(root, "hack/fuzz.sh"), "--list").Output()
	if err != nil {
		t.Fatalf("hack/fuzz.sh --list: %v", err)
	}

	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	slices.Sort(got)

	if !slices.Equal(got, want) {
		t.Errorf("hack/fuzz.sh --list:\n%s\nwant every fuzz test of the repository:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// fuzzTests are the repository's fuzz tests as "FuzzX ./dir/", sorted.
func fuzzTests(t *testing.T, root string) []string {
	t.Helper()

	var out []string

	fset := token.NewFileSet()

	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}

		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}

		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}

		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}

		dir, _ := filepath.Rel(root, filepath.Dir(path))

		for _, decl := range f.Decls {
			name := funcName(decl)
			if strings.HasPrefix(name, "Fuzz") {
				out = append(out, name+" ./"+filepath.ToSlash(dir)+"/")
			}
		}

		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	if len(out) == 0 {
		t.Fatal("found no fuzz test")
	}

	slices.Sort(out)

	return slices.Compact(out)
}

func funcName(decl ast.Decl) string {
	// Only top-level functions without a receiver are tests.
	if fd, ok := decl.(*ast.FuncDecl); ok && fd.Recv == nil {
		return fd.Name.Name
	}

	return ""
}

// The apply workflow uploads the etcd snapshot's directory from the merged commit's
// checkout: a symbolic link committed as it, or in it, would upload whatever it points at.
// The upload waits for the step that looks, and that step is run here on each case.
func TestApplyWorkflow_EtcdSnapshotUploadSkipsSymbolicLinks(t *testing.T) {
	t.Parallel()

	steps := workflowSteps(t, filepath.Join(repoRoot(t), "docs/workflows/apply.yml"))

	var guard *workflowStep

	uploads := 0

	for i, s := range steps {
		if s.id == "snapshot" {
			guard = &steps[i]
		}

		if strings.HasPrefix(s.uses, "actions/upload-artifact@") && strings.HasPrefix(s.with["path"], "talops-etcd-backups") {
			uploads++

			if !strings.Contains(s.cond, "steps.snapshot.outputs.upload == 'true'") {
				t.Errorf("%s: the snapshot upload does not wait for the look at its directory (if: %s)", s, s.cond)
			}
		}
	}

	if uploads == 0 || guard == nil {
		t.Fatalf("found %d snapshot uploads and guard %v", uploads, guard)
	}

	tests := []struct {
		name   string
		make   func(t *testing.T, dir string)
		upload bool
	}{
		{name: "a directory of snapshots", upload: true, make: func(t *testing.T, dir string) {
			mkdir(t, filepath.Join(dir, "talops-etcd-backups"))
			writeFile(t, filepath.Join(dir, "talops-etcd-backups", "homelab.etcd-snapshot.age"))
		}},
		{name: "no directory (no snapshot taken)", make: func(*testing.T, string) {}},
		{name: "the directory is a link", make: func(t *testing.T, dir string) {
			mkdir(t, filepath.Join(dir, "secrets"))
			symlink(t, filepath.Join(dir, "secrets"), filepath.Join(dir, "talops-etcd-backups"))
		}},
		{name: "the directory holds a link", make: func(t *testing.T, dir string) {
			mkdir(t, filepath.Join(dir, "talops-etcd-backups", "deep"))
			writeFile(t, filepath.Join(dir, "secret"))
			symlink(t, filepath.Join(dir, "secret"), filepath.Join(dir, "talops-etcd-backups", "deep", "x.age"))
		}},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			dir := t.TempDir()
			tt.make(t, dir)

			output := filepath.Join(t.TempDir(), "output")
			writeFile(t, output)

			cmd := exec.Command("bash", "-e", "-c", guard.run)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GITHUB_OUTPUT="+output)

			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the guard step failed: %v\n%s", err, out)
			}

			got, err := os.ReadFile(output)
			if err != nil {
				t.Fatal(err)
			}

			if upload := strings.Contains(string(got), "upload=true"); upload != tt.upload {
				t.Errorf("upload %v, want %v (outputs %q)", upload, tt.upload, got)
			}
		})
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()

	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, name string) {
	t.Helper()

	if err := os.WriteFile(name, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()

	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// A self-hosted runner of this repository runs a fork's pull request only if a job lets
// it: the fork's code would run on that machine (as root, for the harnesses of .ci/run).
func TestWorkflows_SelfHostedJobsNeverRunAForksPullRequest(t *testing.T) {
	t.Parallel()

	files, err := filepath.Glob(filepath.Join(repoRoot(t), ".github/workflows/*.yml"))
	if err != nil {
		t.Fatal(err)
	}

	selfHosted := 0

	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}

		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}

		top := doc.Content[0]
		on := mapValue(top, "on")
		prs := on != nil && (mapValue(on, "pull_request") != nil || mapValue(on, "pull_request_target") != nil || on.Value == "pull_request" || slices.ContainsFunc(on.Content, func(n *yaml.Node) bool { return n.Value == "pull_request" }))

		jobs := mapValue(top, "jobs")
		for i := 0; jobs != nil && i+1 < len(jobs.Content); i += 2 {
			name, job := jobs.Content[i].Value, jobs.Content[i+1]

			runsOn := mapValue(job, "runs-on")
			if runsOn == nil || (runsOn.Value != "self-hosted" && !slices.ContainsFunc(runsOn.Content, func(n *yaml.Node) bool { return n.Value == "self-hosted" })) {
				continue
			}

			selfHosted++

			cond := ""
			if c := mapValue(job, "if"); c != nil {
				cond = c.Value
			}

			if prs && !strings.Contains(cond, "github.event.pull_request.head.repo.full_name == github.repository") {
				rel, _ := filepath.Rel(repoRoot(t), f)
				t.Errorf("%s:%d: job %s runs on a self-hosted runner for pull requests without keeping forks out (if: github.event.pull_request.head.repo.full_name == github.repository)", rel, job.Line, name)
			}
		}
	}

	if selfHosted == 0 {
		t.Error("found no self-hosted job: CI runs .ci/run on one")
	}
}
