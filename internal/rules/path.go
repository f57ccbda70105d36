package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/finding"
)

// Path is the way from the base's versions to the head's when it takes more than one safe
// hop: what a reviewer of a bump that jumps minors needs to see before it is walked.
type Path struct {
	Hops []PathHop `json:"hops"`
	// RebootsPerNode is how often every node reboots on the way: once per Talos hop.
	RebootsPerNode int `json:"rebootsPerNode"`
	// Minutes is a rough duration of the whole path (estimateMinutes).
	Minutes int `json:"minutes"`
}

// PathHop is one hop of a path, with what it does to the NVIDIA drivers of the GPU nodes.
type PathHop struct {
	catalog.Hop
	NVIDIA []HopDriver `json:"nvidia,omitempty"`
}

// HopDriver is the NVIDIA driver of a track a GPU node uses, at a Talos hop.
type HopDriver struct {
	Flavour string `json:"flavour"`
	// Driver and Toolkit are the release's, UnknownVersion when the release data lacks them.
	Driver  string `json:"driver"`
	Toolkit string `json:"toolkit,omitempty"`
	// OpenModule is the open kernel module the Image Factory puts in place of the
	// proprietary one the track no longer builds at this hop ("" when none).
	OpenModule string `json:"openModule,omitempty"`
}

// The rough duration of a path: a Talos hop upgrades the nodes one at a time (drain,
// upgrade, reboot, health gate), a Kubernetes hop restarts each control plane's components
// and each node's kubelet.
const (
	minutesPerNodeUpgrade = 6
	minutesPerK8sHop      = 5
	minutesPerK8sNode     = 1
)

func estimateMinutes(hops []catalog.Hop, nodes int) int {
	talos := catalog.TalosHops(hops)

	return talos*nodes*minutesPerNodeUpgrade + (len(hops)-talos)*(minutesPerK8sHop+nodes*minutesPerK8sNode)
}

// gpuTrack is a track some GPU node of the head runs, and whether with the proprietary
// kernel module.
type gpuTrack struct {
	flavour     catalog.Flavour
	proprietary bool
}

// upgradePath is the path of the bump when it takes more than one hop; nil when one step (or
// none) is enough or no path is known (the version findings say why).
func upgradePath(head *Input, talos, kube Change, nodes int, tracks []gpuTrack) *Path {
	if !talos.Changed() && !kube.Changed() {
		return nil
	}

	hops, err := catalog.UpgradePath(catalogOf(head), catalog.EmbeddedFacts(),
		catalog.Versions{Talos: talos.From, Kubernetes: kube.From}, catalog.Versions{Talos: talos.To, Kubernetes: kube.To})
	if err != nil || len(hops) < 2 {
		return nil
	}

	p := &Path{RebootsPerNode: catalog.TalosHops(hops), Minutes: estimateMinutes(hops, nodes)}

	for _, h := range hops {
		ph := PathHop{Hop: h}
		if h.Talos != "" {
			ph.NVIDIA = hopDrivers(catalogOf(head), h.Talos, tracks)
		}

		p.Hops = append(p.Hops, ph)
	}

	return p
}

// hopDrivers are the drivers each track gets at a Talos release: from the release data,
// else the facts.
func hopDrivers(c *catalog.Catalog, tag string, tracks []gpuTrack) []HopDriver {
	var out []HopDriver

	r, hasRelease := c.Release(tag)
	facts, _ := catalog.EmbeddedFacts().Release(tag)

	for _, t := range tracks {
		d := HopDriver{Flavour: string(t.flavour), Driver: UnknownVersion}

		if driver, toolkit, ok := r.NvidiaDriver(t.flavour); hasRelease && ok {
			d.Driver, d.Toolkit = driver, toolkit
		} else if driver := facts.Nvidia[t.flavour]; driver != "" {
			d.Driver = driver
		}

		if t.proprietary && openOnly(tag, catalog.NvidiaExt{Kind: catalog.KernelModuleProprietary, Flavour: t.flavour}) {
			d.OpenModule = catalog.KernelModuleOpen.ExtensionName(t.flavour)
		}

		out = append(out, d)
	}

	return out
}

// String says the path in one line: "Talos v1.13.13, v1.14.7, then Kubernetes v1.36.0, v1.37.1".
func (p *Path) String() string {
	var parts []string

	for i, h := range p.Hops {
		word, v := "Talos ", h.Talos
		if v == "" {
			word, v = "Kubernetes ", h.Kubernetes
		}

		if i > 0 && (p.Hops[i-1].Talos == "") == (h.Talos == "") {
			word = ""
		} else if i > 0 {
			word = "then " + word
		}

		parts = append(parts, word+v)
	}

	return strings.Join(parts, ", ")
}

// withPath names the path in the findings that refuse or warn about jumping minors.
func withPath(fs []finding.Finding, p *Path) {
	if p == nil {
		return
	}

	for i := range fs {
		if fs[i].Code == CodeUpgradeSkipsMinor || fs[i].Code == CodeK8sSkipsMinor {
			fs[i].Message += fmt.Sprintf("; the path: %s (%d reboots per node)", p, p.RebootsPerNode)
		}
	}
}

// addTrack records the tracks a GPU node of the head runs.
func addTrack(tracks []gpuTrack, g gpuSetup) []gpuTrack {
	for _, k := range g.kmods() {
		t := gpuTrack{flavour: k.flavour, proprietary: k.kind == catalog.KernelModuleProprietary}
		if !slices.Contains(tracks, t) {
			tracks = append(tracks, t)
		}
	}

	return tracks
}
