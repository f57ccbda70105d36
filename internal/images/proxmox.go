package images

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/schematic"
)

// Outcomes of a boot image on a Proxmox node.
const (
	ImagePresent    = "present"
	ImageDownloaded = "downloaded"
	// ImageMissing is a missing image a dry run did not download.
	ImageMissing = "missing"
	ImageFailed  = "failed"
	// ImagePruned is one of talops' own ISOs no node needs any more, deleted by --prune;
	// ImagePrunable is one a dry run would delete.
	ImagePruned   = "pruned"
	ImagePrunable = "prunable"
)

// ProxmoxImages is what `talops proxmox images` found and did.
type ProxmoxImages struct {
	Cluster string               `json:"cluster"`
	Storage string               `json:"storage"`
	DryRun  bool                 `json:"dryRun"`
	Summary ProxmoxImagesSummary `json:"summary"`
	Images  []ProxmoxImage       `json:"images"`
}

// ProxmoxImagesSummary counts the images by outcome.
type ProxmoxImagesSummary struct {
	Line       string `json:"line"`
	Present    int    `json:"present"`
	Downloaded int    `json:"downloaded"`
	Missing    int    `json:"missing"`
	Failed     int    `json:"failed"`
	Pruned     int    `json:"pruned,omitempty"`
	Prunable   int    `json:"prunable,omitempty"`
}

// ProxmoxImage is one boot ISO in the storage of one Proxmox node.
type ProxmoxImage struct {
	ProxmoxNode  string   `json:"proxmoxNode"`
	File         string   `json:"file"`
	URL          string   `json:"url"`
	SchematicID  string   `json:"schematicId"`
	TalosVersion string   `json:"talosVersion"`
	Nodes        []string `json:"nodes"`
	Outcome      string   `json:"outcome"`
	Error        string   `json:"error,omitempty"`
}

