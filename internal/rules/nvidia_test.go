package rules_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/rules"
	"github.com/talops/talops/internal/testlab"
)

// Patches a GPU node typically carries.
const (
	modulesPatch = `machine:
  kernel:
    modules:
      - name: nvidia
      - name: nvidia_uvm
      - name: nvidia_drm
      - name: nvidia_modeset
`
	// computeModulesPatch loads what CUDA in containers needs, and nvidia_modeset.
	computeModulesPatch = `machine:
  kernel:
    modules:
      - name: nvidia
      - name: nvidia-uvm
      - name: nvidia-modeset
`
	displayModulesPatch = `machine:
  kernel:
    modules:
      - name: nvidia
      - name: nvidia_drm
      - name: nvidia_modeset
`
	sysctlPatch = `machine:
  sysctls:
    net.core.bpf_jit_harden: "1"
`
	moduleDocsPatch = `apiVersion: v1alpha1
kind: KernelModuleConfig
name: nvidia
---
apiVersion: v1alpha1
kind: KernelModuleConfig
name: nvidia_uvm
---
apiVersion: v1alpha1
kind: KernelModuleConfig
name: nvidia_drm
---
apiVersion: v1alpha1
kind: KernelModuleConfig
name: nvidia_modeset
`
)

const (
	openLTS        = "siderolabs/nvidia-open-gpu-kernel-modules-lts"
	openProd       = "siderolabs/nvidia-open-gpu-kernel-modules-production"
	nonfreeLTS     = "siderolabs/nonfree-kmod-nvidia-lts"
	nonfreeProd    = "siderolabs/nonfree-kmod-nvidia-production"
	toolkitLTS     = "siderolabs/nvidia-container-toolkit-lts"
	toolkitProd    = "siderolabs/nvidia-container-toolkit-production"
	fabricBare     = "siderolabs/nvidia-fabricmanager"
	openBare       = "siderolabs/nvidia-open-gpu-kernel-modules"
	toolkitBare    = "siderolabs/nvidia-container-toolkit"
	nonfreeBare    = "siderolabs/nonfree-kmod-nvidia"
	currentRelease = "v1.13.9"
)

func installExtensions(images ...string) string {
	s := "machine:\n  install:\n    extensions:\n"
	for _, img := range images {
		s += "      - image: " + img + "\n"
	}

	return s
}

