package schematic

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// DefaultFactory is the public Image Factory.
const DefaultFactory = "https://factory.talos.dev"

// InstallerImage returns the installer image reference the factory serves for
// a schematic: "factory.talos.dev/nocloud-installer/<id>:v1.13.9", with a
// "-secureboot" suffix on the repository for SecureBoot installers.
//
// factory is the factory's base URL; the scheme and trailing slashes are
// dropped, a custom factory's host (and port) is kept. An empty platform gives
// the platform-less "installer" repository (InstallerRepository).
// A version without its leading "v" gets one: the factory tags carry it.
func InstallerImage(factory, platform, id, talosVersion string, secureBoot bool) string {
	return Installer(factory, InstallerRepository(platform), id, talosVersion, secureBoot)
}

// Installer is InstallerImage of a repository named outright ("installer",
// "metal-installer"), as talops.yaml's installer setting names it: the
// "-secureboot" suffix is still the node's.
func Installer(factory, repository, id, talosVersion string, secureBoot bool) string {
	if secureBoot {
		repository += "-secureboot"
	}

	return registryHost(factory) + "/" + repository + "/" + id + ":" + VersionTag(talosVersion)
}

// LegacyInstaller is the factory's platform-less name of its metal installer, from
// before the platform-prefixed ones; talhelper's default template still writes it.
const LegacyInstaller = "installer"

// InstallerRepository is the factory's repository of a platform's installer without
// the SecureBoot suffix: "nocloud-installer"; LegacyInstaller for no platform.
func InstallerRepository(platform string) string {
	if platform == "" {
		return LegacyInstaller
	}

	return platform + "-installer"
}

// BootImageURL returns the download URL of one boot asset:
// "https://factory.talos.dev/image/<id>/v1.13.9/nocloud-amd64.iso". A factory
// given without a scheme is reached over https.
func BootImageURL(factory, id, talosVersion, file string) string {
	return baseURL(factory) + "/image/" + id + "/" + VersionTag(talosVersion) + "/" + file
}

// BootImageFiles returns the factory's file names of the ISO and of the disk
// image for a platform and architecture ("nocloud-amd64.iso",
// "nocloud-amd64.raw.xz"). A name is empty when the factory does not offer
// that asset: no ISO for cloud platforms, no disk image for PXE-only ones, no
// SecureBoot variant where the platform has none, nothing for an unknown
// platform or architecture. The names are those of Talos 1.8 and later.
func BootImageFiles(platform, arch string, secureBoot bool) (iso, disk string) {
	p, ok := platforms()[platform]
	if !ok || !slices.Contains(p.arches, arch) || (secureBoot && !p.secureBoot) {
		return "", ""
	}

	stem := platform + "-" + arch
	if secureBoot {
		stem += "-secureboot"
	}

	if p.iso {
		iso = stem + ".iso"
	}

	if p.diskSuffix != "" {
		disk = stem + "." + p.diskSuffix
	}

	return iso, disk
}

// KnownPlatform reports whether the factory builds images for the platform.
func KnownPlatform(platform string) bool {
	_, ok := platforms()[platform]

	return ok
}

// VersionTag returns a Talos version as the factory tags it, with a leading "v".
func VersionTag(v string) string {
	if v == "" || strings.HasPrefix(v, "v") {
		return v
	}

	return "v" + v
}

func registryHost(factory string) string {
	host := strings.TrimRight(factory, "/")
	if _, rest, ok := strings.Cut(host, "://"); ok {
		host = rest
	}

	return host
}

func baseURL(factory string) string {
	base := strings.TrimRight(factory, "/")
	if !strings.Contains(base, "://") {
		base = "https://" + base
	}

	return base
}

//go:embed platforms.tsv
var platformsTSV string

type platform struct {
	arches     []string
	diskSuffix string
	iso        bool
	secureBoot bool
}

// platforms parses the embedded table once; the table is data because it
// changes with Talos releases.
var platforms = sync.OnceValue(func() map[string]platform {
	table, err := parsePlatforms(platformsTSV)
	if err != nil {
		panic(err) // the embedded file is covered by tests
	}

	return table
})

func parsePlatforms(tsv string) (map[string]platform, error) {
	table := map[string]platform{}

	for i, line := range strings.Split(tsv, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}

		cols := strings.Split(line, "\t")
		if len(cols) != 5 {
			return nil, fmt.Errorf("platforms.tsv line %d: want 5 tab-separated columns, got %d", i+1, len(cols))
		}

		p := platform{arches: strings.Split(cols[1], ",")}
		if cols[2] != "-" {
			p.diskSuffix = cols[2]
		}

		var err error
		if p.iso, err = yesNo(cols[3]); err != nil {
			return nil, fmt.Errorf("platforms.tsv line %d: iso: %w", i+1, err)
		}

		if p.secureBoot, err = yesNo(cols[4]); err != nil {
			return nil, fmt.Errorf("platforms.tsv line %d: secureboot: %w", i+1, err)
		}

		table[cols[0]] = p
	}

	return table, nil
}

func yesNo(s string) (bool, error) {
	switch s {
	case "yes":
		return true, nil
	case "no":
		return false, nil
	default:
		return false, fmt.Errorf("want yes or no, got %q", s)
	}
}
