package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// ProxmoxFormats are the formats of the proxmox commands.
var ProxmoxFormats = []string{FormatText, FormatJSON}

// Outcomes of a boot image on a Proxmox node.
const (
	ImagePresent    = "present"
	ImageDownloaded = "downloaded"
	// ImageMissing is a missing image a dry run did not download.
	ImageMissing = "missing"
	ImageFailed  = "failed"
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
		}
	}

	var parts []string

	for _, c := range []struct {
		n    int
		what string
	}{{s.Failed, "failed"}, {s.Downloaded, "downloaded"}, {s.Missing, "missing"}, {s.Present, "present"}} {
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

// WriteProxmoxImages writes the view in a format.
func WriteProxmoxImages(w io.Writer, format string, p *ProxmoxImages) error {
	if format == FormatJSON {
		return writeIndented(w, p)
	}

	var b strings.Builder

	fmt.Fprintf(&b, "%s\nstorage %s\n\n", p.Summary.Line, p.Storage)

	for _, im := range p.Images {
		fmt.Fprintf(&b, "  %s: %s %s (%s)\n", im.ProxmoxNode, im.File, im.Outcome, strings.Join(im.Nodes, ", "))

		switch {
		case im.Outcome == ImageFailed:
			fmt.Fprintf(&b, "    error: %s\n", oneLine(im.Error))
		case im.Outcome != ImagePresent:
			fmt.Fprintf(&b, "    from %s\n", im.URL)
		}
	}

	_, err := io.WriteString(w, b.String())

	return err
}

// Outcomes of a node's VM.
const (
	VMRunning = "running"
	VMStarted = "started"
	VMStopped = "not running"
	VMMissing = "missing"
	VMFailed  = "failed"
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
		}
	}

	var parts []string

	for _, c := range []struct {
		n    int
		what string
	}{{s.Failed, "failed"}, {s.Missing, "missing"}, {s.NotRunning, "not running"}, {s.Started, "started"}, {s.Running, "running"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}

	s.Line = fmt.Sprintf("Proxmox VMs: %s — %s", p.Cluster, strings.Join(parts, ", "))
	p.Summary = s
}

// WriteProxmoxVMs writes the view in a format.
func WriteProxmoxVMs(w io.Writer, format string, p *ProxmoxVMs) error {
	if format == FormatJSON {
		return writeIndented(w, p)
	}

	var b strings.Builder

	fmt.Fprintf(&b, "%s\n\n", p.Summary.Line)

	for _, vm := range p.VMs {
		fmt.Fprintf(&b, "  %s: %s/%d", vm.Node, vm.ProxmoxNode, vm.VMID)

		if vm.Name != "" {
			fmt.Fprintf(&b, " (%s)", vm.Name)
		}

		fmt.Fprintf(&b, " %s", vm.Outcome)

		switch {
		case vm.Outcome == VMFailed:
			fmt.Fprintf(&b, ": %s", oneLine(vm.Error))
		case vm.Outcome == VMStopped:
			fmt.Fprintf(&b, " (status %s; --start starts it)", vm.Status)
		case vm.Outcome == VMMissing:
			b.WriteString(": no such VM on that Proxmox node")
		}

		b.WriteString("\n")
	}

	_, err := io.WriteString(w, b.String())

	return err
}

func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")

	return enc.Encode(v)
}
