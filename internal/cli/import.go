package cli

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/scaffold"
	"github.com/talops/talops/internal/suggest"
)

// ImportOptions are import's inputs.
type ImportOptions struct {
	Deps *Deps

	// Source is the tool the repository comes from: talhelper, topf or talosctl.
	Source string

	// ImportOptions are the import's own options, declared once, in the application layer.
	app.ImportOptions
}

// importSources are the tools import reads, each with its use case.
var importSources = map[string]func(context.Context, *app.Deps, app.ImportOptions) (*app.ImportResult, error){
	"talhelper": app.ImportTalhelper,
	"talosctl":  app.ImportTalosctl,
	"topf":      app.ImportTopf,
}

const (
	importSynopsis = "import talhelper|topf|talosctl --from PATH --out DIR [--age-recipient R [--age-recipient R2 ...]] [--plaintext-secrets] [CONFIG...]"
	importFlagsSyn = "--out DIR [--age-recipient R [--age-recipient R2 ...]] [--plaintext-secrets] [--talosconfig F [--allow-differences]]"
)

// importSynopses are the usage lines of each source.
var importSynopses = map[string]string{
	"import":           importSynopsis,
	"import talhelper": "import talhelper --from PATH " + importFlagsSyn + " [--schematic FILE ...] [--offline] [--talos-version V]",
	"import talosctl":  "import talosctl --from DIR " + importFlagsSyn + " [CONFIG...]",
	"import topf":      "import topf --from PATH " + importFlagsSyn + " [--offline] [--talos-version V]",
}

func importFlags(d *Deps, args []string) (*ImportOptions, error) {
	opts := &ImportOptions{Deps: d}

	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return nil, parseFlags(importFlagSet(d, opts, "import"), args)
		}

		return nil, &app.UsageError{Msg: "import needs the source tool: talops " + importSynopsis}
	}

	opts.Source = args[0]
	if _, ok := importSources[opts.Source]; !ok {
		return nil, &app.UsageError{Msg: fmt.Sprintf("unknown source %q%s (known: talhelper, topf, talosctl)", opts.Source, suggest.DidYouMean(opts.Source, []string{"talhelper", "topf", "talosctl"}))}
	}

	fs := importFlagSet(d, opts, "import "+opts.Source)
	if opts.Source == "talosctl" {
		if err := parseFlags(fs, args[1:]); err != nil {
			return nil, err
		}

		opts.Configs = fs.Args()
	} else if err := parseNoArgs(fs, args[1:]); err != nil {
		return nil, err
	}

	for _, req := range []struct{ flag, value string }{{"from", opts.From}, {"out", opts.Out}} {
		if req.value == "" {
			return nil, &app.UsageError{Msg: "--" + req.flag + " is required"}
		}
	}

	if opts.Plaintext && len(opts.Recipients) > 0 {
		return nil, &app.UsageError{Msg: "--plaintext-secrets and --age-recipient cannot be used together"}
	}

	if _, err := app.ParseRecipients(opts.Recipients); err != nil {
		return nil, &app.UsageError{Msg: "--age-recipient: " + err.Error()}
	}

	if opts.AllowDifferences && opts.Talosconfig == "" {
		return nil, &app.UsageError{Msg: "--allow-differences needs --talosconfig: without the nodes, there is nothing to differ from"}
	}

	if opts.TalosVersion != "" {
		if _, err := catalog.NormalizeTag(opts.TalosVersion); err != nil {
			return nil, &app.UsageError{Msg: "--talos-version: " + err.Error()}
		}
	}

	return opts, nil
}

