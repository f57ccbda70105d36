package catalog

import (
	"fmt"
	"slices"
)

// Hop is one safe step of an upgrade path: every node upgraded to a Talos release, or the
// cluster's Kubernetes upgraded to a release, never both.
type Hop struct {
	// Talos is the release every node moves to ("" on a Kubernetes hop).
	Talos string `json:"talos,omitempty"`
	// Kubernetes is the release the cluster moves to ("" on a Talos hop).
	Kubernetes string `json:"kubernetes,omitempty"`
}

// Versions are what a cluster runs, or is to run: its Talos release and Kubernetes.
type Versions struct {
	Talos      string
	Kubernetes string
}

// NoPathError says no sequence of safe hops leads from one pair of versions to another.
type NoPathError struct {
	From, To Versions
	// At is where the walk stopped, and Reason why no hop leaves it.
	At     Versions
	Reason string
}

func (e *NoPathError) Error() string {
	return fmt.Sprintf("no safe upgrade path from Talos %s, Kubernetes %s to Talos %s, Kubernetes %s: at Talos %s, Kubernetes %s, %s",
		e.From.Talos, e.From.Kubernetes, e.To.Talos, e.To.Kubernetes, e.At.Talos, e.At.Kubernetes, e.Reason)
}

// UpgradePath returns the hops that lead safely from one pair of versions to another, in
// the order the docs give: Talos through the newest known patch of each minor in between
// (one minor per hop, from at least each minor's upgrade floor), then Kubernetes one minor
// at a time. Kubernetes moves earlier only where the next Talos would not run the cluster's
// Kubernetes. No hops when nothing moves; a path of one hop when one safe step is enough.
// Downgrades have no path: a *NoPathError, as has a move the release data cannot walk.
func UpgradePath(c *Catalog, facts *Facts, from, to Versions) ([]Hop, error) {
	target, err := parseTalos(to.Talos)
	if err != nil {
		return nil, err
	}

	goal, err := parseKubernetes(to.Kubernetes)
	if err != nil {
		return nil, err
	}

	w := walk{c: c, facts: facts, from: from, to: to, target: target, goal: goal, at: from}

	for range maxHops {
		done, err := w.step()
		if err != nil || done {
			return w.hops, err
		}
	}

	return nil, w.stuck("the path is longer than any release data allows")
}

// maxHops bounds a walk: every hop moves one minor of Talos or Kubernetes forward, so a
// walk longer than this is a bug, not a path.
const maxHops = 64

// walk is one UpgradePath: where it is and the hops taken so far.
type walk struct {
	c            *Catalog
	facts        *Facts
	from, to, at Versions
	target, goal semver
	hops         []Hop
}

// step takes the next hop; done when the walk is at its destination.
func (w *walk) step() (done bool, err error) {
	talos, err := parseTalos(w.at.Talos)
	if err != nil {
		return false, err
	}

	kube, err := parseKubernetes(w.at.Kubernetes)
	if err != nil {
		return false, err
	}

	switch c := talos.compare(w.target); {
	case c > 0 && !talos.sameMinor(w.target):
		return false, w.stuck("Talos cannot go back across minor releases")
	case c != 0:
		next, err := w.nextTalos(talos)
		if err != nil {
			return false, err
		}

		if CheckKubernetes(next, w.at.Kubernetes) == nil {
			w.take(Hop{Talos: next})

			return false, nil
		}

		// The next Talos would not run this Kubernetes: move Kubernetes first, within what
		// the running Talos supports.
		return false, w.kubernetesHop(kube, fmt.Sprintf("Talos %s does not run Kubernetes %s", next, w.at.Kubernetes))
	}

	switch kube.compare(w.goal) {
	case 1:
		return false, w.stuck("Kubernetes does not go back")
	case -1:
		return false, w.kubernetesHop(kube, "")
	}

	return true, nil
}

// nextTalos is the release the next Talos hop goes to: the target when one step reaches it,
// else the newest known patch of the next minor, or of the running minor when the host is
// below the next minor's upgrade floor.
func (w *walk) nextTalos(talos semver) (string, error) {
	next := w.target.tag()

	oneMinor := talos.major == w.target.major && talos.minor+1 == w.target.minor
	if !talos.sameMinor(w.target) && !oneMinor {
		if talos.major != w.target.major {
			return "", w.stuck("Talos upgrades across major releases have no release data")
		}

		tag, ok := w.c.NewestKnownPatch(minorLabel(talos.major, talos.minor+1), w.facts)
		if !ok {
			return "", w.stuck(fmt.Sprintf("no release of Talos %s is known to step through", minorLabel(talos.major, talos.minor+1)))
		}

		next = tag
	}

	v, err := CanUpgrade(talos.tag(), next)
	if err != nil {
		return "", err
	}

	if v.Kind != UpgradeBelowFloor {
		if v.Kind.Blocking() {
			return "", w.stuck(v.Message())
		}

		return next, nil
	}

	// Below the floor: first the newest patch of the running minor, when that is newer.
	tag, ok := w.c.NewestKnownPatch(talos.minorLabel(), w.facts)
	if p, err := parseTag(tag); ok && err == nil && p.compare(talos) > 0 {
		return tag, nil
	}

	return "", w.stuck(v.Message())
}

// kubernetesHop moves Kubernetes one minor forward (or to the goal's patch), within what
// the running Talos supports; why says what made the hop necessary before Talos moved on.
func (w *walk) kubernetesHop(kube semver, why string) error {
	next := w.goal.v.String()

	if kube.major != w.goal.major {
		return w.stuck("Kubernetes upgrades across major releases have no path")
	}

	if w.goal.minor > kube.minor+1 {
		next = w.kubernetesOf(kube.major, kube.minor+1)
	}

	if kube.compare(w.goal) >= 0 || (why != "" && w.goal.minor == kube.minor) {
		return w.stuck(why)
	}

	tag := "v" + next
	if err := CheckKubernetes(w.at.Talos, tag); err != nil {
		if why != "" {
			return w.stuck(why + ", and " + err.Error())
		}

		return w.stuck(err.Error())
	}

	w.take(Hop{Kubernetes: tag})

	return nil
}

// kubernetesOf is the release of a Kubernetes minor to step through: the newest a known
// Talos release ships by default, else the minor's first release (every patch of a
// supported minor is supported).
func (w *walk) kubernetesOf(major, minor int64) string {
	var best *semver

	for _, tag := range w.facts.Tags() {
		rf, _ := w.facts.Release(tag)
		if k, err := parseKubernetes(rf.Kubernetes); err == nil && k.major == major && k.minor == minor && !k.prerelease() {
			if best == nil || k.compare(*best) > 0 {
				best = &k
			}
		}
	}

	if best != nil {
		return best.v.Core().String()
	}

	return minorLabel(major, minor) + ".0"
}

func (w *walk) take(h Hop) {
	w.hops = append(w.hops, h)

	if h.Talos != "" {
		w.at.Talos = h.Talos
	}

	if h.Kubernetes != "" {
		w.at.Kubernetes = h.Kubernetes
	}
}

func (w *walk) stuck(reason string) error {
	return &NoPathError{From: w.from, To: w.to, At: w.at, Reason: reason}
}

// TalosHops counts the hops that upgrade Talos: each reboots every node once.
func TalosHops(hops []Hop) int {
	return len(slices.DeleteFunc(slices.Clone(hops), func(h Hop) bool { return h.Talos == "" }))
}
