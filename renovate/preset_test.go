// Package renovate_test checks the Renovate preset against the files it must update.
//
// Renovate runs matchStrings with RE2 (or JavaScript's RegExp when RE2 is unavailable), with
// the g flag and without m: ^ is the start of the file, hence (^|\n) before a key. Go's
// regexp is RE2's syntax, including (?<name>…) groups since Go 1.22; the two differ in
// nothing the preset uses. managerFilePatterns are written /…/ and matched against the path
// from the repository root.
package renovate_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/testlab"
)

type preset struct {
	CustomDatasources map[string]struct {
		DefaultRegistryURLTemplate string   `json:"defaultRegistryUrlTemplate"`
		Format                     string   `json:"format"`
		TransformTemplates         []string `json:"transformTemplates"`
	} `json:"customDatasources"`
	CustomManagers []struct {
		CustomType          string   `json:"customType"`
		ManagerFilePatterns []string `json:"managerFilePatterns"`
		MatchStrings        []string `json:"matchStrings"`
		DepNameTemplate     string   `json:"depNameTemplate"`
		DatasourceTemplate  string   `json:"datasourceTemplate"`
		VersioningTemplate  string   `json:"versioningTemplate"`
	} `json:"customManagers"`
	PackageRules []struct {
		MatchDepTypes         []string `json:"matchDepTypes"`
		MatchDepNames         []string `json:"matchDepNames"`
		AllowedVersions       string   `json:"allowedVersions"`
		GroupName             string   `json:"groupName"`
		SeparateMinorPatch    bool     `json:"separateMinorPatch"`
		SeparateMultipleMinor bool     `json:"separateMultipleMinor"`
	} `json:"packageRules"`
}

func load(t *testing.T) preset {
	t.Helper()

	data, err := os.ReadFile("talos.json5")
	if err != nil {
		t.Fatal(err)
	}

	var p preset

	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("the preset is not strict JSON: %v", err)
	}

	return p
}

// manager returns the custom manager of a dependency.
func manager(t *testing.T, p preset, dep string) (file *regexp.Regexp, match []*regexp.Regexp, datasource string) {
	t.Helper()

	for _, m := range p.CustomManagers {
		if m.DepNameTemplate != dep {
			continue
		}

		if m.CustomType != "regex" || len(m.ManagerFilePatterns) != 1 || m.VersioningTemplate != "semver" {
			t.Fatalf("manager of %s = %+v", dep, m)
		}

		pattern := m.ManagerFilePatterns[0]
		if !strings.HasPrefix(pattern, "/") || !strings.HasSuffix(pattern, "/") {
			t.Fatalf("%s: file pattern %q is not a /regex/", dep, pattern)
		}

		file = regexp.MustCompile(pattern[1 : len(pattern)-1])

		for _, s := range m.MatchStrings {
			match = append(match, regexp.MustCompile(s))
		}

		return file, match, m.DatasourceTemplate
	}

	t.Fatalf("no manager for %s", dep)

	return nil, nil, ""
}

func currentValue(res []*regexp.Regexp, text string) (string, bool) {
	for _, re := range res {
		if m := re.FindStringSubmatch(text); m != nil {
			return m[re.SubexpIndex("currentValue")], true
		}
	}

	return "", false
}

func TestPreset_MatchesTheReferenceLab(t *testing.T) {
	p := load(t)

	data, err := os.ReadFile(filepath.Join(testlab.Dir(), cluster.FileName))
	if err != nil {
		t.Fatal(err)
	}

	c, err := cluster.Parse(data)
	if err != nil {
		t.Fatal(err)
	}

	for dep, want := range map[string]string{
		"siderolabs/talos":           c.Spec.TalosVersion,
		"ghcr.io/siderolabs/kubelet": c.Spec.KubernetesVersion,
	} {
		file, match, _ := manager(t, p, dep)

		for _, path := range []string{"examples/homelab/talops.yaml", "talops.yaml", "clusters/lab/talops.yml"} {
			if !file.MatchString(path) {
				t.Errorf("%s: file pattern does not match %s", dep, path)
			}
		}

		for _, path := range []string{"examples/homelab/not-talops.yaml", "talops.yaml.bak"} {
			if file.MatchString(path) {
				t.Errorf("%s: file pattern matches %s", dep, path)
			}
		}

		if got, ok := currentValue(match, string(data)); !ok || got != want {
			t.Errorf("%s: currentValue = %q (matched %v), want %q", dep, got, ok, want)
		}
	}
}

func TestPreset_KubernetesTakesTheTalosMinorWhicheverKeyComesFirst(t *testing.T) {
	_, kube, _ := manager(t, load(t), "ghcr.io/siderolabs/kubelet")

	for text, want := range map[string][2]string{
		"talosVersion: v1.13.9\nkubernetesVersion: v1.36.4\n":                       {"v1.36.4", "1.13"},
		"kubernetesVersion: \"v1.35.0\"\n# a comment\ntalosVersion: \"v1.12.9\"\n":  {"v1.35.0", "1.12"},
		"talosVersion: v1.14.0-rc.1\nsecrets: s.yaml\nkubernetesVersion: v1.37.0\n": {"v1.37.0", "1.14"},
		"kubernetesVersion: v1.36.4\n":                                              {"", ""},
	} {
		var got [2]string

		for _, re := range kube {
			if m := re.FindStringSubmatch(text); m != nil {
				got = [2]string{m[re.SubexpIndex("currentValue")], m[re.SubexpIndex("depType")]}

				break
			}
		}

		if got != want {
			t.Errorf("%q: currentValue, Talos minor = %q, want %q", text, got, want)
		}
	}
}

