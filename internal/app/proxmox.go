package app

import (
	"context"
	"errors"
	"fmt"
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
	// EnvProxmoxURL, when set, pins where the token may go: talops.yaml must name the same
	// API, so that a change to the repository cannot send the token elsewhere.
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

	if pinned := d.Getenv(EnvProxmoxURL); pinned != "" && strings.TrimSuffix(pinned, "/") != strings.TrimSuffix(p.URL, "/") {
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

		if _, asked := held[iso.ProxmoxNode]; !asked && listErr[iso.ProxmoxNode] == nil {
			names, err := api.ISOs(ctx, iso.ProxmoxNode, storage)
			if err != nil {
				listErr[iso.ProxmoxNode] = err
			} else {
				held[iso.ProxmoxNode] = names
			}
		}

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

	out.Summarize()

	return out, nil
}

// ProxmoxVMsOptions say which repository's VMs to check, and whether to start them.
type ProxmoxVMsOptions struct {
	Dir string
	// Start starts the VMs that are stopped.
	Start bool
}

// ProxmoxVMs checks that the VM of every node with proxmox: exists and runs; with Start
// it starts the stopped ones. A paused or suspended VM is reported, never started.
func ProxmoxVMs(ctx context.Context, d *Deps, opts ProxmoxVMsOptions) (*images.ProxmoxVMs, error) {
	c, api, err := proxmoxRepo(d, opts.Dir)
	if err != nil {
		return nil, err
	}

	out := &images.ProxmoxVMs{Cluster: c.Spec.Cluster.Name, VMs: []images.ProxmoxVM{}}

	for _, n := range c.Spec.Nodes {
		if n.Proxmox == nil {
			continue
		}

		vm := images.ProxmoxVM{Node: n.Name, ProxmoxNode: n.Proxmox.Node, VMID: n.Proxmox.VMID}

		st, err := api.VM(ctx, n.Proxmox.Node, n.Proxmox.VMID)

		switch {
		case err != nil:
			vm.Outcome, vm.Error = images.VMFailed, err.Error()
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

		out.VMs = append(out.VMs, vm)

		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}

	out.Summarize()

	return out, nil
}
