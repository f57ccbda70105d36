package catalog

import (
	"regexp"
	"strings"
	"sync"
)

// NvidiaKind is what an NVIDIA extension provides.
type NvidiaKind int

const (
	// KernelModuleProprietary is nonfree-kmod-nvidia*: NVIDIA's closed kernel modules.
	KernelModuleProprietary NvidiaKind = iota + 1
	// KernelModuleOpen is nvidia-open-gpu-kernel-modules*: the open modules (Turing or newer).
	KernelModuleOpen
	// ContainerToolkit is nvidia-container-toolkit*.
	ContainerToolkit
	// FabricManager is nvidia-fabricmanager* (NVLink/NVSwitch systems).
	FabricManager
	// GDRCopy is nvidia-gdrdrv-device (from 1.12; one track, no flavour).
	GDRCopy
)

// nvidiaKinds lists every kind, in a fixed order for lookups.
var nvidiaKinds = []NvidiaKind{KernelModuleProprietary, KernelModuleOpen, ContainerToolkit, FabricManager, GDRCopy}

// base returns the kind's name without flavour.
func (k NvidiaKind) base() string {
	switch k {
	case KernelModuleProprietary:
		return "nonfree-kmod-nvidia"
	case KernelModuleOpen:
		return "nvidia-open-gpu-kernel-modules"
	case ContainerToolkit:
		return "nvidia-container-toolkit"
	case FabricManager:
		return "nvidia-fabricmanager"
	case GDRCopy:
		return "nvidia-gdrdrv-device"
	default:
		return ""
	}
}

func (k NvidiaKind) String() string {
	switch k {
	case KernelModuleProprietary:
		return "kernel-module-proprietary"
	case KernelModuleOpen:
		return "kernel-module-open"
	case ContainerToolkit:
		return "container-toolkit"
	case FabricManager:
		return "fabric-manager"
	case GDRCopy:
		return "gdrcopy"
	default:
		return "unknown"
	}
}

// KernelModule reports whether the kind is one of the two driver module packages.
func (k NvidiaKind) KernelModule() bool {
	return k == KernelModuleProprietary || k == KernelModuleOpen
}

// ExtensionName returns the extension's bare name for a flavour ("nonfree-kmod-nvidia-lts").
// GDRCopy has one name whatever the flavour.
func (k NvidiaKind) ExtensionName(f Flavour) string {
	base := k.base()
	if base == "" {
		return ""
	}

	if f == FlavourNone || k == GDRCopy {
		return base
	}

	return base + "-" + string(f)
}

// Flavour is the driver track an NVIDIA extension follows.
type Flavour string

const (
	// FlavourNone is the single track of the bare names, which exist only before Talos 1.8.
	FlavourNone Flavour = ""
	// FlavourLTS is the long-term-support driver branch (535 until 1.11, 580 from 1.12).
	FlavourLTS Flavour = "lts"
	// FlavourProduction is the production branch (550, then 570 from 1.10, 595 from 1.13).
	FlavourProduction Flavour = "production"
	// FlavourNewFeature is the new-feature branch (615 from 1.15), built as open kernel
	// modules only.
	FlavourNewFeature Flavour = "new-feature"
)

// flavours are the named tracks, for lookups.
var flavours = []Flavour{FlavourLTS, FlavourProduction, FlavourNewFeature}

// ParseFlavour recognises a track name as written in talops.yaml.
func ParseFlavour(s string) (Flavour, bool) {
	for _, f := range flavours {
		if string(f) == s {
			return f, true
		}
	}

	return FlavourNone, false
}

// NvidiaExt is an NVIDIA extension name, taken apart.
type NvidiaExt struct {
	Name    string // bare name, as published
	Kind    NvidiaKind
	Flavour Flavour
}

// ParseNvidia recognises an NVIDIA extension by name (bare, schematic or image form).
// Names that were never published, such as the factory's "nvidia-fabric-manager-lts", are not
// recognised.
func ParseNvidia(name string) (NvidiaExt, bool) {
	n, ok := NormalizeName(name)
	if !ok {
		return NvidiaExt{}, false
	}

	for _, kind := range nvidiaKinds {
		rest, found := strings.CutPrefix(n, kind.base())
		if !found {
			continue
		}

		if rest == "" {
			return NvidiaExt{Name: n, Kind: kind, Flavour: FlavourNone}, true
		}

		if kind == GDRCopy {
			return NvidiaExt{}, false
		}

		// A name is recognised by its shape, whether or not a release publishes it (no
		// release has a proprietary new-feature module): the rules say what is wrong with it.
		if f, ok := ParseFlavour(strings.TrimPrefix(rest, "-")); ok && strings.HasPrefix(rest, "-") {
			return NvidiaExt{Name: n, Kind: kind, Flavour: f}, true
		}
	}

	return NvidiaExt{}, false
}

