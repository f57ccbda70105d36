package rules

import (
	"fmt"

	"github.com/hashicorp/go-version"
	machineapi "github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/compatibility"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
)

// kubernetesSupport judges the Kubernetes version against the cluster's Talos release
// (not against the Talos release this tool was built with).
func kubernetesSupport(in *Input) []finding.Finding {
	c := in.Cluster
	file := c.Path(cluster.FileName)

	talos, err := compatibility.ParseTalosVersion(&machineapi.VersionInfo{Tag: c.Spec.TalosVersion})
	if err != nil {
		return []finding.Finding{{
			Severity: finding.Error, Code: CodeUnknownRelease, File: file, Line: c.Line("talosVersion"), Path: "talosVersion",
			Message: fmt.Sprintf("talosVersion %s is not a Talos release: %v", c.Spec.TalosVersion, err),
		}}
	}

	k8s, err := compatibility.ParseKubernetesVersion(trimV(c.Spec.KubernetesVersion))
	if err != nil {
		return []finding.Finding{{
			Severity: finding.Error, Code: CodeK8sUnsupported, File: file, Line: c.Line("kubernetesVersion"), Path: "kubernetesVersion",
			Message: fmt.Sprintf("kubernetesVersion %s: %v", c.Spec.KubernetesVersion, err),
		}}
	}

	if talos.String() != "" && !knownMinor(c.Spec.TalosVersion) {
		return []finding.Finding{{
			Severity: finding.Error, Code: CodeUnknownRelease, File: file, Line: c.Line("talosVersion"), Path: "talosVersion",
			Message: fmt.Sprintf("Talos %s is newer than the releases this talops knows (up to v1.%d); upgrade talops", c.Spec.TalosVersion, maxKnownMinor),
		}}
	}

	if err := k8s.SupportedWith(talos); err != nil {
		return []finding.Finding{{
			Severity: finding.Error, Code: CodeK8sUnsupported, File: file, Line: c.Line("kubernetesVersion"), Path: "kubernetesVersion",
			Message: fmt.Sprintf("Kubernetes %s is not supported by Talos %s: %v", c.Spec.KubernetesVersion, c.Spec.TalosVersion, err),
		}}
	}

	return nil
}

func trimV(v string) string {
	if len(v) > 0 && v[0] == 'v' {
		return v[1:]
	}

	return v
}

// maxKnownMinor is the newest Talos minor the machinery library can render and judge.
const maxKnownMinor = 14

func knownMinor(v string) bool {
	sv, err := version.NewSemver(v)
	if err != nil {
		return false
	}

	seg := sv.Segments()

	return seg[0] == 1 && seg[1] >= 2 && seg[1] <= maxKnownMinor
}
