package catalog

import (
	"fmt"
	"slices"
)

// AliasKind says how a name that a release does not publish gets resolved.
type AliasKind int

const (
	// AliasFactory means the Image Factory silently substitutes another, existing extension.
	AliasFactory AliasKind = iota + 1
	// AliasFactoryBroken means the factory substitutes a name that does not exist on the release
	// either, so building the image fails ("official extension … is not available").
	AliasFactoryBroken
	// AliasBeforeSplit is an -lts/-production NVIDIA name asked for before the split in 1.8; the
	// factory has no alias for it, the single-track name is the equivalent.
	AliasBeforeSplit
)

func (k AliasKind) String() string {
	switch k {
	case AliasFactory:
		return "factory-alias"
	case AliasFactoryBroken:
		return "factory-alias-broken"
	case AliasBeforeSplit:
		return "before-split"
	default:
		return "unknown"
	}
}

// Alias is the answer for an extension name a release does not publish.
type Alias struct {
	Talos string // the release asked about
	From  string // the bare name asked for
	To    string // the name the factory looks up instead; "" when it has no alias
	Use   string // a published name that gives what From meant; "" when there is none
	Kind  AliasKind
}

// Why explains the alias in a sentence.
func (a Alias) Why() string {
	switch a.Kind {
	case AliasFactory:
		why := fmt.Sprintf("%s is not published for Talos %s; the Image Factory substitutes %s", a.From, a.Talos, a.To)
		if ext, ok := ParseNvidia(a.From); ok && ext.Flavour == FlavourNone {
			why += " (the LTS driver track); name the -lts or -production extension explicitly"
		}

		return why
	case AliasFactoryBroken:
		why := fmt.Sprintf("%s is not published for Talos %s and the Image Factory maps it to %s, which does not exist: building the image fails", a.From, a.Talos, a.To)
		if a.Use != "" {
			why += "; use " + a.Use
		}

		return why
	case AliasBeforeSplit:
		return fmt.Sprintf("%s does not exist before the NVIDIA lts/production split in Talos 1.8; on %s use %s", a.From, a.Talos, a.Use)
	default:
		return ""
	}
}

// factoryAlias is one entry of the Image Factory's extension alias table. The factory only
// consults it when the asked-for name is not published for the release.
type factoryAlias struct {
	to string
	// intended is what the alias meant, where the factory's target is a typo.
	intended string
}

// factoryAliases mirrors siderolabs/image-factory internal/profile extensionNameAlias.
var factoryAliases = map[string]factoryAlias{
	// Names that were wrong in extension manifests.
	"v4l-uvc":        {to: "v4l-uvc-drivers"},
	"usb-modem":      {to: "usb-modem-drivers"},
	"gasket":         {to: "gasket-driver"},
	"talos-vmtoolsd": {to: "vmtoolsd-guest-agent"},
	// Renames.
	"xe-guest-utilities":             {to: "xen-guest-agent"},
	"i915-ucode":                     {to: "i915"},
	"amdgpu-firmware":                {to: "amdgpu"},
	"nvidia-container-toolkit":       {to: "nvidia-container-toolkit-lts"},
	"nvidia-open-gpu-kernel-modules": {to: "nvidia-open-gpu-kernel-modules-lts"},
	"nonfree-kmod-nvidia":            {to: "nonfree-kmod-nvidia-lts"},
	// The factory's target has a stray dash: no such extension was ever published.
	"nvidia-fabricmanager": {to: "nvidia-fabric-manager-lts", intended: "nvidia-fabricmanager-lts"},
}

// Rename tells what happens to an extension name (bare, schematic or image form) that the
// Talos release does not publish. ok is false when the release publishes the name, when
// nothing maps it, or when the catalog cannot speak for the release (malformed, older than the
// data). A final release newer than the data is judged by the newest older release in it.
func (c *Catalog) Rename(name, talos string) (Alias, bool) {
	n, ok := NormalizeName(name)
	if !ok {
		return Alias{}, false
	}

	r, tag, ok := c.reference(talos)
	if !ok || r.Has(n) {
		return Alias{}, false
	}

	if fa, found := factoryAliases[n]; found {
		a := Alias{Talos: tag, From: n, To: fa.to}

		switch {
		case r.Has(fa.to):
			a.Kind, a.Use = AliasFactory, fa.to
		case fa.intended != "" && r.Has(fa.intended):
			a.Kind, a.Use = AliasFactoryBroken, fa.intended
		default:
			a.Kind = AliasFactoryBroken
		}

		return a, true
	}

	if ext, found := ParseNvidia(n); found && ext.Flavour != FlavourNone {
		if bare := ext.Kind.ExtensionName(FlavourNone); r.Has(bare) {
			return Alias{Talos: tag, From: n, Use: bare, Kind: AliasBeforeSplit}, true
		}
	}

	return Alias{}, false
}

// reference returns the release whose data speaks for a Talos version: the release itself, or
// for a final release newer than the data, the newest release before it.
func (c *Catalog) reference(talos string) (Release, string, bool) {
	v, err := parseTag(talos)
	if err != nil {
		return Release{}, "", false
	}

	switch c.Status(talos) {
	case ReleaseInData:
		return c.releases[v.tag()], v.tag(), true
	case ReleaseNewerThanData:
		for _, known := range slices.Backward(c.order) {
			if known.compare(v) < 0 {
				return c.releases[known.tag()], v.tag(), true
			}
		}
	}

	return Release{}, "", false
}
