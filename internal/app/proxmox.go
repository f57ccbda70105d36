package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/images"
	"github.com/talops/talops/internal/proxmox"
	"github.com/talops/talops/internal/schematic"
)

// Environment variables holding the Proxmox API token; talops.yaml never does.
const (
	EnvProxmoxTokenID     = "PROXMOX_TOKEN_ID"
	EnvProxmoxTokenSecret = "PROXMOX_TOKEN_SECRET"
	// EnvProxmoxURL pins where the token may go, and must be set beside it: talops.yaml
	// must name the same API, so that a change to the repository cannot send the token
	// elsewhere.
	EnvProxmoxURL = "PROXMOX_URL"
)

// proxmoxRepo loads the repository and connects to its Proxmox API. The token secret
// is masked before anything that could quote it runs.
func proxmoxRepo(d *Deps, dir string) (*cluster.Cluster, proxmox.API, error) {
	c, err := LoadCluster(d, dir)
	if err != nil {
		return nil, nil, err
	}

	if err := c.RequireProxmox(); err != nil {
		return nil, nil, err
	}

	id, secret := d.Getenv(EnvProxmoxTokenID), d.Getenv(EnvProxmoxTokenSecret)
	d.mask(secret)

	if id == "" || secret == "" {
		return nil, nil, &UsageError{Msg: fmt.Sprintf("%s and %s must hold a Proxmox API token (user@realm!name and its secret)", EnvProxmoxTokenID, EnvProxmoxTokenSecret)}
	}

	if d.Proxmox == nil {
		return nil, nil, errors.New("no Proxmox client")
	}

	p := c.Spec.ProxmoxAPI

	pinned := d.Getenv(EnvProxmoxURL)
	if pinned == "" {
		// talops.yaml comes from the repository: it alone never decides where the token goes.
		return nil, nil, &UsageError{Msg: fmt.Sprintf("%s must name the Proxmox API the token may be sent to (the proxmox.url of talops.yaml) whenever %s is set", EnvProxmoxURL, EnvProxmoxTokenID)}
	}

	if strings.TrimSuffix(pinned, "/") != strings.TrimSuffix(p.URL, "/") {
		return nil, nil, &cluster.InputError{File: c.Path(cluster.FileName), Line: c.Line("proxmox.url"), Field: "proxmox.url",
			Msg: fmt.Sprintf("%s is not %s, the API %s pins the token to: the token is not sent", p.URL, pinned, EnvProxmoxURL)}
	}

	cfg := proxmox.Config{URL: p.URL, TokenID: id, TokenSecret: secret, UserAgent: d.UserAgent}

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

// ProxmoxImagesOptions say which repository's boot images to put in place.
type ProxmoxImagesOptions struct {
	Dir string
	// DryRun lists what is missing without downloading.
	DryRun bool
	// Register registers the schematics with the Image Factory before the first download:
	// the factory builds the ISO of a schematic it was told about, and answers 404
	// (a failed download task) for any other.
	Register bool
	// Prune deletes talops' own ISOs (by their names) that no node of the cluster boots
	// from any more, from the storage of each Proxmox node hosting one; with DryRun it
	// lists them. ISOs named otherwise are never touched.
	Prune bool
}

// ProxmoxImages makes sure the storage of every Proxmox node hosting a talops node holds
// the boot ISO of each schematic those nodes use, at the cluster's Talos version.
// Images are never deleted or replaced: a file of the same name is taken as present.
func ProxmoxImages(ctx context.Context, d *Deps, opts ProxmoxImagesOptions) (*images.ProxmoxImages, error) {
	c, api, err := proxmoxRepo(d, opts.Dir)
	if err != nil {
		return nil, err
	}

	isos, err := images.BootISOs(c)
	if err != nil {
		return nil, err
	}

	storage := c.Spec.ProxmoxAPI.Storage
	out := &images.ProxmoxImages{Cluster: c.Spec.Cluster.Name, Storage: storage, DryRun: opts.DryRun, Images: []images.ProxmoxImage{}}

	// What each Proxmox node's storage holds, asked once per node.
	held := map[string][]string{}
	listErr := map[string]error{}

	// The schematics are registered once, when the first image is to be downloaded.
	registered, regErr := !opts.Register, error(nil)

	for _, iso := range isos {
		im := images.ProxmoxImage{
			ProxmoxNode: iso.ProxmoxNode, File: iso.File, URL: iso.URL, SchematicID: iso.ID,
			TalosVersion: schematic.VersionTag(c.Spec.TalosVersion), Nodes: iso.Nodes,
		}

		askOnce(ctx, api, iso.ProxmoxNode, storage, held, listErr)

		switch {
		case listErr[iso.ProxmoxNode] != nil:
			im.Outcome, im.Error = images.ImageFailed, listErr[iso.ProxmoxNode].Error()
		case slices.Contains(held[iso.ProxmoxNode], iso.File):
			im.Outcome = images.ImagePresent
		case opts.DryRun:
			im.Outcome = images.ImageMissing
		default:
			if !registered {
				registered, regErr = true, RegisterSchematics(ctx, d, c)
			}

			if regErr != nil {
				im.Outcome, im.Error = images.ImageFailed, "not downloaded: "+regErr.Error()
			} else if err := api.DownloadISO(ctx, iso.ProxmoxNode, storage, iso.URL, iso.File); err != nil {
				im.Outcome, im.Error = images.ImageFailed, err.Error()
			} else {
				im.Outcome = images.ImageDownloaded
				held[iso.ProxmoxNode] = append(held[iso.ProxmoxNode], iso.File)
			}
		}

		out.Images = append(out.Images, im)

		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}

	if opts.Prune {
		out.Images = append(out.Images, prune(ctx, api, storage, isos, held, opts.DryRun)...)
	}

	out.Summarize()

	return out, nil
}

// askOnce puts what the storage of a Proxmox node holds in held, or why it could not be
// listed in listErr, unless it was asked already.
func askOnce(ctx context.Context, api proxmox.API, node, storage string, held map[string][]string, listErr map[string]error) {
	if _, asked := held[node]; asked || listErr[node] != nil {
		return
	}

	names, err := api.ISOs(ctx, node, storage)
	if err != nil {
		listErr[node] = err
	} else {
		held[node] = names
	}
}

// prune deletes, or with dryRun lists, the talops ISOs in each listed storage that no
// node needs. Only the storages of Proxmox nodes hosting this cluster are looked at.
func prune(ctx context.Context, api proxmox.API, storage string, needed []images.BootISO, held map[string][]string, dryRun bool) []images.ProxmoxImage {
	keep := map[string]bool{}
	for _, iso := range needed {
		keep[iso.ProxmoxNode+"/"+iso.File] = true
	}

	var out []images.ProxmoxImage

	for _, node := range slices.Sorted(maps.Keys(held)) {
		for _, file := range slices.Sorted(slices.Values(held[node])) {
			if keep[node+"/"+file] || !images.IsTalopsISO(file) {
				continue
			}

			im := images.ProxmoxImage{ProxmoxNode: node, File: file, Nodes: []string{}, Outcome: images.ImagePrunable}

			if !dryRun {
				if err := api.DeleteISO(ctx, node, storage, file); err != nil {
					im.Outcome, im.Error = images.ImageFailed, "not pruned: "+err.Error()
				} else {
					im.Outcome = images.ImagePruned
				}
			}

			out = append(out, im)

			if ctx.Err() != nil {
				return out
			}
		}
	}

	return out
}

// ProxmoxVMsOptions say which repository's VMs to check, and whether to start them.
type ProxmoxVMsOptions struct {
	Dir string
	// Start starts the VMs that are stopped.
	Start bool
	// Create creates every missing VM from its node's proxmox: spec, with the node's boot
	// ISO in its CD drive, and starts it: it boots Talos into maintenance mode, waiting for
	// apply to configure it (the create path).
	Create bool
}

// ProxmoxVMs checks that the VM of every node with proxmox: exists and runs; with Start
// it starts the stopped ones, with Create it creates the missing ones. A paused or
// suspended VM is reported, never started; an existing VM is never changed, but how it
// differs from its spec is reported.
func ProxmoxVMs(ctx context.Context, d *Deps, opts ProxmoxVMsOptions) (*images.ProxmoxVMs, error) {
	c, api, err := proxmoxRepo(d, opts.Dir)
	if err != nil {
		return nil, err
	}

	var boot map[string]string // talops node → its boot ISO's file name
	if opts.Create {
		if boot, err = bootISOByNode(c); err != nil {
			return nil, err
		}
	}

	out := &images.ProxmoxVMs{Cluster: c.Spec.Cluster.Name, VMs: []images.ProxmoxVM{}}
	held := map[string][]string{} // Proxmox node → the ISOs its storage holds

	for _, n := range c.Spec.Nodes {
		if n.Proxmox == nil {
			continue
		}

		vm := images.ProxmoxVM{Node: n.Name, ProxmoxNode: n.Proxmox.Node, VMID: n.Proxmox.VMID}

		st, err := api.VM(ctx, n.Proxmox.Node, n.Proxmox.VMID)

		switch {
		case err != nil:
			vm.Outcome, vm.Error = images.VMFailed, err.Error()
		case !st.Exists && opts.Create:
			createVM(ctx, api, c, n, boot[n.Name], held, &vm)
		case !st.Exists:
			vm.Outcome = images.VMMissing
		case st.Running:
			vm.Name, vm.Status, vm.Outcome = st.Name, st.Status, images.VMRunning
		case opts.Start && strings.EqualFold(st.Status, "stopped"):
			vm.Name, vm.Status = st.Name, st.Status

			if err := api.StartVM(ctx, n.Proxmox.Node, n.Proxmox.VMID); err != nil {
				vm.Outcome, vm.Error = images.VMFailed, err.Error()
			} else {
				vm.Status, vm.Outcome = "running", images.VMStarted
			}
		default:
			vm.Name, vm.Status, vm.Outcome = st.Name, st.Status, images.VMStopped
		}

		if err == nil && st.Exists && describesVM(n.Proxmox) {
			if cfg, err := api.VMConfig(ctx, n.Proxmox.Node, n.Proxmox.VMID); err != nil {
				vm.Drift = []string{"its config could not be read to compare it with the spec: " + err.Error()}
			} else {
				vm.Drift = images.VMDrift(n, cfg)
			}
		}

		out.VMs = append(out.VMs, vm)

		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}

	out.Summarize()

	return out, nil
}

// createVM creates a node's missing VM with its boot ISO attached, and starts it. The ISO
// must be in storage already: PVE refuses a CD drive whose volume is not there.
func createVM(ctx context.Context, api proxmox.API, c *cluster.Cluster, n cluster.Node, iso string, held map[string][]string, vm *images.ProxmoxVM) {
	storage := c.Spec.ProxmoxAPI.Storage

	if _, ok := held[n.Proxmox.Node]; !ok {
		names, err := api.ISOs(ctx, n.Proxmox.Node, storage)
		if err != nil {
			vm.Outcome, vm.Error = images.VMFailed, "not created: "+err.Error()

			return
		}

		held[n.Proxmox.Node] = names
	}

	if !slices.Contains(held[n.Proxmox.Node], iso) {
		vm.Outcome, vm.Error = images.VMFailed, fmt.Sprintf("not created: its boot image %s is not in storage %s on %s: run talops proxmox images first", iso, storage, n.Proxmox.Node)

		return
	}

	if err := api.CreateVM(ctx, n.Proxmox.Node, images.VMCreateParams(n, storage+":iso/"+iso)); err != nil {
		vm.Outcome, vm.Error = images.VMFailed, err.Error()

		return
	}

	if err := api.StartVM(ctx, n.Proxmox.Node, n.Proxmox.VMID); err != nil {
		vm.Outcome, vm.Error = images.VMFailed, "created, then not started: "+err.Error()

		return
	}

	vm.Name, vm.Status, vm.Outcome = n.Name, "running", images.VMCreated
}

// bootISOByNode names the boot ISO of every talops node placed on Proxmox.
func bootISOByNode(c *cluster.Cluster) (map[string]string, error) {
	isos, err := images.BootISOs(c)
	if err != nil {
		return nil, err
	}

	out := map[string]string{}

	for _, iso := range isos {
		for _, n := range iso.Nodes {
			out[n] = iso.File
		}
	}

	return out, nil
}

// describesVM reports whether a node's proxmox: section says more than where its VM is.
func describesVM(p *cluster.Proxmox) bool {
	return p.Cores != 0 || p.Memory != 0 || p.CPU != "" || p.Machine != "" || p.BIOS != "" || p.Disk != nil ||
		p.Bridge != "" || p.VLAN != 0 || p.MAC != "" || len(p.HostPCI) > 0 || len(p.Tags) > 0
}
