package rules

import (
	"bytes"
	"fmt"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
)

// destinationMoves warns when a change moves where talops sends credentials or fetches
// what the nodes boot: the Proxmox API (its URL, the CA it is trusted by, its storage) and
// the Image Factory. A reviewer must see it: the merge-time apply sends the Proxmox token
// wherever the merged talops.yaml says.
func destinationMoves(base, head *Input) []finding.Finding {
	b, h := base.Cluster, head.Cluster

	var out []finding.Finding

	warn := func(path, format string, args ...any) {
		out = append(out, finding.Finding{
			Severity: finding.Warning, Code: CodeCredentialsDestination,
			File: h.Path(cluster.FileName), Line: h.Line(path), Path: path,
			Message: fmt.Sprintf(format, args...),
		})
	}

	if from, to := b.ImageFactory(), h.ImageFactory(); from != to {
		warn("imageFactory", "imageFactory %s → %s: schematics are registered with, and the nodes' installer and boot images come from, %s", from, to, to)
	}

	var fromURL, toURL, fromStorage, toStorage string

	if p := b.Spec.ProxmoxAPI; p != nil {
		fromURL, fromStorage = p.URL, p.Storage
	}

	if p := h.Spec.ProxmoxAPI; p != nil {
		toURL, toStorage = p.URL, p.Storage
	}

	if fromURL != toURL && toURL != "" {
		warn("proxmox.url", "proxmox.url %s → %s: at merge time the Proxmox token (%s) is sent to %s", noneIfEmpty(fromURL), toURL, "PROXMOX_TOKEN_ID, PROXMOX_TOKEN_SECRET", toURL)
	}

	if toURL != "" && !sameCA(b, h) {
		warn("proxmox.caFile", "proxmox.caFile changed: the Proxmox API is trusted by another CA at merge time, and the token goes to whatever server it vouches for")
	}

	if fromStorage != toStorage && toStorage != "" && fromStorage != "" {
		warn("proxmox.storage", "proxmox.storage %s → %s: the boot ISOs are downloaded into %s", fromStorage, toStorage, toStorage)
	}

	return out
}

// sameCA reports whether both states pin the same Proxmox CA (by content).
func sameCA(b, h *cluster.Cluster) bool {
	file := func(c *cluster.Cluster) []byte {
		if c.Spec.ProxmoxAPI == nil || c.Spec.ProxmoxAPI.CAFile == "" {
			return nil
		}

		data, _ := c.File(c.Spec.ProxmoxAPI.CAFile)

		return data
	}

	return bytes.Equal(file(b), file(h))
}
