package catalog_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/compatibility"

	"github.com/talops/talops/internal/catalog"
)

// releaseFacts is the "Upgrade floors and Kubernetes ranges" table of talos-release-facts.md,
// one row per target minor.
var releaseFacts = []struct {
	talos        string
	minHost      string // minimum host version to upgrade from
	maxDowngrade string // host versions from this one on cannot downgrade to the target
	k8sMin       string
	k8sMax       string // newest minor, every patch supported
}{
	{"1.7", "1.4.0", "1.9.0", "1.25.0", "1.30"},
	{"1.8", "1.5.0", "1.10.0", "1.26.0", "1.31"},
	{"1.9", "1.8.0", "1.11.0", "1.27.0", "1.32"},
	{"1.10", "1.8.0", "1.12.0", "1.28.0", "1.33"},
	{"1.11", "1.9.0", "1.13.0", "1.29.0", "1.34"},
	{"1.12", "1.10.0", "1.14.0", "1.30.0", "1.35"},
	{"1.13", "1.11.0", "1.15.0", "1.31.0", "1.36"},
	// The docs' support matrix lists Kubernetes 1.33 as 1.14's minimum; machinery (the code
	// that enforces it) says 1.32.0, and that is what talops follows.
	{"1.14", "1.12.0", "1.16.0", "1.32.0", "1.37"},
}

func TestKubernetesRange_MatchesReleaseFacts(t *testing.T) {
	t.Parallel()

	for _, want := range releaseFacts {
		for _, talos := range []string{want.talos, "v" + want.talos + ".0", want.talos + ".3"} {
			minVersion, maxMinor, err := catalog.KubernetesRange(talos)
			if err != nil || minVersion != want.k8sMin || maxMinor != want.k8sMax {
				t.Errorf("KubernetesRange(%s) = %s, %s, %v; want %s, %s", talos, minVersion, maxMinor, err, want.k8sMin, want.k8sMax)
			}
		}
	}
}

func TestUpgradeFloor_MatchesReleaseFacts(t *testing.T) {
	t.Parallel()

	for _, want := range releaseFacts {
		got, err := catalog.UpgradeFloor(want.talos + ".0")
		if err != nil || got != "v"+want.minHost {
			t.Errorf("UpgradeFloor(%s.0) = %s, %v; want v%s", want.talos, got, err, want.minHost)
		}
	}
}

// TestReleaseFacts_AgreeWithMachinery checks each row of the facts file against machinery's
// own entry points at the edges of every range.
func TestReleaseFacts_AgreeWithMachinery(t *testing.T) {
	t.Parallel()

	for _, row := range releaseFacts {
		t.Run(row.talos, func(t *testing.T) {
			t.Parallel()

			target := machineryTalos(t, row.talos+".0")

			for host, ok := range map[string]bool{
				row.minHost:                 true,
				justBelow(row.minHost):      false,
				justBelow(row.maxDowngrade): true,
				row.maxDowngrade:            false,
			} {
				if err := target.UpgradeableFrom(machineryTalos(t, host)); (err == nil) != ok {
					t.Errorf("machinery: %s from host %s: %v, want allowed=%v", row.talos, host, err, ok)
				}
			}

			for k8s, ok := range map[string]bool{
				row.k8sMin:            true,
				justBelow(row.k8sMin): false,
				row.k8sMax + ".0":     true,
				row.k8sMax + ".98":    true,
				nextMinor(row.k8sMax): false,
			} {
				v, err := compatibility.ParseKubernetesVersion(k8s)
				if err != nil {
					t.Fatal(err)
				}

				if err := v.SupportedWith(target); (err == nil) != ok {
					t.Errorf("machinery: Kubernetes %s on %s: %v, want supported=%v", k8s, row.talos, err, ok)
				}
			}
		})
	}
}

