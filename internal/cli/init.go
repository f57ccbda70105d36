package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/scaffold"
)

// InitOptions are init's inputs.
type InitOptions struct {
	Deps *Deps

	// InitOptions are init's own options, declared once, in the application layer.
	app.InitOptions
}

// listFlag is a flag that may be given several times.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	*l = append(*l, s)

	return nil
}

func initFlags(d *Deps, args []string) (*InitOptions, error) {
	opts := &InitOptions{Deps: d}

	fs := newFlags(d, "init", "init --dir D --name N --endpoint https://HOST:6443 [--talos-version V] [--kubernetes-version V] --age-recipient R [--age-recipient R2 ...] [--plaintext-secrets] [--no-hostnames]")
	fs.StringVar(&opts.Dir, "dir", "", "directory of the new repository (created when missing)")
	fs.StringVar(&opts.Name, "name", "", "cluster name (a DNS label)")
	fs.StringVar(&opts.Endpoint, "endpoint", "", "the Kubernetes API endpoint, https://HOST:PORT")
	fs.StringVar(&opts.TalosVersion, "talos-version", "", "Talos release (default: the newest stable one talops knows)")
	fs.StringVar(&opts.KubernetesVersion, "kubernetes-version", "", "Kubernetes version (default: the newest the Talos release supports)")
	fs.Var((*listFlag)(&opts.Recipients), "age-recipient", "age recipient (age1...) the secrets bundle is encrypted to; repeat for more")
	fs.BoolVar(&opts.Plaintext, "plaintext-secrets", false, "write the secrets bundle in clear ("+scaffold.PlaintextBundle+", mode 0600) instead of encrypting it")
	fs.BoolVar(&opts.NoHostnames, "no-hostnames", false, "leave each node's hostname to Talos (talos-xxx-yyy) instead of a patch nodes/NODE.yaml that sets it to the node's name")

	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}

	for _, req := range []struct{ flag, value string }{{"dir", opts.Dir}, {"name", opts.Name}, {"endpoint", opts.Endpoint}} {
		if req.value == "" {
			return nil, &app.UsageError{Msg: "--" + req.flag + " is required"}
		}
	}

	switch {
	case opts.Plaintext && len(opts.Recipients) > 0:
		return nil, &app.UsageError{Msg: "--plaintext-secrets and --age-recipient cannot be used together"}
	case !opts.Plaintext && len(opts.Recipients) == 0:
		return nil, &app.UsageError{Msg: "--age-recipient is required (the public key of age-keygen, age1...), or --plaintext-secrets"}
	}

	if _, err := app.ParseRecipients(opts.Recipients); err != nil {
		return nil, &app.UsageError{Msg: "--age-recipient: " + err.Error()}
	}

	return opts, nil
}

func runInit(ctx context.Context, d *Deps, args []string) error {
	opts, err := initFlags(d, args)
	if err != nil {
		return err
	}

	res, err := Init(ctx, opts)
	if err != nil {
		return err
	}

	var b strings.Builder

	for _, p := range res.Written {
		fmt.Fprintf(&b, "wrote %s\n", p)
	}

	for _, p := range res.Kept {
		fmt.Fprintf(&b, "kept %s (it exists)\n", p)
	}

	if res.Encrypted {
		fmt.Fprintf(&b, "The secrets bundle is encrypted with SOPS to %s; talops and sops decrypt it with SOPS_AGE_KEY_FILE.\n", plan.Plural(res.Recipients, "age recipient"))
	} else {
		fmt.Fprintf(&b, "The secrets bundle %s is PLAINTEXT: keep it out of Git, encrypt it with sops before sharing it.\n", res.Bundle)
	}

	dir := opts.Dir
	fmt.Fprintf(&b, "Talos %s, Kubernetes %s.\n\nNext:\n", res.TalosVersion, res.KubernetesVersion)
	fmt.Fprintf(&b, "  1. edit %s: the nodes' names, addresses and install disks (the lines marked EDIT)\n", filepath.Join(dir, cluster.FileName))
	fmt.Fprintf(&b, "  2. talops validate --dir %s\n", dir)
	// Inside the repository, where its .gitignore keeps it out of Git (a talosconfig
	// written beside a repository made in a subdirectory of a work tree is refused).
	fmt.Fprintf(&b, "  3. talops talosconfig --dir %s --out %s\n", dir, filepath.Join(dir, "talosconfig"))

	return d.Out(b.String())
}

// Init writes the repository of a new cluster.
func Init(ctx context.Context, opts *InitOptions) (*app.InitResult, error) {
	return app.Init(ctx, opts.Deps.App(), opts.InitOptions)
}
