package catalog

import (
	"fmt"
	"slices"
	"strings"
)

// UpgradeKind classifies moving a node from one Talos version to another.
type UpgradeKind int

const (
	// UpgradeOK is a patch upgrade, or an upgrade to the next minor from at least its floor.
	UpgradeOK UpgradeKind = iota + 1
	// UpgradeSameVersion means nothing to do.
	UpgradeSameVersion
	// UpgradePatchDowngrade goes back to an older patch of the same minor (a warning; Talos
	// allows it).
	UpgradePatchDowngrade
	// UpgradeSkipsMinor is allowed by the floor but jumps over a minor; the docs recommend stepping
	// through the latest patch of every intermediate minor (a warning).
	UpgradeSkipsMinor
	// UpgradeBelowFloor means the host is older than the target's minimum host version (an error).
	UpgradeBelowFloor
	// UpgradeDeniedHost means machinery refuses this exact host version (an error).
	UpgradeDeniedHost
	// UpgradeDowngradeAcrossMinor goes back to an older minor (an error).
	UpgradeDowngradeAcrossMinor
)

func (k UpgradeKind) String() string {
	switch k {
	case UpgradeOK:
		return "ok"
	case UpgradeSameVersion:
		return "same-version"
	case UpgradePatchDowngrade:
		return "patch-downgrade"
	case UpgradeSkipsMinor:
		return "skips-minor"
	case UpgradeBelowFloor:
		return "below-floor"
	case UpgradeDeniedHost:
		return "denied-host"
	case UpgradeDowngradeAcrossMinor:
		return "downgrade-across-minor"
	default:
		return "unknown"
	}
}

// Blocking reports whether the move must not be made.
func (k UpgradeKind) Blocking() bool {
	return k == UpgradeBelowFloor || k == UpgradeDeniedHost || k == UpgradeDowngradeAcrossMinor
}

// Warning reports whether the move is allowed but deserves a warning.
func (k UpgradeKind) Warning() bool {
	return k == UpgradePatchDowngrade || k == UpgradeSkipsMinor
}

// Verdict is the typed answer of CanUpgrade.
type Verdict struct {
	Kind    UpgradeKind
	From    string   // host version, as a tag ("v1.11.6")
	To      string   // target version, as a tag
	Floor   string   // the target's minimum host version ("v1.11.0"); "" for downgrades
	Skipped []string // minors jumped over, oldest first ("1.12")
}

// Message says the verdict in a sentence.
func (v Verdict) Message() string {
	switch v.Kind {
	case UpgradeOK:
		return fmt.Sprintf("%s → %s is a supported upgrade", v.From, v.To)
	case UpgradeSameVersion:
		return fmt.Sprintf("already on %s", v.To)
	case UpgradePatchDowngrade:
		return fmt.Sprintf("%s → %s goes back to an older patch release", v.From, v.To)
	case UpgradeSkipsMinor:
		return fmt.Sprintf("%s → %s skips Talos %s; step through the latest patch of each minor in between", v.From, v.To, strings.Join(v.Skipped, ", "))
	case UpgradeBelowFloor:
		return fmt.Sprintf("%s cannot upgrade to %s directly: the host must run at least %s first", v.From, v.To, v.Floor)
	case UpgradeDeniedHost:
		return fmt.Sprintf("%s refuses to upgrade from host version %s", v.To, v.From)
	case UpgradeDowngradeAcrossMinor:
		return fmt.Sprintf("%s → %s is a downgrade across minor releases", v.From, v.To)
	default:
		return ""
	}
}

// CanUpgrade judges moving a node from one Talos version to another, with machinery's floors
// and the docs' advice to take one minor at a time. A version without a patch ("1.13") means
// its .0 release. Errors are for malformed versions
// (*VersionError) and upgrades to a minor the data does not cover (*UnknownTalosError).
func CanUpgrade(from, to string) (Verdict, error) {
	host, err := parseTalos(from)
	if err != nil {
		return Verdict{}, err
	}

	target, err := parseTalos(to)
	if err != nil {
		return Verdict{}, err
	}

	v := Verdict{From: host.tag(), To: target.tag()}

	switch c := target.compare(host); {
	case c == 0:
		v.Kind = UpgradeSameVersion

		return v, nil
	case c < 0 && target.sameMinor(host):
		v.Kind = UpgradePatchDowngrade

		return v, nil
	case c < 0:
		v.Kind = UpgradeDowngradeAcrossMinor

		return v, nil
	}

	f, ok := factsFor(target)
	if !ok {
		return Verdict{}, &UnknownTalosError{Version: to}
	}

	v.Floor = f.minHost.tag()

	if host.major == target.major {
		for m := host.minor + 1; m < target.minor; m++ {
			v.Skipped = append(v.Skipped, minorLabel(host.major, m))
		}
	}

	switch {
	case host.compareCore(f.minHost) < 0:
		v.Kind = UpgradeBelowFloor
	case slices.ContainsFunc(f.deniedHosts, func(d semver) bool { return d.compare(host) == 0 }):
		v.Kind = UpgradeDeniedHost
	case len(v.Skipped) > 0 || host.major != target.major:
		v.Kind = UpgradeSkipsMinor
	default:
		v.Kind = UpgradeOK
	}

	return v, nil
}

// KubernetesMove compares two Kubernetes versions: minors is how many minor releases the move
// crosses (negative going back), cmp orders the versions (-1, 0, +1). Kubernetes upgrades go
// one minor at a time, so minors above 1 cannot be applied in one step.
func KubernetesMove(from, to string) (minors, cmp int, err error) {
	a, err := parseKubernetes(from)
	if err != nil {
		return 0, 0, err
	}

	b, err := parseKubernetes(to)
	if err != nil {
		return 0, 0, err
	}

	if a.major != b.major {
		return 0, b.compare(a), fmt.Errorf("Kubernetes %s → %s changes the major version", from, to) //nolint:staticcheck // ST1005: Kubernetes is a name
	}

	return int(b.minor - a.minor), b.compare(a), nil
}
