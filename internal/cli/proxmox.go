package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/proxmox"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/schematic"
)

// Environment variables holding the Proxmox API token; talops.yaml never does.
const (
	EnvProxmoxTokenID     = "PROXMOX_TOKEN_ID"
	EnvProxmoxTokenSecret = "PROXMOX_TOKEN_SECRET"
)

const proxmoxUsage = `Usage: talops proxmox <command> [flags]

Commands:
  images   make sure every boot ISO the Proxmox nodes need is in the storage
  vms      check that each node's VM exists and runs (--start starts stopped ones)

The API token comes from PROXMOX_TOKEN_ID and PROXMOX_TOKEN_SECRET.
`

func runProxmox(ctx context.Context, d *Deps, args []string) error {
	if len(args) == 0 {
		d.errf("%s", proxmoxUsage)

		return &UsageError{Msg: "proxmox needs a command: images or vms"}
	}

	switch args[0] {
	case "-h", "--help", "help":
		return d.out(proxmoxUsage)
	case "images":
		return runProxmoxImages(ctx, d, args[1:])
	case "vms":
		return runProxmoxVMs(ctx, d, args[1:])
	default:
		return &UsageError{Msg: fmt.Sprintf("unknown proxmox command %q (images or vms)", args[0])}
	}
}

// proxmoxRepo loads the repository and connects to its Proxmox API. The token secret
// is masked before anything that could quote it runs.
func proxmoxRepo(d *Deps, dir string) (*cluster.Cluster, proxmox.API, error) {
	files, closeDir, err := d.OpenDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("open repository directory %s: %w", dir, err)
	}
	defer closeDir() //nolint:errcheck // read-only

	c, err := cluster.Load(dir, files)
	if err != nil {
		return nil, nil, err
	}

	if err := c.RequireProxmox(); err != nil {
		return nil, nil, err
	}

	id, secret := d.Getenv(EnvProxmoxTokenID), d.Getenv(EnvProxmoxTokenSecret)
	d.Mask(secret)

	if id == "" || secret == "" {
		return nil, nil, &UsageError{Msg: fmt.Sprintf("%s and %s must hold a Proxmox API token (user@realm!name and its secret)", EnvProxmoxTokenID, EnvProxmoxTokenSecret)}
	}

	if d.Proxmox == nil {
		return nil, nil, errors.New("no Proxmox client")
	}

	p := c.Spec.ProxmoxAPI
	cfg := proxmox.Config{URL: p.URL, TokenID: id, TokenSecret: secret, UserAgent: "talops/" + Version}

	if p.CAFile != "" {
		var ok bool
		if cfg.CAPEM, ok = c.File(p.CAFile); !ok {
			// Never fall back to the system roots when a CA was pinned.
			return nil, nil, &cluster.InputError{File: c.Path(cluster.FileName), Line: c.Line("proxmox.caFile"), Field: "proxmox.caFile", Msg: p.CAFile + ": file not read"}
		}
	}

	api, err := d.Proxmox(cfg)
	if err != nil {
		field := "proxmox.url"
		if p.CAFile != "" {
			field = "proxmox.caFile"
		}

		return nil, nil, &cluster.InputError{File: c.Path(cluster.FileName), Line: c.Line(field), Field: field, Msg: err.Error()}
	}

	return c, api, nil
}

// ProxmoxImagesOptions are `proxmox images`' inputs.
type ProxmoxImagesOptions struct {
	Deps *Deps

	Dir    string
	DryRun bool
	Format string
}

func proxmoxImagesFlags(d *Deps, args []string) (*ProxmoxImagesOptions, error) {
	opts := &ProxmoxImagesOptions{Deps: d}

	fs := newFlags(d, "proxmox images", "proxmox images [--dir D] [--dry-run] [--format text|json]")
	fs.StringVar(&opts.Dir, "dir", ".", "repository directory holding talops.yaml")
	fs.BoolVar(&opts.DryRun, "dry-run", false, "list what is missing without downloading")
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

	if err := d.view(func(w io.Writer) error { return report.WriteProxmoxImages(w, opts.Format, out) }); err != nil {
		return err
	}

	if out.Summary.Failed > 0 {
		return &FailedError{Msg: "some boot images could not be downloaded"}
	}

	return nil
}

