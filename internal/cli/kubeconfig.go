package cli

import (
	"context"
	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/door"
)

// KubeconfigOptions are kubeconfig's inputs (see door.KubeconfigOptions).
type KubeconfigOptions = door.KubeconfigOptions

func kubeconfigFlags(d *Deps, args []string) (*KubeconfigOptions, error) {
	opts := &KubeconfigOptions{Deps: d}

	fs := newFlags(d, "kubeconfig", "kubeconfig [--dir D] [--talosconfig F] --out FILE [--force]")
	fs.StringVar(&opts.Dir, "dir", ".", "repository directory holding talops.yaml")
	fs.StringVar(&opts.Talosconfig, "talosconfig", "", "talosconfig (default $TALOSCONFIG, then ~/.talos/config)")
	fs.StringVar(&opts.Out, "out", "", "file to write the admin kubeconfig to (mode 0600)")
	fs.BoolVar(&opts.Force, "force", false, "write --out even inside a Git work tree that does not ignore it")

	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}

	// The kubeconfig is the cluster's admin credential: it goes to a file, never to the
	// output, which a log could keep.
	switch opts.Out {
	case "":
		return nil, &app.UsageError{Msg: "--out is required"}
	case "-":
		return nil, &app.UsageError{Msg: "--out -: the admin kubeconfig is only written to a file (mode 0600), never to the output"}
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
	said, err := door.WriteKubeconfig(ctx, opts)
	if err != nil {
		return err
	}

	return opts.Deps.Out(said + "\n")
}
