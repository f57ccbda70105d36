package talhelper_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/importer/talhelper"
)

// TestImport_TalosVersionDefaultsToTalhelpersWithAFinding: talhelper v3.1.16 takes
// v1.13.8 when talosVersion is not set; the import writes that release and says so.
func TestImport_TalosVersionDefaultsToTalhelpersWithAFinding(t *testing.T) {
	res := importText(t, "clusterName: lab\nendpoint: https://10.0.0.10:6443\nkubernetesVersion: v1.35.0\nnodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n", nil, nil)

	if talops := written(t, res, "talops.yaml"); !strings.Contains(talops, "talosVersion: v1.13.8\n") {
		t.Fatalf("want talosVersion v1.13.8:\n%s", talops)
	}

	if res.TalosVersion != "v1.13.8" {
		t.Fatalf("want the result's release v1.13.8, got %q", res.TalosVersion)
	}

	if got := findingPlaces(res.Findings, talhelper.CodeMapped, "talosVersion"); !slices.Equal(got, []string{"1 talosVersion"}) {
		t.Fatalf("want a finding at line 1 on talosVersion, got %v", got)
	}
}

// TestImport_GivenTalosVersionIsKeptWithoutAFinding: a release given is the one written.
func TestImport_GivenTalosVersionIsKeptWithoutAFinding(t *testing.T) {
	res := importText(t, head+"nodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n", nil, nil)

	if res.TalosVersion != "v1.12.4" {
		t.Fatalf("want v1.12.4, got %q", res.TalosVersion)
	}

	if got := findingPlaces(res.Findings, talhelper.CodeMapped, "talosVersion"); len(got) > 0 {
		t.Fatalf("want no finding, got %v", got)
	}
}

// A talconfig at Talos 1.14 keeps talhelper's name of the etcd encryption key (key1, where
// Talos v1.14.1 says key2) first in cluster.secretboxKeyNames, and Talos' after it, with a
// note at its talosVersion; an older one names nothing.
func TestImport_ATalconfigAt114KeepsTalhelpersEtcdKeyName(t *testing.T) {
	t.Parallel()

	res := importText(t, "clusterName: lab\nendpoint: https://10.0.0.10:6443\ntalosVersion: v1.14.7\nkubernetesVersion: v1.37.1\nnodes:\n  - hostname: cp1\n    ipAddress: 10.0.0.11\n    controlPlane: true\n", nil, nil)

	if talops := written(t, res, "talops.yaml"); !strings.Contains(talops, "  secretboxKeyNames:\n    - key1\n    - key2\n") {
		t.Errorf("talops.yaml does not keep key1 first:\n%s", talops)
	}

	var got []string

	for _, f := range res.Findings {
		if f.Path == "talosVersion" && f.Severity == finding.Info && strings.Contains(f.Message, "cluster.secretboxKeyNames keeps key1") {
			got = append(got, itoa(f.Line))
		}
	}

	if len(got) != 1 || got[0] != "3" {
		t.Errorf("want one note at talosVersion (line 3), got %q in %+v", got, res.Findings)
	}

	older := importText(t, head+"nodes:\n  - hostname: cp1\n    ipAddress: 10.0.0.11\n", nil, nil)
	if talops := written(t, older, "talops.yaml"); strings.Contains(talops, "secretboxKeyNames") {
		t.Errorf("a talconfig before 1.14 names the key:\n%s", talops)
	}
}

// --talos-version is the release of a talconfig that names none, in place of talhelper's
// default; a talconfig's own release wins over it, with a warning.
func TestImport_TalosVersionFlagStandsForAnUnsetTalosVersion(t *testing.T) {
	const unset = "clusterName: lab\nendpoint: https://10.0.0.10:6443\nkubernetesVersion: v1.35.0\nnodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n"

	for _, tc := range []struct {
		name, talconfig, flag, want string
		severity                    finding.Severity
		says                        string
	}{
		{name: "unset, no flag: talhelper's default, pointing at the flag", talconfig: unset, want: "v1.13.8", severity: finding.Warning, says: "or give it with --talos-version"},
		{name: "unset: the flag's release", talconfig: unset, flag: "1.14.1", want: "v1.14.1", severity: finding.Info, says: "not set: talops.yaml takes v1.14.1, given with --talos-version"},
		{name: "set: the talconfig's release wins over another flag", talconfig: head + "nodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n", flag: "v1.14.1", want: "v1.12.4", severity: finding.Warning, says: "--talos-version v1.14.1 is for a talconfig that names none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := talhelper.Import(talhelper.Input{File: "talconfig.yaml", Data: []byte(tc.talconfig), TalosVersion: tc.flag, Lookup: func(string) (string, bool) { return "", false }})
			if err != nil {
				t.Fatal(err)
			}

			if res.TalosVersion != tc.want {
				t.Errorf("talosVersion = %q, want %q", res.TalosVersion, tc.want)
			}

			i := slices.IndexFunc(res.Findings, func(f finding.Finding) bool { return f.Path == "talosVersion" })
			if i < 0 || res.Findings[i].Severity != tc.severity || !strings.Contains(res.Findings[i].Message, tc.says) {
				t.Errorf("want a %s saying %q on talosVersion, got %+v", tc.severity, tc.says, res.Findings)
			}
		})
	}
}