// TestChecks_AgreeWithMachineryOnEveryMinor compares CheckKubernetes and CanUpgrade with
// machinery's SupportedWith and UpgradeableFrom over a grid of versions, for every minor
// machinery knows.
func TestChecks_AgreeWithMachineryOnEveryMinor(t *testing.T) {
	t.Parallel()

	for minor := 2; minor <= 14; minor++ {
		talos := fmt.Sprintf("1.%d.0", minor)
		target := machineryTalos(t, talos)

		for k8sMinor := 18; k8sMinor <= 40; k8sMinor++ {
			for _, patch := range []int{0, 5, 98, 99} {
				k8s := fmt.Sprintf("1.%d.%d", k8sMinor, patch)

				v, err := compatibility.ParseKubernetesVersion(k8s)
				if err != nil {
					t.Fatal(err)
				}

				want := v.SupportedWith(target) == nil
				if got := catalog.CheckKubernetes(talos, k8s) == nil; got != want {
					t.Errorf("CheckKubernetes(%s, %s) ok=%v, machinery says %v", talos, k8s, got, want)
				}
			}
		}

		for hostMinor := 0; hostMinor < minor; hostMinor++ {
			for _, patch := range []int{0, 1, 9} {
				host := fmt.Sprintf("1.%d.%d", hostMinor, patch)

				want := target.UpgradeableFrom(machineryTalos(t, host)) == nil

				verdict, err := catalog.CanUpgrade(host, talos)
				if err != nil {
					t.Fatalf("CanUpgrade(%s, %s): %v", host, talos, err)
				}

				if got := !verdict.Kind.Blocking(); got != want {
					t.Errorf("CanUpgrade(%s, %s) = %v, machinery allows=%v", host, talos, verdict.Kind, want)
				}
			}
		}
	}
}

// TestMachineryFacts_CoverEveryMinorMachineryKnows fails when a machinery upgrade brings a
// Talos minor that compat.go does not list yet.
func TestMachineryFacts_CoverEveryMinorMachineryKnows(t *testing.T) {
	t.Parallel()

	for minor := 0; minor <= 40; minor++ {
		talos := fmt.Sprintf("1.%d.0", minor)
		target := machineryTalos(t, talos)

		known := false

		for k8sMinor := 0; k8sMinor <= 60 && !known; k8sMinor++ {
			v, err := compatibility.ParseKubernetesVersion(fmt.Sprintf("1.%d.0", k8sMinor))
			if err != nil {
				t.Fatal(err)
			}

			known = v.SupportedWith(target) == nil
		}

		_, _, err := catalog.KubernetesRange(talos)
		source := catalog.CompatibilitySource(talos)

		switch {
		case known && (err != nil || source != "machinery"):
			// A hand-kept entry must go once machinery carries the minor.
			t.Errorf("Talos %s: machinery knows it, but KubernetesRange error %v, source %q", talos, err, source)
		case !known && err == nil && source != "hand-kept":
			t.Errorf("Talos %s: machinery does not know it, KubernetesRange works from %q", talos, source)
		}
	}
}

// TestHandKeptMinor_115 holds the 1.15 entry to the values read from talos115 on main:
// upgrade from 1.13.0, downgrade below 1.17.0, Kubernetes 1.33.0 to 1.38.x.
func TestHandKeptMinor_115(t *testing.T) {
	t.Parallel()

	if got := catalog.CompatibilitySource("v1.15.0"); got != "hand-kept" {
		t.Fatalf("source of 1.15 = %q, want hand-kept (machinery v1.14.1 has no talos115)", got)
	}

	if floor, err := catalog.UpgradeFloor("v1.15.0"); err != nil || floor != "v1.13.0" {
		t.Errorf("UpgradeFloor(v1.15.0) = %q, %v; want v1.13.0", floor, err)
	}

	if lo, hi, err := catalog.KubernetesRange("v1.15.0-beta.1"); err != nil || lo != "1.33.0" || hi != "1.38" {
		t.Errorf("KubernetesRange(v1.15.0-beta.1) = %q, %q, %v; want 1.33.0, 1.38", lo, hi, err)
	}

	for _, tc := range []struct {
		host string
		want catalog.UpgradeKind
	}{
		{"v1.14.7", catalog.UpgradeOK},
		{"v1.13.13", catalog.UpgradeSkipsMinor},
		{"v1.12.7", catalog.UpgradeBelowFloor},
	} {
		if v, err := catalog.CanUpgrade(tc.host, "v1.15.0"); err != nil || v.Kind != tc.want {
			t.Errorf("CanUpgrade(%s, v1.15.0) = %v, %v; want %v", tc.host, v.Kind, err, tc.want)
		}
	}

	// Downgrades to 1.15 are for hosts below 1.17.0; 1.17 is refused.
	if v, err := catalog.CanUpgrade("v1.17.0", "v1.15.0"); err != nil || !v.Kind.Blocking() {
		t.Errorf("CanUpgrade(v1.17.0, v1.15.0) = %v, %v; want a blocking verdict", v.Kind, err)
	}
}

