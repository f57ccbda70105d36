package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sync"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/rules"
)

// ValidateOptions are what validate checks: the repository in Dir, or standalone files.
type ValidateOptions struct {
	Dir    string
	Strict bool
	// Mode is the validation mode for standalone files: metal or cloud.
	Mode string
	// Files are standalone machine config files; when set, Dir is not read.
	Files []string
	// Offline forbids asking the Image Factory about a release the embedded data lacks.
	Offline bool
}

// ValidateResult is what validate found.
type ValidateResult struct {
	Findings []finding.Finding
	// Nodes is how many nodes (or files) were checked.
	Nodes int
}

// Validate checks a repository, or standalone files, and returns the findings.
func Validate(ctx context.Context, d *Deps, opts ValidateOptions) (*ValidateResult, error) {
	if len(opts.Files) > 0 {
		return validateFiles(d, opts)
	}

	// The nodes are rendered and judged a chunk at a time, as a plan's are: what validate
	// holds does not grow with the cluster's configs.
	r, err := openAndLoad(ctx, d, d.OpenDir, opts.Dir, opts.Dir, nil, nil, false)
	if err != nil {
		return nil, err
	}

	findings, err := judgeNodes(ctx, d, r, opts.Offline, opts.Strict)
	if err != nil {
		return nil, err
	}

	return &ValidateResult{Findings: findings, Nodes: len(r.Cluster.Spec.Nodes)}, nil
}

// judgeNodes renders a loaded repository's nodes a chunk at a time and judges them, as
// validate does; strict makes every warning an error.
func judgeNodes(ctx context.Context, d *Deps, r *Repo, offline, strict bool) ([]finding.Finding, error) {
	in := rulesInput(ctx, d, r, offline)
	in.Strict = strict
	judge := rules.NewJudge(in)

	for chunk := range slices.Chunk(r.Cluster.Spec.Nodes, planChunk) {
		if err := judge.Nodes(ctx, r.renderer.Nodes(ctx, chunk)); err != nil {
			return nil, err
		}
	}

	findings := judge.Findings()

	if strict {
		// Every warning, talops' own rules' too (a release without extension data).
		findings = finding.Strict(findings)
	}

	return findings, nil
}

// validateFiles validates complete machine configs, like talosctl validate.
func validateFiles(d *Deps, opts ValidateOptions) (*ValidateResult, error) {
	mode := rules.ModeMetal
	if opts.Mode == "cloud" {
		mode = rules.ModeCloud
	}

	var out []finding.Finding

	for _, file := range opts.Files {
		data, err := ReadInputFile(d, file)
		if err != nil {
			return nil, err
		}

		if isRepositoryFile(file, data) {
			return nil, fmt.Errorf("%s is a talops repository file, not a machine config: validate its repository with talops validate --dir %s", file, filepath.Dir(file))
		}

		cfg, ix, err := render.LoadConfig(file, data)
		if err != nil {
			out = append(out, loadFindings(err)...)

			continue
		}

		at := func(path string) (string, int) {
			if kind, name, ok := rules.SplitDocRef(path); ok {
				if d := ix.Find(kind, name); d >= 0 {
					return file, ix.Docs[d].Line
				}

				return file, 0
			}

			if d := ix.Find("", ""); d >= 0 {
				line, _ := ix.Docs[d].Nearest(path)

				return file, line
			}

			return file, 0
		}

		out = append(out, rules.ValidateConfig(cfg, mode, opts.Strict, at, "")...)
	}

	finding.Sort(out)

	return &ValidateResult{Findings: out, Nodes: len(opts.Files)}, nil
}

// repositoryKey is a top-level key of talops.yaml that no machine config document has.
var repositoryKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^(talosVersion|kubernetesVersion|nodes):`) })

// isRepositoryFile tells talops.yaml (by its name, or by keys only it has) from a machine
// config, which validate's FILE arguments are.
func isRepositoryFile(file string, data []byte) bool {
	return filepath.Base(file) == cluster.FileName || repositoryKey().Match(data)
}

// InputFindings are the problems of a repository that does not load, as findings placed
// at their file and line, for the views tools read (JSON, annotations); ok is false when
// err holds a problem that is not in the user's files (it stays an error).
func InputFindings(err error) (fs []finding.Finding, ok bool) {
	for _, e := range cluster.Split(err) {
		var ie *cluster.InputError
		if !errors.As(e, &ie) || ie.File == "" {
			return nil, false
		}
	}

	return loadFindings(err), true
}

// loadFindings turns the placed errors of a config that does not load into findings,
// one per problem (each unknown key is one).
func loadFindings(err error) []finding.Finding {
	var out []finding.Finding

	for _, e := range cluster.Split(err) {
		f := finding.Finding{Severity: finding.Error, Code: rules.CodeConfigInvalid, Message: e.Error()}

		var ie *cluster.InputError
		if errors.As(e, &ie) {
			f.File, f.Line, f.Path, f.Message = ie.File, ie.Line, ie.Field, ie.Msg
		}

		out = append(out, f)
	}

	return out
}