// bootISO is one ISO a Proxmox node's storage must hold.
type bootISO struct {
	proxmoxNode, file, url, id string
	nodes                      []string
}

// ProxmoxImages makes sure the storage of every Proxmox node hosting a talops node holds
// the boot ISO of each schematic those nodes use, at the cluster's Talos version.
// Images are never deleted or replaced: a file of the same name is taken as present.
func ProxmoxImages(ctx context.Context, opts *ProxmoxImagesOptions) (*report.ProxmoxImages, error) {
	c, api, err := proxmoxRepo(opts.Deps, opts.Dir)
	if err != nil {
		return nil, err
	}

	isos, err := bootISOs(c)
	if err != nil {
		return nil, err
	}

	storage := c.Spec.ProxmoxAPI.Storage
	out := &report.ProxmoxImages{Cluster: c.Spec.Cluster.Name, Storage: storage, DryRun: opts.DryRun, Images: []report.ProxmoxImage{}}

	// What each Proxmox node's storage holds, asked once per node.
	held := map[string][]string{}
	listErr := map[string]error{}

	for _, iso := range isos {
		im := report.ProxmoxImage{
			ProxmoxNode: iso.proxmoxNode, File: iso.file, URL: iso.url, SchematicID: iso.id,
			TalosVersion: schematic.VersionTag(c.Spec.TalosVersion), Nodes: iso.nodes,
		}

		if _, asked := held[iso.proxmoxNode]; !asked && listErr[iso.proxmoxNode] == nil {
			names, err := api.ISOs(ctx, iso.proxmoxNode, storage)
			if err != nil {
				listErr[iso.proxmoxNode] = err
			} else {
				held[iso.proxmoxNode] = names
			}
		}

		switch {
		case listErr[iso.proxmoxNode] != nil:
			im.Outcome, im.Error = report.ImageFailed, listErr[iso.proxmoxNode].Error()
		case slices.Contains(held[iso.proxmoxNode], iso.file):
			im.Outcome = report.ImagePresent
		case opts.DryRun:
			im.Outcome = report.ImageMissing
		default:
			if err := api.DownloadISO(ctx, iso.proxmoxNode, storage, iso.url, iso.file); err != nil {
				im.Outcome, im.Error = report.ImageFailed, err.Error()
			} else {
				im.Outcome = report.ImageDownloaded
				held[iso.proxmoxNode] = append(held[iso.proxmoxNode], iso.file)
			}
		}

		out.Images = append(out.Images, im)

		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}

	out.Summarize()

	return out, nil
}

// bootISOs lists the ISOs the Proxmox nodes need, ordered by Proxmox node and file name.
func bootISOs(c *cluster.Cluster) ([]bootISO, error) {
	ids, err := render.SchematicIDs(c)
	if err != nil {
		return nil, err
	}

	version := schematic.VersionTag(c.Spec.TalosVersion)
	byKey := map[string]*bootISO{}

	var errs []error

	for i, n := range c.Spec.Nodes {
		if n.Proxmox == nil {
			continue
		}

		file, _ := schematic.BootImageFiles(c.Platform(), bootArch, n.SecureBoot)
		if file == "" {
			field := "platform"
			if n.SecureBoot {
				field = fmt.Sprintf("nodes[%d].secureBoot", i)
			}

			errs = append(errs, &cluster.InputError{
				File: c.Path(cluster.FileName), Line: c.Line(field), Field: field,
				Msg: fmt.Sprintf("node %s: the Image Factory builds no %s ISO for platform %s", n.Name, bootArch, c.Platform()),
			})

			continue
		}

		id := schematic.VanillaID
		if n.Schematic != "" {
			id = ids[n.Schematic]
		}

		name := ISOName(version, id, file)
		key := n.Proxmox.Node + "/" + name

		iso := byKey[key]
		if iso == nil {
			iso = &bootISO{
				proxmoxNode: n.Proxmox.Node, file: name, id: id,
				url: schematic.BootImageURL(c.ImageFactory(), id, version, file),
			}
			byKey[key] = iso
		}

		iso.nodes = append(iso.nodes, n.Name)
	}

	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	out := make([]bootISO, 0, len(byKey))
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		out = append(out, *byKey[k])
	}

	return out, nil
}