// TestPreset_HoldsFollowTheCatalog: each Talos minor's rules hold the next Talos to the
// next minor and Kubernetes to the range the catalog gives, and every minor the catalog
// knows from 1.11 on has its rules.
func TestPreset_HoldsFollowTheCatalog(t *testing.T) {
	p := load(t)

	holds := map[string]map[string]string{} // depType → dep → allowedVersions

	for _, r := range p.PackageRules {
		for _, typ := range r.MatchDepTypes {
			for _, dep := range r.MatchDepNames {
				if holds[typ] == nil {
					holds[typ] = map[string]string{}
				}

				holds[typ][dep] = r.AllowedVersions
			}
		}
	}

	checked := 0

	for minor := 11; ; minor++ {
		talos := "1." + strconv.Itoa(minor)

		_, maxMinor, err := catalog.KubernetesRange(talos)
		if err != nil {
			break
		}

		checked++

		kubeMinor, err := strconv.Atoi(strings.TrimPrefix(maxMinor, "1."))
		if err != nil {
			t.Fatalf("Talos %s: Kubernetes max minor %q", talos, maxMinor)
		}

		want := map[string]string{
			"siderolabs/talos":           "<1." + strconv.Itoa(minor+2) + ".0",
			"ghcr.io/siderolabs/kubelet": "<1." + strconv.Itoa(kubeMinor+1) + ".0",
		}

		for dep, allowed := range want {
			if got := holds["talos-v"+talos][dep]; got != allowed {
				t.Errorf("Talos %s: %s allowedVersions = %q, want %q", talos, dep, got, allowed)
			}
		}
	}

	if checked == 0 || len(holds) != checked {
		t.Errorf("the preset holds %d Talos minors, the catalog knows %d from 1.11 on", len(holds), checked)
	}
}

func TestPreset_MatchesQuotedValuesAndPrereleasesButNotComments(t *testing.T) {
	_, talos, _ := manager(t, load(t), "siderolabs/talos")

	for text, want := range map[string]string{
		"talosVersion: \"v1.14.0\"\n":                     "v1.14.0",
		"talosVersion: 'v1.14.0-rc.1'\n":                  "v1.14.0-rc.1",
		"# talosVersion: v1.0.0\ntalosVersion: v1.13.9\n": "v1.13.9",
		"cluster:\n  talosVersion: v1.13.9\n":             "",
	} {
		got, _ := currentValue(talos, text)
		if got != want {
			t.Errorf("%q: currentValue = %q, want %q", text, got, want)
		}
	}
}

func TestPreset_TalosFromTheImageFactoryOneMinorAtATime(t *testing.T) {
	p := load(t)

	_, _, datasource := manager(t, p, "siderolabs/talos")

	name, ok := strings.CutPrefix(datasource, "custom.")
	if !ok {
		t.Fatalf("Talos datasource = %q, want the factory's list", datasource)
	}

	ds, ok := p.CustomDatasources[name]
	if !ok || ds.DefaultRegistryURLTemplate != cluster.DefaultImageFactory+"/versions" || ds.Format != "json" || len(ds.TransformTemplates) != 1 {
		t.Errorf("datasource %s = %+v", name, ds)
	}

	// Renovate runs templates through Handlebars first: a {{ would be taken for a variable.
	if strings.Contains(ds.TransformTemplates[0], "{{") {
		t.Errorf("transform template contains {{: %s", ds.TransformTemplates[0])
	}

	for _, dep := range []string{"siderolabs/talos", "ghcr.io/siderolabs/kubelet"} {
		found := false

		for _, r := range p.PackageRules {
			if len(r.MatchDepTypes) == 0 && r.AllowedVersions == "" && len(r.MatchDepNames) == 1 && r.MatchDepNames[0] == dep {
				found = true

				if r.GroupName == "" || !r.SeparateMinorPatch || !r.SeparateMultipleMinor {
					t.Errorf("%s: rule %+v, want a group with minors separated", dep, r)
				}
			}
		}

		if !found {
			t.Errorf("no package rule for %s", dep)
		}
	}
}

func TestPreset_InstallerTagsInPatchesFollowTalos(t *testing.T) {
	p := load(t)

	var installer *regexp.Regexp

	for _, m := range p.CustomManagers {
		if m.DepNameTemplate == "siderolabs/talos" && len(m.MatchStrings) == 1 && strings.Contains(m.MatchStrings[0], "installer") {
			installer = regexp.MustCompile(m.MatchStrings[0])
		}
	}

	if installer == nil {
		t.Fatal("no installer manager")
	}

	const id = "376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba"

	for text, want := range map[string][3]string{
		"    image: ghcr.io/siderolabs/installer:v1.13.9\n":                           {"ghcr.io/siderolabs/installer", "v1.13.9", "1.13"},
		"image: factory.talos.dev/installer/" + id + ":v1.12.9":                       {"factory.talos.dev/installer/" + id, "v1.12.9", "1.12"},
		"image: factory.talos.dev/nocloud-installer/" + id + ":v1.14.7":               {"factory.talos.dev/nocloud-installer/" + id, "v1.14.7", "1.14"},
		"image: factory.talos.dev/metal-installer-secureboot/" + id + ":v1.14.0-rc.1": {"factory.talos.dev/metal-installer-secureboot/" + id, "v1.14.0-rc.1", "1.14"},
		"image: ghcr.io/siderolabs/kubelet:v1.36.4\n":                                 {},
		"image: factory.talos.dev/installer/not-an-id:v1.13.9\n":                      {},
	} {
		var got [3]string
		if m := installer.FindStringSubmatch(text); m != nil {
			got = [3]string{m[installer.SubexpIndex("packageName")], m[installer.SubexpIndex("currentValue")], m[installer.SubexpIndex("depType")]}
		}

		if got != want {
			t.Errorf("%q: packageName, currentValue, Talos minor = %q, want %q", text, got, want)
		}
	}
}
