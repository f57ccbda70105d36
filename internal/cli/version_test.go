package cli_test

import (
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/cli"
)

func TestResolveVersion_StampedTagOrTheModuleVersionGoRecorded(t *testing.T) {
	t.Parallel()

	main := func(v string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "github.com/talops/talops", Version: v}}
	}

	for _, tc := range []struct {
		name    string
		stamped string
		info    *debug.BuildInfo
		want    string
	}{
		{"the release build's ldflags win", "v0.3.0", main("v0.2.0"), "v0.3.0"},
		{"go install …@v0.2.0 records the tag", "dev", main("v0.2.0"), "v0.2.0"},
		{"a clean git checkout records a pseudo-version", "dev", main("v0.2.1-0.20261201112251-1616c4e7a3b2"), "v0.2.1-0.20261201112251-1616c4e7a3b2"},
		{"a tree with uncommitted changes is dev", "dev", main("v0.2.1-0.20261201112251-1616c4e7a3b2+dirty"), "dev"},
		{"a build without version control information is dev", "dev", main("(devel)"), "dev"},
		{"no build information is dev", "dev", nil, "dev"},
		{"an empty stamp falls back like dev", "", main("v0.2.0"), "v0.2.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if got := cli.ResolveVersion(tc.stamped, tc.info); got != tc.want {
				t.Errorf("ResolveVersion(%q, %v) = %q, want %q", tc.stamped, tc.info, got, tc.want)
			}
		})
	}
}

// releaseDataLines are the lines of version after the first, from the embedded data itself
// where it grows with every refresh (the extension data's span), and fixed where the issue
// that brought the facts says what they must be.
func releaseDataLines(t *testing.T) string {
	t.Helper()

	releases := catalog.Embedded().Releases()
	if len(releases) == 0 {
		t.Fatal("the embedded release data is empty")
	}

	facts := catalog.EmbeddedFacts()

	// v1.14.7 is the newest final release the facts name today; a refresh may only add newer
	// ones, and the 1.15 pre-releases are listed until 1.15.0 is known.
	newest, _ := catalog.Embedded().NewestKnownStable(facts)
	if v, _ := catalog.CanUpgrade("v1.14.7", newest); v.Kind == catalog.UpgradePatchDowngrade || v.Kind == catalog.UpgradeDowngradeAcrossMinor {
		t.Fatalf("newest final release %s is older than v1.14.7", newest)
	}

	pre := "pre-releases: v1.15.0-alpha.0, v1.15.0-alpha.1, v1.15.0-alpha.2, v1.15.0-beta.0, v1.15.0-beta.1\n"
	if _, ok := facts.Release("v1.15.0"); ok {
		pre = ""
	}

	return fmt.Sprintf("release data: checked %s, newest final Talos %s\n", facts.Checked.Format("2006-01-02"), newest) + pre +
		fmt.Sprintf("extension data: Talos %s to %s (%d releases); later ones are learnt from the Image Factory, or derived offline\n", releases[0], releases[len(releases)-1], len(releases)) +
		"compatibility: Talos 1.2 to 1.14 from machinery, 1.15 hand-kept\n"
}

func TestVersion_PrintsTheInjectedVersionAndTheReleaseDataSpan(t *testing.T) {
	t.Parallel()

	for _, args := range [][]string{{"version"}, {"--version"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()

			h := newHarness(t, nil, nil)
			h.deps.Version = "v0.3.0"

			if err := h.run(args...); err != nil {
				t.Fatalf("%s: %v", args, err)
			}

			if want := "talops v0.3.0\n" + releaseDataLines(t); h.stdout.String() != want {
				t.Errorf("stdout:\n%s\nwant:\n%s", h.stdout.String(), want)
			}
		})
	}
}

func TestVersion_DepsWithoutAVersionSayDev(t *testing.T) {
	t.Parallel()

	h := newHarness(t, nil, nil)
	if err := h.run("--version"); err != nil {
		t.Fatal(err)
	}

	if first, _, _ := strings.Cut(h.stdout.String(), "\n"); first != "talops dev" {
		t.Errorf("first line %q, want %q", first, "talops dev")
	}
}

func TestPlan_MarkdownFooterNamesTheInjectedVersion(t *testing.T) {
	t.Parallel()

	h := planHarness(t)
	h.deps.Version = "v0.3.0"

	if err := h.run("plan", "--dir", "examples/homelab", "--against", "base", "--format", "markdown"); err != nil {
		t.Fatalf("plan: %v\n%s", err, h.stderr.String())
	}

	if !strings.Contains(h.stdout.String(), " · talops v0.3.0</sub>") {
		t.Errorf("footer does not name v0.3.0:\n%s", h.stdout.String()[max(0, h.stdout.Len()-300):])
	}
}
