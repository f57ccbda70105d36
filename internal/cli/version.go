package cli

import (
	"context"
	"fmt"
	"github.com/talops/talops/internal/door"
	"runtime/debug"
	"strings"

	"github.com/talops/talops/internal/catalog"
)

// Version is the version the release build stamps at link time
// (-ldflags "-X github.com/talops/talops/internal/cli.Version=v1.2.3"); "dev" when unstamped.
// What talops reports is Deps.Version, which OSDeps resolves from it and the build info.
var Version = "dev"

// devVersion is what a binary reports when nothing says which source it was built from.
const devVersion = door.DevVersion

// ResolveVersion says which version a binary is: the one stamped at link time, else the main
// module's version the go command recorded (the tag for go install …@v1.2.3; a
// pseudo-version for a build in a clean git checkout), else dev. A build of a tree with
// uncommitted changes is dev: no published source matches it.
func ResolveVersion(stamped string, info *debug.BuildInfo) string {
	if stamped != "" && stamped != devVersion {
		return stamped
	}

	if info == nil {
		return devVersion
	}

	v := info.Main.Version
	if v == "" || v == "(devel)" || strings.HasSuffix(v, "+dirty") {
		return devVersion
	}

	return v
}

// buildVersion is this binary's version.
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}

	return ResolveVersion(Version, info)
}

// versionText is what version and --version print: the version, then the span of the
// embedded release data, which says how new a Talos release this binary knows.
func versionText(version string, c *catalog.Catalog) string {
	var b strings.Builder

	fmt.Fprintf(&b, "talops %s\n", version)

	releases := c.Releases()
	if len(releases) > 0 {
		fmt.Fprintf(&b, "release data: Talos %s to %s (%d releases", releases[0], releases[len(releases)-1], len(releases))

		if latest, ok := c.Latest(); ok {
			fmt.Fprintf(&b, ", newest final %s", latest.Tag())
		}

		b.WriteString(")\n")
	}

	return b.String()
}

func runVersion(_ context.Context, d *Deps, args []string) error {
	if err := parseNoArgs(newFlags(d, "version", "version"), args); err != nil {
		return err
	}

	return d.Out(versionText(d.TalopsVersion(), catalog.Embedded()))
}