// ISOName is the file name of a boot ISO in Proxmox storage:
// talos-v1.13.9-376567988ad3-nocloud-amd64.iso. The schematic ID prefix tells the
// schematics apart; the factory's file name keeps platform, architecture and SecureBoot.
func ISOName(version, id, factoryFile string) string {
	return "talos-" + schematic.VersionTag(version) + "-" + id[:min(12, len(id))] + "-" + factoryFile
}

// ProxmoxVMsOptions are `proxmox vms`' inputs.
type ProxmoxVMsOptions struct {
	Deps *Deps

	Dir    string
	Start  bool
	Format string
}

func proxmoxVMsFlags(d *Deps, args []string) (*ProxmoxVMsOptions, error) {
	opts := &ProxmoxVMsOptions{Deps: d}

	fs := newFlags(d, "proxmox vms", "proxmox vms [--dir D] [--start] [--format text|json]")
	fs.StringVar(&opts.Dir, "dir", ".", "repository directory holding talops.yaml")
	fs.BoolVar(&opts.Start, "start", false, "start the VMs that are not running")
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

	if err := d.view(func(w io.Writer) error { return report.WriteProxmoxVMs(w, opts.Format, out) }); err != nil {
		return err
	}

	if s := out.Summary; s.Failed+s.Missing+s.NotRunning > 0 {
		return &FailedError{Msg: "some nodes have no running VM"}
	}

	return nil
}

// ProxmoxVMs checks that the VM of every node with proxmox: exists and runs; with Start
// it starts the stopped ones. A paused or suspended VM is reported, never started.
func ProxmoxVMs(ctx context.Context, opts *ProxmoxVMsOptions) (*report.ProxmoxVMs, error) {
	c, api, err := proxmoxRepo(opts.Deps, opts.Dir)
	if err != nil {
		return nil, err
	}

	out := &report.ProxmoxVMs{Cluster: c.Spec.Cluster.Name, VMs: []report.ProxmoxVM{}}

	for _, n := range c.Spec.Nodes {
		if n.Proxmox == nil {
			continue
		}

		vm := report.ProxmoxVM{Node: n.Name, ProxmoxNode: n.Proxmox.Node, VMID: n.Proxmox.VMID}

		st, err := api.VM(ctx, n.Proxmox.Node, n.Proxmox.VMID)

		switch {
		case err != nil:
			vm.Outcome, vm.Error = report.VMFailed, err.Error()
		case !st.Exists:
			vm.Outcome = report.VMMissing
		case st.Running:
			vm.Name, vm.Status, vm.Outcome = st.Name, st.Status, report.VMRunning
		case opts.Start && strings.EqualFold(st.Status, "stopped"):
			vm.Name, vm.Status = st.Name, st.Status

			if err := api.StartVM(ctx, n.Proxmox.Node, n.Proxmox.VMID); err != nil {
				vm.Outcome, vm.Error = report.VMFailed, err.Error()
			} else {
				vm.Status, vm.Outcome = "running", report.VMStarted
			}
		default:
			vm.Name, vm.Status, vm.Outcome = st.Name, st.Status, report.VMStopped
		}

		out.VMs = append(out.VMs, vm)

		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}

	out.Summarize()

	return out, nil
}
