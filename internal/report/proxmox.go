package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/talops/talops/internal/images"
)

var (
	proxmoxImageViews = Views[*images.ProxmoxImages]{FormatText: proxmoxImagesText, FormatJSON: writeIndented[*images.ProxmoxImages]}
	proxmoxVMViews    = Views[*images.ProxmoxVMs]{FormatText: proxmoxVMsText, FormatJSON: writeIndented[*images.ProxmoxVMs]}
)

// ProxmoxFormats are the formats of the proxmox commands.
var ProxmoxFormats = proxmoxImageViews.Formats()

// WriteProxmoxImages writes the view in a format.
func WriteProxmoxImages(w io.Writer, format string, p *images.ProxmoxImages) error {
	return proxmoxImageViews.Write(w, format, p)
}

// WriteProxmoxVMs writes the view in a format.
func WriteProxmoxVMs(w io.Writer, format string, p *images.ProxmoxVMs) error {
	return proxmoxVMViews.Write(w, format, p)
}

// proxmoxImagesText is the images view for people.
func proxmoxImagesText(w io.Writer, p *images.ProxmoxImages) error {
	var b strings.Builder

	fmt.Fprintf(&b, "%s\nstorage %s\n\n", p.Summary.Line, p.Storage)

	for _, im := range p.Images {
		nodes := strings.Join(im.Nodes, ", ")
		if len(im.Nodes) == 0 {
			nodes = "no node boots from it"
		}

		fmt.Fprintf(&b, "  %s: %s %s (%s)\n", im.ProxmoxNode, im.File, im.Outcome, nodes)

		switch {
		case im.Outcome == images.ImageFailed:
			fmt.Fprintf(&b, "    error: %s\n", oneLine(im.Error))
		case im.Outcome == images.ImagePrunable:
			b.WriteString("    --prune without --dry-run deletes it\n")
		case im.Outcome != images.ImagePresent && im.Outcome != images.ImagePruned:
			fmt.Fprintf(&b, "    from %s\n", im.URL)
		}
	}

	_, err := io.WriteString(w, b.String())

	return err
}

// proxmoxVMsText is the VMs view for people.
func proxmoxVMsText(w io.Writer, p *images.ProxmoxVMs) error {
	var b strings.Builder

	fmt.Fprintf(&b, "%s\n\n", p.Summary.Line)

	for _, vm := range p.VMs {
		fmt.Fprintf(&b, "  %s: %s/%d", vm.Node, vm.ProxmoxNode, vm.VMID)

		if vm.Name != "" {
			fmt.Fprintf(&b, " (%s)", vm.Name)
		}

		fmt.Fprintf(&b, " %s", vm.Outcome)

		switch {
		case vm.Outcome == images.VMFailed:
			fmt.Fprintf(&b, ": %s", oneLine(vm.Error))
		case vm.Outcome == images.VMStopped && vm.Status == "stopped":
			fmt.Fprintf(&b, " (status %s; --start starts it)", vm.Status)
		case vm.Outcome == images.VMStopped:
			// --start never resumes a paused or hibernated VM: whoever suspended it decides.
			fmt.Fprintf(&b, " (status %s; --start does not resume it: resume it in Proxmox)", vm.Status)
		case vm.Outcome == images.VMMissing:
			b.WriteString(": no such VM on that Proxmox node (--create creates it from its spec)")
		case vm.Outcome == images.VMCreated:
			b.WriteString(" and started: it boots Talos into maintenance mode, for apply to configure")
		}

		b.WriteString("\n")

		for _, d := range vm.Drift {
			fmt.Fprintf(&b, "    differs from its spec: %s\n", oneLine(d))
		}
	}

	_, err := io.WriteString(w, b.String())

	return err
}

func writeIndented[T any](w io.Writer, v T) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")

	return enc.Encode(v)
}
