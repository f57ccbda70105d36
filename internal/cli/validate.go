package cli

import (
	"context"
	"errors"
	"flag"
	"io"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/rules"
)

// ValidateOptions are validate's inputs.
type ValidateOptions struct {
	Deps *Deps

	Dir    string
	Strict bool
	Format string
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

func validateFlags(d *Deps, args []string) (*ValidateOptions, error) {
	opts := &ValidateOptions{Deps: d}

	fs := newFlags(d, "validate", "validate [--dir D] [--strict] [--offline] [--format text|json|github] [FILE...]")
	fs.StringVar(&opts.Dir, "dir", ".", "repository directory holding talops.yaml")
	fs.BoolVar(&opts.Strict, "strict", false, "treat warnings as errors")
	fs.StringVar(&opts.Format, "format", report.FormatText, "output format: text, json or github")
	fs.StringVar(&opts.Mode, "mode", "metal", "validation mode for standalone files: metal or cloud")
	fs.BoolVar(&opts.Offline, "offline", false, "never ask the Image Factory about a Talos release the embedded data lacks")

	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}

	opts.Files = fs.Args()

	dirSet := false
	fs.Visit(func(f *flag.Flag) { dirSet = dirSet || f.Name == "dir" })

	if dirSet && len(opts.Files) > 0 {
		return nil, &UsageError{Msg: "validate takes --dir or FILE arguments, not both"}
	}

	if err := oneOf("format", opts.Format, report.FindingFormats); err != nil {
		return nil, err
	}

	if err := oneOf("mode", opts.Mode, []string{"metal", "cloud"}); err != nil {
		return nil, err
	}

	return opts, nil
}

func runValidate(ctx context.Context, d *Deps, args []string) error {
	opts, err := validateFlags(d, args)
	if err != nil {
		return err
	}

	res, err := Validate(ctx, opts)
	if err != nil {
		return err
	}

	if err := d.view(func(w io.Writer) error { return report.Findings(w, opts.Format, res.Findings, res.Nodes) }); err != nil {
		return err
	}

	if finding.HasErrors(res.Findings) {
		return &FailedError{Msg: "validation failed"}
	}

	return nil
}

// Validate checks a repository, or standalone files, and returns the findings.
func Validate(ctx context.Context, opts *ValidateOptions) (*ValidateResult, error) {
	if len(opts.Files) > 0 {
		return validateFiles(opts)
	}

	r, err := loadRepo(ctx, opts.Deps, opts.Dir)
	if err != nil {
		return nil, err
	}

	cat, lookup := releaseCatalog(ctx, opts.Deps, r.Cluster, opts.Offline)

	fs := rules.Check(&rules.Input{
		Cluster: r.Cluster, Nodes: r.Nodes, Bundle: r.Bundle, Strict: opts.Strict, Schematics: r.Schematics,
		Catalog: cat, Release: lookup, SchematicFiles: rules.LoadSchematicFiles(r.Cluster),
	})

	return &ValidateResult{Findings: fs, Nodes: len(r.Nodes)}, nil
}

// validateFiles validates complete machine configs, like talosctl validate.
func validateFiles(opts *ValidateOptions) (*ValidateResult, error) {
	mode := rules.ModeMetal
	if opts.Mode == "cloud" {
		mode = rules.ModeCloud
	}

	var out []finding.Finding

	for _, file := range opts.Files {
		data, err := readInputFile(opts.Deps, file)
		if err != nil {
			return nil, err
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