// Summarize counts the outcomes and writes the summary line.
func (p *ProxmoxImages) Summarize() {
	s := ProxmoxImagesSummary{}

	for _, im := range p.Images {
		switch im.Outcome {
		case ImagePresent:
			s.Present++
		case ImageDownloaded:
			s.Downloaded++
		case ImageMissing:
			s.Missing++
		case ImageFailed:
			s.Failed++
		case ImagePruned:
			s.Pruned++
		case ImagePrunable:
			s.Prunable++
		}
	}

	var parts []string

	for _, c := range []struct {
		n    int
		what string
	}{{s.Failed, "failed"}, {s.Downloaded, "downloaded"}, {s.Missing, "missing"}, {s.Present, "present"}, {s.Pruned, "pruned"}, {s.Prunable, "to prune"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}

	if len(parts) == 0 {
		parts = []string{"no images"}
	}

	mode := ""
	if p.DryRun {
		mode = " (dry run)"
	}

	s.Line = fmt.Sprintf("Proxmox images: %s — %s%s", p.Cluster, strings.Join(parts, ", "), mode)
	p.Summary = s
}

// Outcomes of a node's VM.
const (
	VMRunning = "running"
	VMStarted = "started"
	VMStopped = "not running"
	VMMissing = "missing"
	VMFailed  = "failed"
	// VMCreated is a missing VM --create created from the node's spec and started.
	VMCreated = "created"
)

// ProxmoxVMs is what `talops proxmox vms` found and did.
type ProxmoxVMs struct {
	Cluster string            `json:"cluster"`
	Summary ProxmoxVMsSummary `json:"summary"`
	VMs     []ProxmoxVM       `json:"vms"`
}

// ProxmoxVMsSummary counts the VMs by outcome.
type ProxmoxVMsSummary struct {
	Line       string `json:"line"`
	Running    int    `json:"running"`
	Started    int    `json:"started"`
	NotRunning int    `json:"notRunning"`
	Missing    int    `json:"missing"`
	Failed     int    `json:"failed"`
	Created    int    `json:"created,omitempty"`
	// Drifted counts the VMs that differ from their spec.
	Drifted int `json:"drifted,omitempty"`
}

// ProxmoxVM is the VM of one talops node.
type ProxmoxVM struct {
	Node        string `json:"node"`
	ProxmoxNode string `json:"proxmoxNode"`
	VMID        int    `json:"vmid"`
	// Name and Status are Proxmox's (empty for a missing VM).
	Name    string `json:"name,omitempty"`
	Status  string `json:"status,omitempty"`
	Outcome string `json:"outcome"`
	Error   string `json:"error,omitempty"`
	// Drift lists how the VM differs from the node's proxmox: spec (talops never changes
	// an existing VM: this is for a person to act on).
	Drift []string `json:"drift,omitempty"`
}

// Summarize counts the outcomes and writes the summary line.
func (p *ProxmoxVMs) Summarize() {
	s := ProxmoxVMsSummary{}

	for _, vm := range p.VMs {
		switch vm.Outcome {
		case VMRunning:
			s.Running++
		case VMStarted:
			s.Started++
		case VMStopped:
			s.NotRunning++
		case VMMissing:
			s.Missing++
		case VMFailed:
			s.Failed++
		case VMCreated:
			s.Created++
		}

		if len(vm.Drift) > 0 {
			s.Drifted++
		}
	}

	var parts []string

	for _, c := range []struct {
		n    int
		what string
	}{{s.Failed, "failed"}, {s.Missing, "missing"}, {s.NotRunning, "not running"}, {s.Created, "created"}, {s.Started, "started"}, {s.Running, "running"}, {s.Drifted, "with drift"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}

	s.Line = fmt.Sprintf("Proxmox VMs: %s — %s", p.Cluster, strings.Join(parts, ", "))
	p.Summary = s
}

// BootISO is one ISO a Proxmox node's storage must hold.
type BootISO struct {
	// ProxmoxNode is the Proxmox node whose storage holds File, fetched from URL.
	ProxmoxNode, File, URL string
	// ID is the schematic's; Nodes are the talops nodes that boot from the ISO.
	ID    string
	Nodes []string
}

// BootISOs lists the ISOs the Proxmox nodes need, ordered by Proxmox node and file name.
func BootISOs(c *cluster.Cluster) ([]BootISO, error) {
	ids, err := render.SchematicIDs(c)
	if err != nil {
		return nil, err
	}

	version := schematic.VersionTag(c.Spec.TalosVersion)
	byKey := map[string]*BootISO{}

	var errs []error

	for i, n := range c.Spec.Nodes {
		if n.Proxmox == nil {
			continue
		}

		file, _ := schematic.BootImageFiles(c.NodePlatform(n), BootArch, n.SecureBoot)
		if file == "" {
			field := isoField(i, n)
			errs = append(errs, &cluster.InputError{
				File: c.Path(cluster.FileName), Line: c.Line(field), Field: field,
				Msg: fmt.Sprintf("node %s: the Image Factory builds no %s ISO for platform %s", n.Name, BootArch, c.NodePlatform(n)),
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
			iso = &BootISO{
				ProxmoxNode: n.Proxmox.Node, File: name, ID: id,
				URL: schematic.BootImageURL(c.ImageFactory(), id, version, file),
			}
			byKey[key] = iso
		}

		iso.Nodes = append(iso.Nodes, n.Name)
	}

	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	out := make([]BootISO, 0, len(byKey))
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		out = append(out, *byKey[k])
	}

	return out, nil
}

// isoField is the field of talops.yaml that asks for an ISO the factory does not build:
// the node's secureBoot, else its own platform, else the cluster's.
func isoField(i int, n cluster.Node) string {
	switch {
	case n.SecureBoot:
		return fmt.Sprintf("nodes[%d].secureBoot", i)
	case n.Platform != "":
		return fmt.Sprintf("nodes[%d].platform", i)
	default:
		return "platform"
	}
}

// talopsISO is the form of ISOName's names: what --prune may ever delete.
var talopsISO = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^talos-v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?-[0-9a-f]{12}-[a-z0-9-]+\.iso$`)
})

// IsTalopsISO reports whether a file name in storage is one talops names its boot ISOs
// with; ISOs named otherwise are someone else's.
func IsTalopsISO(name string) bool { return talopsISO().MatchString(name) }

// ISOName is the file name of a boot ISO in Proxmox storage:
// talos-v1.13.9-376567988ad3-nocloud-amd64.iso. The schematic ID prefix tells the
// schematics apart; the factory's file name keeps platform, architecture and SecureBoot.
func ISOName(version, id, factoryFile string) string {
	return "talos-" + schematic.VersionTag(version) + "-" + id[:min(12, len(id))] + "-" + factoryFile
}
