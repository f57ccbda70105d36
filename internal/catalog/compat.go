package catalog

import (
	"fmt"
	"slices"
	"sync"

	"github.com/siderolabs/talos/pkg/machinery/compatibility/talos110"
	"github.com/siderolabs/talos/pkg/machinery/compatibility/talos111"
	"github.com/siderolabs/talos/pkg/machinery/compatibility/talos112"
	"github.com/siderolabs/talos/pkg/machinery/compatibility/talos113"
	"github.com/siderolabs/talos/pkg/machinery/compatibility/talos114"
	"github.com/siderolabs/talos/pkg/machinery/compatibility/talos12"
	"github.com/siderolabs/talos/pkg/machinery/compatibility/talos13"
	"github.com/siderolabs/talos/pkg/machinery/compatibility/talos14"
	"github.com/siderolabs/talos/pkg/machinery/compatibility/talos15"
	"github.com/siderolabs/talos/pkg/machinery/compatibility/talos16"
	"github.com/siderolabs/talos/pkg/machinery/compatibility/talos17"
	"github.com/siderolabs/talos/pkg/machinery/compatibility/talos18"
	"github.com/siderolabs/talos/pkg/machinery/compatibility/talos19"
)

// minorFacts is what machinery knows about one Talos minor, read from its per-minor packages
// so that bumping machinery brings new ranges and floors with it. The semantics mirror
// compatibility.TalosVersion.UpgradeableFrom and KubernetesVersion.SupportedWith: versions
// are compared on major.minor.patch only; the host must be >= minHost and < maxDowngradeHost;
// Kubernetes must be >= minK8s and < maxK8s (which machinery sets to "1.N.99").
type minorFacts struct {
	major, minor     int64
	minHost          semver
	maxDowngradeHost semver
	deniedHosts      []semver
	minK8s, maxK8s   semver
	// handKept: the entry comes from the hand-kept facts, not from machinery.
	handKept bool
}

type stringer interface{ String() string }

// machineryFacts lists the minors machinery's compatibility package switches on. A test fails
// when machinery learns a minor this list lacks.
var machineryFacts = sync.OnceValue(func() []minorFacts {
	return []minorFacts{
		facts(talos12.MajorMinor, talos12.MinimumHostUpgradeVersion, talos12.MaximumHostDowngradeVersion, talos12.DeniedHostUpgradeVersions, talos12.MinimumKubernetesVersion, talos12.MaximumKubernetesVersion),
		facts(talos13.MajorMinor, talos13.MinimumHostUpgradeVersion, talos13.MaximumHostDowngradeVersion, talos13.DeniedHostUpgradeVersions, talos13.MinimumKubernetesVersion, talos13.MaximumKubernetesVersion),
		facts(talos14.MajorMinor, talos14.MinimumHostUpgradeVersion, talos14.MaximumHostDowngradeVersion, talos14.DeniedHostUpgradeVersions, talos14.MinimumKubernetesVersion, talos14.MaximumKubernetesVersion),
		facts(talos15.MajorMinor, talos15.MinimumHostUpgradeVersion, talos15.MaximumHostDowngradeVersion, talos15.DeniedHostUpgradeVersions, talos15.MinimumKubernetesVersion, talos15.MaximumKubernetesVersion),
		facts(talos16.MajorMinor, talos16.MinimumHostUpgradeVersion, talos16.MaximumHostDowngradeVersion, talos16.DeniedHostUpgradeVersions, talos16.MinimumKubernetesVersion, talos16.MaximumKubernetesVersion),
		facts(talos17.MajorMinor, talos17.MinimumHostUpgradeVersion, talos17.MaximumHostDowngradeVersion, talos17.DeniedHostUpgradeVersions, talos17.MinimumKubernetesVersion, talos17.MaximumKubernetesVersion),
		facts(talos18.MajorMinor, talos18.MinimumHostUpgradeVersion, talos18.MaximumHostDowngradeVersion, talos18.DeniedHostUpgradeVersions, talos18.MinimumKubernetesVersion, talos18.MaximumKubernetesVersion),
		facts(talos19.MajorMinor, talos19.MinimumHostUpgradeVersion, talos19.MaximumHostDowngradeVersion, talos19.DeniedHostUpgradeVersions, talos19.MinimumKubernetesVersion, talos19.MaximumKubernetesVersion),
		facts(talos110.MajorMinor, talos110.MinimumHostUpgradeVersion, talos110.MaximumHostDowngradeVersion, talos110.DeniedHostUpgradeVersions, talos110.MinimumKubernetesVersion, talos110.MaximumKubernetesVersion),
		facts(talos111.MajorMinor, talos111.MinimumHostUpgradeVersion, talos111.MaximumHostDowngradeVersion, talos111.DeniedHostUpgradeVersions, talos111.MinimumKubernetesVersion, talos111.MaximumKubernetesVersion),
		facts(talos112.MajorMinor, talos112.MinimumHostUpgradeVersion, talos112.MaximumHostDowngradeVersion, talos112.DeniedHostUpgradeVersions, talos112.MinimumKubernetesVersion, talos112.MaximumKubernetesVersion),
		facts(talos113.MajorMinor, talos113.MinimumHostUpgradeVersion, talos113.MaximumHostDowngradeVersion, talos113.DeniedHostUpgradeVersions, talos113.MinimumKubernetesVersion, talos113.MaximumKubernetesVersion),
		facts(talos114.MajorMinor, talos114.MinimumHostUpgradeVersion, talos114.MaximumHostDowngradeVersion, talos114.DeniedHostUpgradeVersions, talos114.MinimumKubernetesVersion, talos114.MaximumKubernetesVersion),
	}
})

