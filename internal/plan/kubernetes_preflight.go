package plan

import (
	"fmt"

	"github.com/hashicorp/go-version"
	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/compatibility"

	"github.com/talops/talops/internal/catalog"
)

// oldest is the oldest version a moving component runs now ("" when no image has a version).
func oldest(moves []moved) string {
	return pick(moves, func(m moved) string { return m.from }, func(a, b *version.Version) bool { return a.LessThan(b) })
}

// newest is the newest version a component moves to.
func newest(moves []moved) string {
	return pick(moves, func(m moved) string { return m.to }, func(a, b *version.Version) bool { return a.GreaterThan(b) })
}

func pick(moves []moved, image func(moved) string, better func(a, b *version.Version) bool) string {
	var (
		best    *version.Version
		bestTag string
	)

	for _, m := range moves {
		tag := ImageVersion(image(m))

		v, err := version.NewSemver(tag)
		if err != nil {
			continue
		}

		if best == nil || better(v, best) {
			best, bestTag = v, tag
		}
	}

	return bestTag
}

// kubernetesRefusals are the reasons the upgrade cannot go as planned, checked before any
// node is touched (talosctl upgrade-k8s checks the same before it starts): one minor at a
// time, a target every node's Talos release supports, and no Talos upgrade in the same
// apply (the kubelet would move with the reboot, ahead of the API servers).
func kubernetesRefusals(u *KubernetesUpgrade, current State, nodes []Node) []string {
	if u.From == "" || u.To == "" {
		return []string{"the Kubernetes versions cannot be told from the component images (no version tag): talops cannot check the upgrade path"}
	}

	var out []string

	minors, _, err := catalog.KubernetesMove(u.From, u.To)

	switch {
	case err != nil:
		out = append(out, err.Error())
	case minors > 1:
		out = append(out, fmt.Sprintf("Kubernetes %s → %s crosses %d minor releases: Kubernetes upgrades one minor at a time; move through each minor in its own apply", u.From, u.To, minors))
	case minors < 0:
		out = append(out, fmt.Sprintf("Kubernetes %s → %s goes back a minor release, which Kubernetes does not support", u.From, u.To))
	}

	target, err := compatibility.ParseKubernetesVersion(u.To)
	if err != nil {
		return append(out, fmt.Sprintf("Kubernetes %s is not a Kubernetes version", u.To))
	}

	cur := map[string]NodeState{}
	for _, n := range current.Nodes {
		cur[n.Name] = n
	}

	planned := map[string]Node{}
	for _, n := range nodes {
		planned[n.Name] = n
	}

	for _, name := range u.Nodes(K8sPreflight) {
		release := current.versionOf(cur[name])

		talos, err := compatibility.ParseTalosVersion(&machine.VersionInfo{Tag: release})
		if err != nil {
			out = append(out, fmt.Sprintf("node %s: its Talos version %q cannot be read, so whether it supports Kubernetes %s cannot be told", name, release, u.To))

			continue
		}

		if err := target.SupportedWith(talos); err != nil {
			out = append(out, fmt.Sprintf("node %s runs Talos %s, which does not support Kubernetes %s (%v): upgrade Talos first", name, release, u.To, err))
		}

		if n := planned[name]; n.Upgrade != nil {
			out = append(out, fmt.Sprintf("node %s is upgraded in the same apply (%s): upgrade Talos and Kubernetes in separate applies, so that no kubelet moves ahead of the API servers", name, installerMove(n.Upgrade)))
		}
	}

	return out
}

// installerMove says how a node's installer moves: its Talos version, else its image.
func installerMove(u *InstallerChange) string {
	if u.FromVersion != u.ToVersion {
		return "Talos " + u.FromVersion + " → " + u.ToVersion
	}

	return "installer " + u.FromInstaller + " → " + u.ToInstaller
}