func TestNvidiaAndExtensionRules(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name string
		repo gpuRepo
		want []string
	}{
		{
			name: "the LTS open modules and toolkit with their kernel modules are clean",
			repo: gpuRepo{talos: currentRelease, flavour: "lts", extensions: []string{toolkitLTS, openLTS}, patches: []string{modulesPatch}},
		},
		{
			name: "the production proprietary modules with a driver pin of their branch are clean",
			repo: gpuRepo{talos: currentRelease, flavour: "production", pin: "595", extensions: []string{nonfreeProd, toolkitProd}, patches: []string{modulesPatch}},
		},
		{
			name: "lts kernel modules with the production toolkit",
			repo: gpuRepo{talos: currentRelease, extensions: []string{openLTS, toolkitProd}, patches: []string{modulesPatch}},
			want: []string{"error nvidia.flavour-mismatch"},
		},
		{
			name: "production extensions on a cluster that says lts",
			repo: gpuRepo{talos: currentRelease, flavour: "lts", extensions: []string{openProd, toolkitProd}, patches: []string{modulesPatch}},
			want: []string{"error nvidia.flavour-mismatch", "error nvidia.flavour-mismatch"},
		},
		{
			name: "bare names from 1.8 on become lts behind a production cluster's back",
			repo: gpuRepo{talos: currentRelease, flavour: "production", extensions: []string{openBare, toolkitBare}, patches: []string{modulesPatch}},
			want: []string{"error nvidia.flavour-mismatch", "error nvidia.flavour-mismatch", "warning extension.renamed", "warning extension.renamed"},
		},
		{
			name: "bare names before 1.8 are the only names",
			repo: gpuRepo{talos: "v1.7.7", extensions: []string{nonfreeBare, toolkitBare}, patches: []string{modulesPatch, sysctlPatch}},
		},
		{
			name: "lts and production names before the split in 1.8 do not exist",
			repo: gpuRepo{talos: "v1.7.7", extensions: []string{nonfreeLTS, toolkitLTS}, patches: []string{modulesPatch, sysctlPatch}},
			want: []string{"error extension.unavailable", "error extension.unavailable"},
		},
		{
			name: "the factory's alias of the bare fabric manager name points nowhere",
			repo: gpuRepo{talos: "v1.12.6", flavour: "lts", extensions: []string{fabricBare, openLTS, toolkitLTS}, patches: []string{modulesPatch, sysctlPatch}},
			want: []string{"error extension.unavailable"},
		},
		{
			name: "proprietary and open kernel modules together",
			repo: gpuRepo{talos: currentRelease, extensions: []string{nonfreeLTS, toolkitLTS, openLTS}, patches: []string{modulesPatch}},
			want: []string{"error nvidia.kmod-conflict"},
		},
		{
			name: "the toolkit without a kernel module",
			repo: gpuRepo{talos: currentRelease, extensions: []string{toolkitLTS}},
			want: []string{"error nvidia.kmod-missing"},
		},
		{
			name: "a kernel module without the toolkit",
			repo: gpuRepo{talos: currentRelease, extensions: []string{openLTS}, patches: []string{modulesPatch}},
			want: []string{"error nvidia.toolkit-missing"},
		},
		{
			name: "explicit tags whose drivers differ (a published how-to's pairing)",
			repo: gpuRepo{talos: "v1.10.3", patches: []string{modulesPatch, sysctlPatch, installExtensions(
				"ghcr.io/siderolabs/nonfree-kmod-nvidia-production:535.247.01-v1.10.3",
				"ghcr.io/siderolabs/nvidia-container-toolkit-production:570.133.20-v1.17.6",
			)}},
			want: []string{"error extension.unavailable", "error nvidia.driver-mismatch"},
		},
		{
			name: "an explicit kernel module built for an older patch release",
			repo: gpuRepo{talos: currentRelease, patches: []string{modulesPatch, installExtensions(
				"ghcr.io/siderolabs/nvidia-open-gpu-kernel-modules-lts:580.159.04-v1.13.3",
				"ghcr.io/siderolabs/nvidia-container-toolkit-lts:580.178.04-v1.19.1",
			)}},
			want: []string{"error nvidia.driver-mismatch", "error nvidia.talos-mismatch"},
		},
		{
			name: "explicit images that are exactly the release's are clean",
			repo: gpuRepo{talos: currentRelease, patches: []string{modulesPatch, installExtensions(
				"ghcr.io/siderolabs/nvidia-open-gpu-kernel-modules-lts:580.178.04-v1.13.9",
				"ghcr.io/siderolabs/nvidia-container-toolkit-lts:580.178.04-v1.19.1",
			)}},
		},
		{
			name: "extensions without their kernel modules declared: an error for the workload modules, a warning for the display ones",
			repo: gpuRepo{talos: currentRelease, extensions: []string{openLTS, toolkitLTS}},
			want: []string{"error nvidia.modules-missing", "warning nvidia.modules-missing"},
		},
		{
			name: "a compute node without the display modules is warned",
			repo: gpuRepo{talos: currentRelease, extensions: []string{openLTS, toolkitLTS}, patches: []string{computeModulesPatch}},
			want: []string{"warning nvidia.modules-missing"},
		},
		{
			name: "the display modules without nvidia_uvm are an error",
			repo: gpuRepo{talos: currentRelease, extensions: []string{openLTS, toolkitLTS}, patches: []string{displayModulesPatch}},
			want: []string{"error nvidia.modules-missing"},
		},
		{
			name: "KernelModuleConfig documents are not read before 1.14",
			repo: gpuRepo{talos: currentRelease, extensions: []string{openLTS, toolkitLTS}, patches: []string{moduleDocsPatch}},
			want: []string{"error nvidia.modules-missing", "warning nvidia.modules-missing"},
		},
		{
			name: "KernelModuleConfig documents load the modules on 1.14, under workload isolation",
			repo: gpuRepo{talos: "v1.14.0-rc.1", extensions: []string{openLTS, toolkitLTS}, patches: []string{moduleDocsPatch}},
			want: []string{"info nvidia.workload-isolation"},
		},
		{
			name: "NVIDIA modules on a node without the extensions",
			repo: gpuRepo{talos: currentRelease, extensions: []string{openLTS, toolkitLTS}, patches: []string{modulesPatch}, plain: true},
			want: []string{"error nvidia.modules-without-driver"},
		},
		{
			name: "1.12 without the bpf_jit_harden sysctl",
			repo: gpuRepo{talos: "v1.12.6", extensions: []string{openLTS, toolkitLTS}, patches: []string{modulesPatch}},
			want: []string{"error nvidia.sysctl-missing"},
		},
		{
			name: "1.12 with the sysctl as an integer is clean",
			repo: gpuRepo{talos: "v1.12.6", extensions: []string{openLTS, toolkitLTS}, patches: []string{modulesPatch, "machine:\n  sysctls:\n    net.core.bpf_jit_harden: 1\n"}},
		},
		{
			name: "a driver the release does not install for the pin",
			repo: gpuRepo{talos: currentRelease, flavour: "lts", pin: "570", extensions: []string{openLTS, toolkitLTS}, patches: []string{modulesPatch}},
			want: []string{"error nvidia.driver-pin"},
		},
		{
			name: "an exact pin of the release's driver is clean",
			repo: gpuRepo{talos: currentRelease, flavour: "lts", pin: "580.178.04", extensions: []string{openLTS, toolkitLTS}, patches: []string{modulesPatch}},
		},
		{
			name: "the nvidia runtime pointed at a binary Talos does not have",
			repo: gpuRepo{talos: currentRelease, extensions: []string{openLTS, toolkitLTS}, patches: []string{modulesPatch, `machine:
  files:
    - op: create
      path: /etc/cri/conf.d/20-customization.part
      content: |
        [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia.options]
          BinaryName = "/usr/bin/nvidia-container-runtime"
`}},
			want: []string{"error nvidia.runtime-path"},
		},
		{
			name: "the device plugin deployed by the config on a CDI release",
			repo: gpuRepo{talos: currentRelease, extensions: []string{openLTS, toolkitLTS}, patches: []string{modulesPatch, devicePluginPatch}},
			want: []string{"info nvidia.cdi-setup"},
		},
		{
			name: "an extension that arrives in a later release",
			repo: gpuRepo{talos: "v1.11.6", extensions: []string{"siderolabs/nfs-utils", "siderolabs/qemu-guest-agent"}},
			want: []string{"error extension.unavailable"},
		},
		{
			name: "a name that was never an official extension",
			repo: gpuRepo{talos: currentRelease, extensions: []string{"siderolabs/qemu-guest-agnet"}},
			want: []string{"error extension.unavailable"},
		},
		{
			name: "an explicit image tag the release does not publish",
			repo: gpuRepo{talos: currentRelease, patches: []string{installExtensions("ghcr.io/siderolabs/iscsi-tools:v0.1.6")}},
			want: []string{"error extension.unavailable"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			in := input(t, tc.repo.files(t))
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

func describe(fs []finding.Finding) string {
	var b strings.Builder

	for _, f := range fs {
		b.WriteString("  " + f.File + ":" + strconv.Itoa(f.Line) + " " + string(f.Severity) + " " + f.Code + " [" + f.Node + "] " + f.Message + "\n")
	}

	return b.String()
}

func TestNvidia_SchematicFindingIsReportedOnceAtItsLine(t *testing.T) {
	t.Parallel()

	files := testlab.Scaled(t, 11) // GPU workers node-05 and node-10
	testlab.Edit(t, files, "schematics/gpu.yaml", "nvidia-container-toolkit-lts", "nvidia-container-toolkit-production")

	fs := onlyRelease(check(t, files, false))

	want := finding.Finding{
		Severity: finding.Error, Code: rules.CodeNvidiaFlavourMismatch, File: "examples/homelab/schematics/gpu.yaml", Line: 7,
		Message: "nvidia-container-toolkit-production follows the production driver track, but nvidia.flavour in talops.yaml is lts: every NVIDIA extension of a node must follow one track, or the userspace does not match the driver",
	}

	if len(fs) != 1 || fs[0] != want {
		t.Errorf("findings:\n%s\nwant one: %+v", describe(fs), want)
	}
}

func TestNvidia_ModulesMissingPointsAtTheNodeWithTheSeverityOfTheModule(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name, module string
		severity     finding.Severity
		says         string
	}{
		{
			name: "nvidia_drm drives a display: a warning", module: "nvidia_drm", severity: finding.Warning,
			says: "nvidia_drm is not loaded at boot: nvidia_drm and nvidia_modeset drive a display (DRM/KMS), which CUDA in containers does not need, and Talos' NVIDIA guide loads them",
		},
		{
			name: "nvidia_uvm is what CUDA needs: an error", module: "nvidia_uvm", severity: finding.Error,
			says: "nvidia_uvm is not loaded at boot: containers cannot use the GPU without nvidia and nvidia_uvm",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			files := testlab.Files(t)
			testlab.Edit(t, files, "nodes/k8s-node1.yaml", "      - name: "+tc.module+"\n", "")

			fs := onlyRelease(check(t, files, false))
			if len(fs) != 1 || fs[0].Code != rules.CodeNvidiaModulesMissing || fs[0].Severity != tc.severity || fs[0].Node != "k8s-node1" ||
				fs[0].File != "examples/homelab/nodes/k8s-node1.yaml" || fs[0].Line != 6 || !strings.Contains(fs[0].Message, tc.says) {
				t.Errorf("findings:\n%s", describe(fs))
			}
		})
	}
}