func TestCheckKubernetes_ReturnsTypedErrors(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		talos, k8s string
		want       *catalog.KubernetesError
	}{
		{"v1.13.9", "1.31.0", nil},
		{"1.13", "v1.36.4", nil},
		{"1.13", "1.36.0-rc.0", nil}, // machinery compares major.minor.patch only
		{"1.13", "1.30.14", &catalog.KubernetesError{Talos: "1.13", Kubernetes: "1.30.14", Min: "1.31.0", Max: "1.36"}},
		{"v1.13.0", "1.37.0", &catalog.KubernetesError{Talos: "v1.13.0", Kubernetes: "1.37.0", Min: "1.31.0", Max: "1.36", TooNew: true}},
		// The newest minor stops where machinery does: the message must not say "1.36.x".
		{"v1.13.0", "v1.36.99", &catalog.KubernetesError{Talos: "v1.13.0", Kubernetes: "v1.36.99", Min: "1.31.0", Max: "1.36", TooNew: true, Below: "1.36.99"}},
		{"v1.14.0-rc.1", "1.32.0", nil},
		{"v1.14.0-rc.1", "1.31.9", &catalog.KubernetesError{Talos: "v1.14.0-rc.1", Kubernetes: "1.31.9", Min: "1.32.0", Max: "1.37"}},
		// 1.15 from the hand-kept entry: Kubernetes 1.33 to 1.38.
		{"v1.15.0", "1.38.2", nil},
		{"v1.15.0", "1.32.9", &catalog.KubernetesError{Talos: "v1.15.0", Kubernetes: "1.32.9", Min: "1.33.0", Max: "1.38"}},
		{"v1.15.0", "1.39.0", &catalog.KubernetesError{Talos: "v1.15.0", Kubernetes: "1.39.0", Min: "1.33.0", Max: "1.38", TooNew: true}},
	} {
		err := catalog.CheckKubernetes(tc.talos, tc.k8s)

		if tc.want == nil {
			if err != nil {
				t.Errorf("CheckKubernetes(%s, %s) = %v", tc.talos, tc.k8s, err)
			}

			continue
		}

		var ke *catalog.KubernetesError
		if !errors.As(err, &ke) || *ke != *tc.want {
			t.Errorf("CheckKubernetes(%s, %s) = %#v, want %#v", tc.talos, tc.k8s, err, tc.want)
		}

		if strings.Contains(err.Error(), tc.want.Max+".x") && tc.want.Below != "" {
			t.Errorf("CheckKubernetes(%s, %s) says %q: it contradicts itself", tc.talos, tc.k8s, err)
		}
	}

	err := catalog.CheckKubernetes("1.13", "1.37.0")
	if got, want := err.Error(), "Kubernetes 1.37.0 is newer than Talos 1.13 supports (1.31.0 to 1.36.x)"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}

	var unknown *catalog.UnknownTalosError
	if err := catalog.CheckKubernetes("1.16.0", "1.37.0"); !errors.As(err, &unknown) || unknown.Version != "1.16.0" {
		t.Errorf("CheckKubernetes(1.16.0) = %v, want *UnknownTalosError", err)
	}

	for _, tc := range [][2]string{{"latest", "1.31.0"}, {"1.13", "1.31.0.1"}, {"1.13", ""}, {"1.13.0+meta", "1.31.0"}} {
		var ve *catalog.VersionError
		if err := catalog.CheckKubernetes(tc[0], tc[1]); !errors.As(err, &ve) {
			t.Errorf("CheckKubernetes(%q, %q) = %v, want *VersionError", tc[0], tc[1], err)
		}
	}
}

func machineryTalos(t *testing.T, v string) *compatibility.TalosVersion {
	t.Helper()

	parsed, err := compatibility.ParseTalosVersion(&machine.VersionInfo{Tag: "v" + v})
	if err != nil {
		t.Fatal(err)
	}

	return parsed
}

// justBelow returns the last patch of the previous minor of an x.y.0 version.
func justBelow(v string) string {
	var major, minor int

	_, _ = fmt.Sscanf(v, "%d.%d", &major, &minor)

	return fmt.Sprintf("%d.%d.99", major, minor-1)
}

func nextMinor(v string) string {
	var major, minor int

	_, _ = fmt.Sscanf(v, "%d.%d", &major, &minor)

	return fmt.Sprintf("%d.%d.0", major, minor+1)
}