// facts converts one machinery package's values. The values are blang/semver versions; going
// through String keeps that module out of this package's imports.
func facts[V stringer](majorMinor [2]uint64, minHost, maxDowngrade V, denied []V, minK8s, maxK8s V) minorFacts {
	must := func(v V) semver {
		s, err := parseTalos(v.String())
		if err != nil {
			panic(fmt.Sprintf("catalog: machinery version %q: %v", v.String(), err))
		}

		return s
	}

	f := minorFacts{
		major:            int64(majorMinor[0]),
		minor:            int64(majorMinor[1]),
		minHost:          must(minHost),
		maxDowngradeHost: must(maxDowngrade),
		minK8s:           must(minK8s),
		maxK8s:           must(maxK8s),
	}

	for _, d := range denied {
		f.deniedHosts = append(f.deniedHosts, must(d))
	}

	return f
}

func factsFor(v semver) (minorFacts, bool) {
	for _, f := range machineryFacts() {
		if f.major == v.major && f.minor == v.minor {
			return f, true
		}
	}

	// A minor newer than this build's machinery: its hand-kept entry, until machinery has it.
	if m, ok := EmbeddedFacts().Minor(v.minorLabel()); ok {
		return handKeptFacts(v, m), true
	}

	return minorFacts{}, false
}

// handKeptFacts converts a hand-kept entry (checked when the facts were loaded).
func handKeptFacts(v semver, m MinorFacts) minorFacts {
	must := func(s string, parse func(string) (semver, error)) semver {
		out, _ := parse(s)

		return out
	}

	return minorFacts{
		major: v.major, minor: v.minor,
		minHost:          must(m.UpgradeFrom, parseTalos),
		maxDowngradeHost: must(m.DowngradeBelow, parseTalos),
		minK8s:           must(m.Kubernetes.Min, parseKubernetes),
		maxK8s:           must(m.Kubernetes.Max, parseKubernetes),
		handKept:         true,
	}
}

// CompatibilitySource says where the upgrade floor and Kubernetes range of a Talos version
// come from: "machinery" (the compatibility package this build links), "hand-kept" (the
// facts file, for a minor machinery does not know yet), or "" when nothing covers it.
func CompatibilitySource(talos string) string {
	_, f, err := talosFacts(talos)

	switch {
	case err != nil:
		return ""
	case f.handKept:
		return "hand-kept"
	default:
		return "machinery"
	}
}

// UnknownTalosError reports a Talos minor that the compatibility data (Talos machinery) does
// not cover: a newer release than this build knows. Callers should say the data is missing
// rather than guess.
type UnknownTalosError struct {
	Version string
}

