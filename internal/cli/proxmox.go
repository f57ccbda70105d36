package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/images"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/suggest"
)

// Environment variables holding the Proxmox API token; talops.yaml never does.
const (
	EnvProxmoxTokenID     = app.EnvProxmoxTokenID
	EnvProxmoxTokenSecret = app.EnvProxmoxTokenSecret
	// EnvProxmoxURL pins where the token may be sent; it must be set beside the token.
	EnvProxmoxURL = app.EnvProxmoxURL
)

const proxmoxUsage = `Usage: talops proxmox <command> [flags]

Commands:
  images   make sure every boot ISO the Proxmox nodes need is in the storage
  vms      check that each node's VM exists and runs (--start starts stopped ones)

The API token comes from PROXMOX_TOKEN_ID and PROXMOX_TOKEN_SECRET.
`

func runProxmox(ctx context.Context, d *Deps, args []string) error {
	if len(args) == 0 {
		d.Errf("%s", proxmoxUsage)

		return &app.UsageError{Msg: "proxmox needs a command: images or vms"}
	}

	switch args[0] {
	case "-h", "--help", "help":
		return d.Out(proxmoxUsage)
	case "images":
		return runProxmoxImages(ctx, d, args[1:])
	case "vms":
		return runProxmoxVMs(ctx, d, args[1:])
	default:
		return &app.UsageError{Msg: fmt.Sprintf("unknown proxmox command %q%s (known: images, vms)", args[0], suggest.DidYouMean(args[0], []string{"images", "vms"}))}
	}
}

// ProxmoxImagesOptions are `proxmox images`' inputs.
type ProxmoxImagesOptions struct {
	Deps *Deps

	// ProxmoxImagesOptions are the command's own options, declared once, in the application
	// layer (Register is always on here).
	app.ProxmoxImagesOptions

	Format string
}

func proxmoxImagesFlags(d *Deps, args []string) (*ProxmoxImagesOptions, error) {
	opts := &ProxmoxImagesOptions{Deps: d, ProxmoxImagesOptions: app.ProxmoxImagesOptions{Register: true}}

	fs := newFlags(d, "proxmox images", "proxmox images [--dir D] [--dry-run] [--prune] [--format text|json]")
	fs.StringVar(&opts.Dir, "dir", ".", "repository directory holding talops.yaml")
	fs.BoolVar(&opts.DryRun, "dry-run", false, "list what is missing (and, with --prune, what would be deleted) without changing storage")
	fs.BoolVar(&opts.Prune, "prune", false, "delete talops' own ISOs that no node of the cluster boots from any more (never other files)")
	fs.StringVar(&opts.Format, "format", report.FormatText, "output format: text or json")

	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}

	if err := oneOf("format", opts.Format, report.ProxmoxFormats); err != nil {
		return nil, err
	}

	return opts, nil
}

func runProxmoxImages(ctx context.Context, d *Deps, args []string) error {
	opts, err := proxmoxImagesFlags(d, args)
	if err != nil {
		return err
	}

	out, err := ProxmoxImages(ctx, opts)
	if err != nil {
		return err
	}

	if err := d.View(func(w io.Writer) error { return report.WriteProxmoxImages(w, opts.Format, out) }); err != nil {
		return err
	}

	if out.Summary.Failed > 0 {
		return &FailedError{Msg: "some boot images could not be downloaded or pruned"}
	}

	return nil
}

// ProxmoxImages makes sure the boot ISOs are in Proxmox storage (see app.ProxmoxImages).
func ProxmoxImages(ctx context.Context, opts *ProxmoxImagesOptions) (*images.ProxmoxImages, error) {
	return app.ProxmoxImages(ctx, opts.Deps.App(), opts.ProxmoxImagesOptions)
}

// ProxmoxVMsOptions are `proxmox vms`' inputs.
type ProxmoxVMsOptions struct {
	Deps *Deps

	// ProxmoxVMsOptions are the command's own options, declared once, in the application layer.
	app.ProxmoxVMsOptions

	Format string
}

func proxmoxVMsFlags(d *Deps, args []string) (*ProxmoxVMsOptions, error) {
	opts := &ProxmoxVMsOptions{Deps: d}

	fs := newFlags(d, "proxmox vms", "proxmox vms [--dir D] [--start] [--create] [--format text|json]")
	fs.StringVar(&opts.Dir, "dir", ".", "repository directory holding talops.yaml")
	fs.BoolVar(&opts.Start, "start", false, "start the VMs that are not running")
	fs.BoolVar(&opts.Create, "create", false, "create the missing VMs from their nodes' proxmox: spec, booting their Talos ISO, and start them (existing VMs are never changed)")
	fs.StringVar(&opts.Format, "format", report.FormatText, "output format: text or json")

	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}

	if err := oneOf("format", opts.Format, report.ProxmoxFormats); err != nil {
		return nil, err
	}

	return opts, nil
}

func runProxmoxVMs(ctx context.Context, d *Deps, args []string) error {
	opts, err := proxmoxVMsFlags(d, args)
	if err != nil {
		return err
	}

	out, err := ProxmoxVMs(ctx, opts)
	if err != nil {
		return err
	}

	if err := d.View(func(w io.Writer) error { return report.WriteProxmoxVMs(w, opts.Format, out) }); err != nil {
		return err
	}

	if s := out.Summary; s.Failed+s.Missing+s.NotRunning > 0 {
		return &FailedError{Msg: "some nodes have no running VM"}
	}

	return nil
}

// ProxmoxVMs checks, and with Start starts, the nodes' VMs (see app.ProxmoxVMs).
func ProxmoxVMs(ctx context.Context, opts *ProxmoxVMsOptions) (*images.ProxmoxVMs, error) {
	return app.ProxmoxVMs(ctx, opts.Deps.App(), opts.ProxmoxVMsOptions)
}
