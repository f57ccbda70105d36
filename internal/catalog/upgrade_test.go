package catalog_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/talops/talops/internal/catalog"
)

func TestCanUpgrade_Verdicts(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name, from, to string
		want           catalog.Verdict
		message        string
	}{
		{
			"next minor from the latest patch", "v1.12.11", "v1.13.9",
			catalog.Verdict{Kind: catalog.UpgradeOK, From: "v1.12.11", To: "v1.13.9", Floor: "v1.11.0"},
			"v1.12.11 → v1.13.9 is a supported upgrade",
		},
		{
			"patch upgrade", "1.13.2", "1.13.3",
			catalog.Verdict{Kind: catalog.UpgradeOK, From: "v1.13.2", To: "v1.13.3", Floor: "v1.11.0"},
			"v1.13.2 → v1.13.3 is a supported upgrade",
		},
		{
			"to a release candidate of the next minor", "v1.13.9", "v1.14.0-rc.1",
			catalog.Verdict{Kind: catalog.UpgradeOK, From: "v1.13.9", To: "v1.14.0-rc.1", Floor: "v1.12.0"},
			"v1.13.9 → v1.14.0-rc.1 is a supported upgrade",
		},
		{
			"1.11 to 1.13 skips a minor", "v1.11.6", "v1.13.9",
			catalog.Verdict{Kind: catalog.UpgradeSkipsMinor, From: "v1.11.6", To: "v1.13.9", Floor: "v1.11.0", Skipped: []string{"1.12"}},
			"v1.11.6 → v1.13.9 skips Talos 1.12; step through the latest patch of each minor in between",
		},
		{
			"1.10 to 1.13 is below the floor", "v1.10.9", "v1.13.0",
			catalog.Verdict{Kind: catalog.UpgradeBelowFloor, From: "v1.10.9", To: "v1.13.0", Floor: "v1.11.0", Skipped: []string{"1.11", "1.12"}},
			"v1.10.9 cannot upgrade to v1.13.0 directly: the host must run at least v1.11.0 first",
		},
		{
			"1.13 to 1.12 is a downgrade across minors", "v1.13.0", "v1.12.11",
			catalog.Verdict{Kind: catalog.UpgradeDowngradeAcrossMinor, From: "v1.13.0", To: "v1.12.11"},
			"v1.13.0 → v1.12.11 is a downgrade across minor releases",
		},
		{
			"patch downgrade", "v1.13.9", "v1.13.4",
			catalog.Verdict{Kind: catalog.UpgradePatchDowngrade, From: "v1.13.9", To: "v1.13.4"},
			"v1.13.9 → v1.13.4 goes back to an older patch release",
		},
		{
			"from a release candidate back to the previous minor", "v1.14.0-rc.1", "v1.13.9",
			catalog.Verdict{Kind: catalog.UpgradeDowngradeAcrossMinor, From: "v1.14.0-rc.1", To: "v1.13.9"},
			"v1.14.0-rc.1 → v1.13.9 is a downgrade across minor releases",
		},
		{
			"release candidate to final", "v1.14.0-rc.1", "v1.14.0",
			catalog.Verdict{Kind: catalog.UpgradeOK, From: "v1.14.0-rc.1", To: "v1.14.0", Floor: "v1.12.0"},
			"v1.14.0-rc.1 → v1.14.0 is a supported upgrade",
		},
		{
			"same version", "1.13.9", "v1.13.9",
			catalog.Verdict{Kind: catalog.UpgradeSameVersion, From: "v1.13.9", To: "v1.13.9"},
			"already on v1.13.9",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			got, err := catalog.CanUpgrade(tc.from, tc.to)
			if err != nil {
				t.Fatalf("CanUpgrade(%s, %s): %v", tc.from, tc.to, err)
			}

			if got.Kind != tc.want.Kind || got.From != tc.want.From || got.To != tc.want.To || got.Floor != tc.want.Floor || !slices.Equal(got.Skipped, tc.want.Skipped) {
				t.Errorf("CanUpgrade(%s, %s) = %+v, want %+v", tc.from, tc.to, got, tc.want)
			}

			if got.Message() != tc.message {
				t.Errorf("Message() = %q\nwant        %q", got.Message(), tc.message)
			}
		})
	}
}

func TestUpgradeKind_SeverityOfEachKind(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		kind              catalog.UpgradeKind
		blocking, warning bool
		name              string
	}{
		{catalog.UpgradeOK, false, false, "ok"},
		{catalog.UpgradeSameVersion, false, false, "same-version"},
		{catalog.UpgradePatchDowngrade, false, true, "patch-downgrade"},
		{catalog.UpgradeSkipsMinor, false, true, "skips-minor"},
		{catalog.UpgradeBelowFloor, true, false, "below-floor"},
		{catalog.UpgradeDeniedHost, true, false, "denied-host"},
		{catalog.UpgradeDowngradeAcrossMinor, true, false, "downgrade-across-minor"},
	} {
		if tc.kind.Blocking() != tc.blocking || tc.kind.Warning() != tc.warning || tc.kind.String() != tc.name {
			t.Errorf("%v: blocking %v warning %v name %q", tc.kind, tc.kind.Blocking(), tc.kind.Warning(), tc.kind.String())
		}
	}
}

func TestCanUpgrade_SaysWhenTheDataEnds(t *testing.T) {
	t.Parallel()

	var unknown *catalog.UnknownTalosError
	if _, err := catalog.CanUpgrade("v1.15.2", "v1.16.0"); !errors.As(err, &unknown) || unknown.Version != "v1.16.0" {
		t.Errorf("CanUpgrade to 1.16 = %v, want *UnknownTalosError", err)
	}

	for _, tc := range [][2]string{{"v1.13", "v1.13.9.1"}, {"latest", "v1.13.9"}, {"v1.13.9", ""}} {
		var ve *catalog.VersionError
		if _, err := catalog.CanUpgrade(tc[0], tc[1]); !errors.As(err, &ve) {
			t.Errorf("CanUpgrade(%q, %q) = %v, want *VersionError", tc[0], tc[1], err)
		}
	}
}