func (e *UnknownTalosError) Error() string {
	return fmt.Sprintf("Talos %s is not covered by the compatibility data of this talops build", e.Version)
}

// KubernetesError reports a Kubernetes version outside a Talos release's supported range.
type KubernetesError struct {
	Talos      string // the Talos version asked about
	Kubernetes string
	Min        string // oldest supported Kubernetes ("1.31.0")
	Max        string // newest supported Kubernetes minor ("1.36"; every patch of it)
	TooNew     bool   // false: too old
	// Below is set when Kubernetes is of the newest minor but at or past the patch the
	// release's machinery stops at ("1.36.99"): that minor is supported below it only.
	Below string
}

func (e *KubernetesError) Error() string {
	relation := "older than"
	if e.TooNew {
		relation = "newer than"
	}

	if e.Below != "" {
		return fmt.Sprintf("Kubernetes %s is %s Talos %s supports (%s up to, not including, %s)", e.Kubernetes, relation, e.Talos, e.Min, e.Below)
	}

	return fmt.Sprintf("Kubernetes %s is %s Talos %s supports (%s to %s.x)", e.Kubernetes, relation, e.Talos, e.Min, e.Max)
}

// KubernetesRange returns the Kubernetes versions a Talos release supports: min is the oldest
// version ("1.31.0"), max the newest minor ("1.36"), every patch of which is supported.
// Talos may be given as a minor ("1.13") or a release ("v1.13.9").
func KubernetesRange(talos string) (minVersion, maxMinor string, err error) {
	_, f, err := talosFacts(talos)
	if err != nil {
		return "", "", err
	}

	minVersion, maxMinor = kubernetesBounds(f)

	return minVersion, maxMinor, nil
}

func kubernetesBounds(f minorFacts) (minVersion, maxMinor string) {
	return f.minK8s.v.String(), f.maxK8s.minorLabel()
}

// CheckKubernetes returns a *KubernetesError when the Kubernetes version is outside the Talos
// release's range, a *VersionError for a malformed version, an *UnknownTalosError for a
// Talos minor the data does not cover.
func CheckKubernetes(talos, kubernetes string) error {
	_, f, err := talosFacts(talos)
	if err != nil {
		return err
	}

	k, err := parseKubernetes(kubernetes)
	if err != nil {
		return err
	}

	tooOld := k.compareCore(f.minK8s) < 0
	tooNew := k.compareCore(f.maxK8s) >= 0

	if !tooOld && !tooNew {
		return nil
	}

	minVersion, maxMinor := kubernetesBounds(f)

	e := &KubernetesError{
		Talos:      talos,
		Kubernetes: kubernetes,
		Min:        minVersion,
		Max:        maxMinor,
		TooNew:     tooNew,
	}

	if tooNew && k.major == f.maxK8s.major && k.minor == f.maxK8s.minor {
		e.Below = f.maxK8s.v.String()
	}

	return e
}

// UpgradeFloor returns the oldest host version that can upgrade to the target Talos release
// ("v1.13.0" → "v1.11.0").
func UpgradeFloor(target string) (string, error) {
	_, f, err := talosFacts(target)
	if err != nil {
		return "", err
	}

	return f.minHost.tag(), nil
}

func talosFacts(talos string) (semver, minorFacts, error) {
	v, err := parseTalos(talos)
	if err != nil {
		return semver{}, minorFacts{}, err
	}

	f, ok := factsFor(v)
	if !ok {
		return semver{}, minorFacts{}, &UnknownTalosError{Version: talos}
	}

	return v, f, nil
}

// CompatibilityMinors lists the minors with an upgrade floor and Kubernetes range: those of
// this build's machinery, and those kept by hand until machinery carries them.
func CompatibilityMinors() (machinery, handKept []string) {
	for _, f := range machineryFacts() {
		machinery = append(machinery, minorLabel(f.major, f.minor))
	}

	for _, m := range EmbeddedFacts().minorTags() {
		if !slices.Contains(machinery, m) {
			handKept = append(handKept, m)
		}
	}

	return machinery, handKept
}