// importFlagSet binds import's flags; the set is named after the command line it parses
// ("import talhelper"), as completion finds it.
func importFlagSet(d *Deps, opts *ImportOptions, name string) *flag.FlagSet {
	fs := newFlags(d, name, importSynopses[name])
	fs.StringVar(&opts.From, "from", "", "the source's config file (talconfig.yaml, topf.yaml) or the directory holding it (talosctl: the directory of controlplane.yaml and worker.yaml; per-node configs follow the flags)")
	fs.StringVar(&opts.Out, "out", "", "directory of the new talops repository (created when missing; nothing in it is overwritten)")
	fs.Var((*listFlag)(&opts.Recipients), "age-recipient", "age recipient (age1...) of the new secrets bundle; repeat for more (default: the recipients of a SOPS-encrypted source)")
	fs.BoolVar(&opts.Plaintext, "plaintext-secrets", false, "write the secrets bundle in clear ("+scaffold.PlaintextBundle+", mode 0600) instead of encrypting it")
	fs.StringVar(&opts.Talosconfig, "talosconfig", "", "a talosconfig reaching the running nodes: the import is planned against them as plan --live does and writes nothing unless every node runs what it renders (and, for a source that names no Talos release, the release is read from them)")
	fs.BoolVar(&opts.AllowDifferences, "allow-differences", false, "with --talosconfig, write the import even where it renders other configs than the nodes run, each node that differs a warning")

	if name == "import talhelper" || name == "import topf" {
		fs.StringVar(&opts.TalosVersion, "talos-version", "", "the Talos release the nodes run (v1.13.8), when the source names none (default with --talosconfig: the release they report)")
		fs.BoolVar(&opts.Offline, "offline", false, "never ask the Image Factory for the schematic of an installer ID no file has (GET /schematics/{id}): such an ID becomes an opaque schematic file holding only the ID, and a finding says how to fill it in")
	}

	if name == "import talhelper" {
		fs.Var((*listFlag)(&opts.Schematics), "schematic", "an Image Factory schematic file (the one talhelper genurl reads): the nodes whose talosImageURL installer has its ID get it as their schematic; repeat for more (schematic.yaml and the other YAML files beside talconfig.yaml are looked at too)")
	}

	return fs
}

func runImport(ctx context.Context, d *Deps, args []string) error {
	opts, err := importFlags(d, args)
	if err != nil {
		return err
	}

	res, err := Import(ctx, opts)
	if err != nil {
		return err
	}

	if err := d.Out(importReport(opts, res)); err != nil {
		return err
	}

	if e, _, _ := finding.Count(res.Findings); e > 0 {
		return &FailedError{}
	}

	return nil
}

// Import writes a talops repository from another tool's.
func Import(ctx context.Context, opts *ImportOptions) (*app.ImportResult, error) {
	return importSources[opts.Source](ctx, opts.Deps.App(), opts.ImportOptions)
}

// generatedWhy says, by source, why a new bundle is no loss.
var generatedWhy = map[string]string{
	"talhelper": " (talhelper would have made new secrets each run)",
	"topf":      " (topf would have made one the first time it needed it)",
}

// importReport is what import prints: the files, then one line per finding, then the
// next steps. No secret is in it: findings name variables and fields, never values.
func importReport(opts *ImportOptions, res *app.ImportResult) string {
	var b strings.Builder

	for _, p := range res.Written {
		fmt.Fprintf(&b, "wrote %s\n", p)
	}

	for _, f := range res.Findings {
		b.WriteString(findingLine(f) + "\n")
	}

	e, w, i := finding.Count(res.Findings)
	fmt.Fprintf(&b, "import from %s (%s): %s, %s, %s\n", opts.Source, res.Source, plan.Plural(e, "error"), plan.Plural(w, "warning"), plan.Plural(i, "note"))

	switch {
	case res.Generated:
		fmt.Fprintf(&b, "The source has no secrets bundle: %s is a new one%s.\n", res.Bundle, generatedWhy[opts.Source])
	case res.Encrypted:
		fmt.Fprintf(&b, "The source's secrets are in %s, encrypted with SOPS to %d age recipient(s).\n", res.Bundle, res.Recipients)
	default:
		fmt.Fprintf(&b, "The secrets bundle %s is PLAINTEXT: keep it out of Git, encrypt it with sops before sharing it.\n", res.Bundle)
	}

	fmt.Fprintf(&b, "\nNext:\n  1. review %s and the findings above\n  2. talops validate --dir %s\n", filepath.Join(opts.Out, cluster.FileName), opts.Out)

	return b.String()
}

// findingLine is a finding as validate's text view shows it.
func findingLine(f finding.Finding) string {
	var b strings.Builder

	if f.File != "" {
		b.WriteString(f.File)

		if f.Line > 0 {
			b.WriteString(":" + strconv.Itoa(f.Line))
		}

		b.WriteString(": ")
	}

	fmt.Fprintf(&b, "%s %s", f.Severity, f.Code)

	if f.Node != "" {
		fmt.Fprintf(&b, " [%s]", f.Node)
	}

	if f.Path != "" {
		fmt.Fprintf(&b, " %s:", f.Path)
	}

	return b.String() + " " + strings.Join(strings.Fields(f.Message), " ")
}