var (
	driverPattern  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]+(\.[0-9]+){1,2}$`) })
	vSemverPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`) })
	pinPattern     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]+(\.[0-9]+){0,2}$`) })
)

// ParseNvidiaTag splits an NVIDIA extension's image tag. Kernel modules are tagged
// "<driver>-<talos tag>" (suffix "v1.13.9"), the container toolkit "<driver>-v<toolkit>"
// (suffix "v1.19.1") up to Talos 1.14 and "<driver>" from 1.15 (it no longer carries the
// toolkit, only the driver's userspace: no suffix), fabric manager "<driver>" (no suffix).
// GDRCopy carries no driver: its whole tag ("v2.5.1") is the suffix.
func ParseNvidiaTag(kind NvidiaKind, tag string) (driver, suffix string, ok bool) {
	switch kind {
	case KernelModuleProprietary, KernelModuleOpen:
		d, talos, found := strings.Cut(tag, "-")
		if !found || !driverPattern().MatchString(d) {
			return "", "", false
		}

		if v, err := parseTag(talos); err != nil || v.tag() != talos {
			return "", "", false
		}

		return d, talos, true
	case ContainerToolkit:
		d, toolkit, found := strings.Cut(tag, "-")
		if !found && driverPattern().MatchString(d) {
			return d, "", true
		}

		if !found || !driverPattern().MatchString(d) || !vSemverPattern().MatchString(toolkit) {
			return "", "", false
		}

		return d, toolkit, true
	case FabricManager:
		if !driverPattern().MatchString(tag) {
			return "", "", false
		}

		return tag, "", true
	case GDRCopy:
		if !vSemverPattern().MatchString(tag) {
			return "", "", false
		}

		return "", tag, true
	default:
		return "", "", false
	}
}

// NvidiaDriver returns the driver an unversioned extension of the flavour resolves to on this
// release, and the container toolkit version that goes with it. The driver is read from the
// first of the kernel modules (proprietary, open), toolkit and fabric manager the release
// publishes; the data has one driver per flavour and release. ok is false when the release has
// no such flavour (bare names from 1.8, -lts/-production before).
func (r Release) NvidiaDriver(f Flavour) (driver, toolkit string, ok bool) {
	for _, kind := range []NvidiaKind{KernelModuleProprietary, KernelModuleOpen, ContainerToolkit, FabricManager} {
		tag, found := r.extensions[kind.ExtensionName(f)]
		if !found {
			continue
		}

		if d, _, parsed := ParseNvidiaTag(kind, tag); parsed {
			driver = d

			break
		}
	}

	if driver == "" {
		return "", "", false
	}

	if tag, found := r.extensions[ContainerToolkit.ExtensionName(f)]; found {
		_, toolkit, _ = ParseNvidiaTag(ContainerToolkit, tag)
	}

	return driver, toolkit, true
}

// DriverBranch returns the branch of an NVIDIA driver version ("580.65.06" → "580").
func DriverBranch(driver string) (string, bool) {
	if !driverPattern().MatchString(driver) {
		return "", false
	}

	branch, _, _ := strings.Cut(driver, ".")

	return branch, true
}

// DriverMatchesPin reports whether a driver satisfies a pin: a branch ("580") matches every
// driver of that branch, a longer pin ("580.178" or "580.178.04") matches by leading
// components, compared as written (tags are compared as text).
func DriverMatchesPin(driver, pin string) bool {
	if !driverPattern().MatchString(driver) {
		return false
	}

	if !pinPattern().MatchString(pin) {
		return false
	}

	d := strings.Split(driver, ".")
	p := strings.Split(pin, ".")

	if len(p) > len(d) {
		return false
	}

	for i := range p {
		if p[i] != d[i] {
			return false
		}
	}

	return true
}
