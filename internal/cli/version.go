package cli

import (
	"context"
	"fmt"
	"github.com/talops/talops/internal/door"
	"runtime/debug"
	"strings"
	"time"

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

// versionText is what version and --version print: the version, then what the embedded
// release data knows and how fresh it is: the newest release, the pre-releases of the next
// one, the span of the extension data and where the compatibility facts come from.
func versionText(version string, c *catalog.Catalog, facts *catalog.Facts) string {
	var b strings.Builder

	fmt.Fprintf(&b, "talops %s\n", version)

	known := c.Known(facts)
	if newest, ok := c.NewestKnownStable(facts); ok {
		fmt.Fprintf(&b, "release data: checked %s, newest final Talos %s\n", facts.Checked.Format(time.DateOnly), newest)
	}

	keep, _ := catalog.SplitPreReleases(known)

	var pre []string

	for _, tag := range keep {
		if catalog.IsPreRelease(tag) {
			pre = append(pre, tag)
		}
	}

	if len(pre) > 0 {
		fmt.Fprintf(&b, "pre-releases: %s\n", strings.Join(pre, ", "))
	}

	releases := c.Releases()
	if len(releases) > 0 {
		fmt.Fprintf(&b, "extension data: Talos %s to %s (%d releases); later ones are learnt from the Image Factory, or derived offline\n",
			releases[0], releases[len(releases)-1], len(releases))
	}

	machinery, handKept := catalog.CompatibilityMinors()
	if len(machinery) > 0 {
		fmt.Fprintf(&b, "compatibility: Talos %s to %s from machinery", machinery[0], machinery[len(machinery)-1])

		if len(handKept) > 0 {
			fmt.Fprintf(&b, ", %s hand-kept", strings.Join(handKept, ", "))
		}

		b.WriteString("\n")
	}

	return b.String()
}

func runVersion(_ context.Context, d *Deps, args []string) error {
	if err := parseNoArgs(newFlags(d, "version", "version"), args); err != nil {
		return err
	}

	return d.Out(versionText(d.TalopsVersion(), catalog.Embedded(), catalog.EmbeddedFacts()))
}
