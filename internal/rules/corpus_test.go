package rules_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/rules"
)

const (
	// corpusDir holds the corpus files the tests use, copied unchanged, so the tests run in a
	// checkout without the shared data beside it.
	corpusDir = "testdata/corpus"
	// sharedCorpusDir is their source; CI checks shared/ out next to the repository.
	sharedCorpusDir = "../../../shared/data/corpus"
)

// corpusDirs returns the directories to read corpus files from: the testdata copy, and the
// shared source when it is present.
func corpusDirs(t *testing.T) []string {
	t.Helper()

	dirs := []string{corpusDir}

	if _, err := os.Stat(sharedCorpusDir); err == nil {
		dirs = append(dirs, sharedCorpusDir)
	} else {
		t.Logf("no shared corpus at %s; reading the testdata copy only", sharedCorpusDir)
	}

	return dirs
}

func corpusFile(t *testing.T, dir, name string) string {
	t.Helper()

	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}

	if strings.HasSuffix(name, ".sh") {
		return heredoc(t, string(data))
	}

	return string(data)
}

// heredoc returns the first here-document of a shell script: the schematic a script posts.
func heredoc(t *testing.T, script string) string {
	t.Helper()

	_, rest, ok := strings.Cut(script, "<<EOF")
	if !ok {
		t.Fatal("no here-document")
	}

	_, rest, _ = strings.Cut(rest, "\n")

	body, _, ok := strings.Cut(rest, "\nEOF\n")
	if !ok {
		t.Fatal("unterminated here-document")
	}

	return body + "\n"
}

