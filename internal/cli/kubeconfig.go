package cli

import (
	"context"
	"fmt"

	"github.com/talops/talops/internal/app"
)

// KubeconfigOptions are kubeconfig's inputs.
type KubeconfigOptions struct {
	Deps *Deps

	Dir string
	// Talosconfig is the talosconfig ("": $TALOSCONFIG, then ~/.talos/config).
	Talosconfig string
	Out         string
}

func kubeconfigFlags(d *Deps, args []string) (*KubeconfigOptions, error) {
	opts := &KubeconfigOptions{Deps: d}

	fs := newFlags(d, "kubeconfig", "kubeconfig [--dir D] [--talosconfig F] --out FILE")
	fs.StringVar(&opts.Dir, "dir", ".", "repository directory holding talops.yaml")
	fs.StringVar(&opts.Talosconfig, "talosconfig", "", "talosconfig (default $TALOSCONFIG, then ~/.talos/config)")
	fs.StringVar(&opts.Out, "out", "", "file to write the admin kubeconfig to (mode 0600)")

	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}

	// The kubeconfig is the cluster's admin credential: it goes to a file, never to the
	// output, which a log could keep.
	switch opts.Out {
	case "":
		return nil, &UsageError{Msg: "--out is required"}
	case "-":
		return nil, &UsageError{Msg: "--out -: the admin kubeconfig is only written to a file (mode 0600), never to the output"}
	}

	return opts, nil
}

func runKubeconfig(ctx context.Context, d *Deps, args []string) error {
	opts, err := kubeconfigFlags(d, args)
	if err != nil {
		return err
	}

	return Kubeconfig(ctx, opts)
}

// Kubeconfig writes the cluster's admin kubeconfig (see app.Kubeconfig) and says where
// it came from.
func Kubeconfig(ctx context.Context, opts *KubeconfigOptions) error {
	said, err := writeKubeconfig(ctx, opts)
	if err != nil {
		return err
	}

	return opts.Deps.out(said + "\n")
}

// writeKubeconfig writes the kubeconfig and returns the line that says so.
func writeKubeconfig(ctx context.Context, opts *KubeconfigOptions) (string, error) {
	d := opts.Deps

	res, err := app.Kubeconfig(ctx, d.App(), opts.Dir, opts.Talosconfig)
	if err != nil {
		return "", err
	}

	if err := d.WriteFile(opts.Out, res.Data, 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", opts.Out, err)
	}

	return fmt.Sprintf("wrote %s: the admin kubeconfig of %s, from %s", opts.Out, res.Cluster, res.Node), nil
}