// Real files from public repositories, each in the setting its repository uses it in (or the
// one its mistake shows in): the mistakes are caught, the clean ones are not flagged.
func TestCorpus_RealFilesCaughtOrClean(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name      string
		talos     string
		schematic string   // a corpus file
		exts      []string // or the schematic's extensions, where the repository builds it elsewhere
		patches   []string // corpus files, or patches of this test when they start with "machine:"
		want      []string
	}{
		// Mistakes.
		{
			name: "a CRI part points the nvidia runtime at /usr/bin (theepicsaxguy/homelab)", talos: "v1.13.2",
			exts:    []string{openProd, toolkitProd},
			patches: []string{modulesPatch, "theepicsaxguy__homelab__tofu__talos__patches__gpu-runtime.yaml"},
			want:    []string{"error nvidia.runtime-path"},
		},
		{
			name: "the old i915-ucode name (vehagn/homelab)", talos: "v1.13.7",
			schematic: "vehagn__homelab__tofu__kubernetes__talos__image__schematic.yaml",
			want:      []string{"warning extension.renamed"},
		},
		{
			name: "KernelModuleConfig documents on Talos 1.13 (Almothana12/homelab)", talos: "v1.13.7",
			exts:    []string{openLTS, toolkitLTS},
			patches: []string{"Almothana12__homelab__talos__gpu-worker-patch.yaml"},
			// None of the four is loaded: an error for nvidia and nvidia_uvm, a warning for the display modules.
			want: []string{"error nvidia.modules-missing", "warning nvidia.modules-missing"},
		},
		{
			name: "pre-1.8 NVIDIA names once the cluster moves past 1.7 (bacchus-snu/cd-manifests)", talos: "v1.8.3",
			schematic: "bacchus-snu__cd-manifests__talos__sommelier__patches__worker__generate-nvidia-installer.sh",
			patches:   []string{"bacchus-snu__cd-manifests__talos__sommelier__patches__worker__nvidia-modules.yaml"},
			want:      []string{"warning extension.renamed", "warning extension.renamed"},
		},
		{
			name: "a release newer than the data, offline (coffee-the-dev/talos-dgx-spark-guide)", talos: "v1.14.1",
			schematic: "coffee-the-dev__talos-dgx-spark-guide__manifests__talos__schematics__dgx-spark-nonfree.yaml",
			patches:   []string{"coffee-the-dev__talos-dgx-spark-guide__manifests__talos__worker-dgx-spark.patch.yaml"},
			want:      []string{"info nvidia.workload-isolation", "warning extension.data-missing"},
		},
		// Clean.
		{
			name: "production proprietary modules with modules and sysctl (yyewolf/infra)", talos: "v1.13.7",
			exts:    []string{nonfreeProd, toolkitProd},
			patches: []string{"yyewolf__infra__talos__patches__nvidia.yaml"},
		},
		{
			name: "production open modules among other extensions (heavybullets8/heavy-ops)", talos: "v1.13.7",
			schematic: "heavybullets8__heavy-ops__talos__schematic.yaml",
			patches:   []string{modulesPatch},
		},
		{
			name: "one schematic and one kernel patch for every node (LukeEvansTech/talos-cluster)", talos: "v1.13.8",
			schematic: "LukeEvansTech__talos-cluster__talos__schematic.yaml",
			patches:   []string{"LukeEvansTech__talos-cluster__talos__patches__global__machine-kernel.yaml"},
		},
		{
			name: "proprietary production modules on 1.10 (vdupain/terraform-proxmox-talos-k8s-cluster)", talos: "v1.10.3",
			schematic: "vdupain__terraform-proxmox-talos-k8s-cluster__modules__vms_proxmox__schematic-nvidia.yaml",
			patches: []string{
				"vdupain__terraform-proxmox-talos-k8s-cluster__modules__talos_k8s__config__gpu-worker-patch.yaml",
				"vdupain__terraform-proxmox-talos-k8s-cluster__modules__talos_k8s__config__nvidia-default-runtimeclass.yaml",
			},
		},
		{
			name: "pre-1.8 names on 1.7 (bacchus-snu/cd-manifests)", talos: "v1.7.5",
			schematic: "bacchus-snu__cd-manifests__talos__sommelier__patches__worker__generate-nvidia-installer.sh",
			patches:   []string{"bacchus-snu__cd-manifests__talos__sommelier__patches__worker__nvidia-modules.yaml"},
		},
		{
			name: "production open modules on 1.11 (teaglebuilt/homelab)", talos: "v1.11.5",
			exts:    []string{toolkitProd, openProd},
			patches: []string{"teaglebuilt__homelab__tf_modules__talos_cluster__patches__worker__gpu-worker-patch.yaml"},
		},
		{
			name: "production proprietary modules on 1.8 (nforceroh/k8s-home)", talos: "v1.8.3",
			exts:    []string{nonfreeProd, toolkitProd},
			patches: []string{"nforceroh__k8s-home__ref__talos__patches__gpu-worker-patch.yaml"},
		},
		{
			name: "KernelModuleConfig documents on Talos 1.14 (Almothana12/homelab)", talos: "v1.14.0-rc.1",
			exts:    []string{openLTS, toolkitLTS},
			patches: []string{"Almothana12__homelab__talos__gpu-worker-patch.yaml"},
			want:    []string{"info nvidia.workload-isolation"},
		},
		{
			name: "a node without a GPU (Almothana12/homelab)", talos: "v1.13.7",
			schematic: "Almothana12__homelab__talos__talos.extensions.yaml",
		},
		{
			name: "proprietary LTS modules on 1.14 (coffee-the-dev/talos-dgx-spark-guide)", talos: "v1.14.0-rc.1",
			schematic: "coffee-the-dev__talos-dgx-spark-guide__manifests__talos__schematics__dgx-spark-nonfree.yaml",
			patches:   []string{"coffee-the-dev__talos-dgx-spark-guide__manifests__talos__worker-dgx-spark.patch.yaml"},
			want:      []string{"info nvidia.workload-isolation"},
		},
	} {
		for _, dir := range corpusDirs(t) {
			source := "testdata"
			if dir != corpusDir {
				source = "shared"
			}

			t.Run(tc.name+"/"+source, func(t *testing.T) {
				t.Parallel()

				repo := gpuRepo{talos: tc.talos, extensions: tc.exts}
				if tc.schematic != "" {
					repo.schematic = corpusFile(t, dir, tc.schematic)
				}

				for _, p := range tc.patches {
					if !strings.HasSuffix(p, ".yaml") {
						repo.patches = append(repo.patches, p)

						continue
					}

					repo.patches = append(repo.patches, corpusFile(t, dir, p))
				}

				in := input(t, repo.files(t))
				in.Release = rules.ReleaseLookup{Skipped: "offline"}
				renderErrors(t, in)

				got := releaseCodes(checkInput(t, in))
				slices.Sort(got)

				want := slices.Clone(tc.want)
				slices.Sort(want)

				if !slices.Equal(got, want) {
					t.Errorf("findings = %q, want %q\n%s", got, want, describe(onlyRelease(checkInput(t, in))))
				}
			})
		}
	}
}

func TestCorpus_TestdataCopyMatchesShared(t *testing.T) {
	if _, err := os.Stat(sharedCorpusDir); err != nil {
		t.Skipf("no shared corpus at %s", sharedCorpusDir)
	}

	local, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}

	for _, e := range local {
		want, err := os.ReadFile(filepath.Join(sharedCorpusDir, e.Name()))
		if err != nil {
			t.Errorf("%s is not in the shared corpus: %v", e.Name(), err)

			continue
		}

		got, _ := os.ReadFile(filepath.Join(corpusDir, e.Name()))
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the shared copy", e.Name())
		}
	}
}
