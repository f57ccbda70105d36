package testlab

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/factory/factorytest"
)

// Listing115 is a 1.15 release as the Image Factory lists it, in the shapes the 1.15 notes
// give: three NVIDIA tracks (new-feature open only), no proprietary LTS module, the LTS track
// on 620, the container toolkit tagged with the bare driver version.
func Listing115(tag string) []factorytest.Extension {
	return []factorytest.Extension{
		factorytest.Ext("siderolabs/nfs-utils", "2.8.3"),
		factorytest.Ext("siderolabs/qemu-guest-agent", "10.1.2"),
		factorytest.Ext("siderolabs/nvidia-open-gpu-kernel-modules-lts", "620.70.06-"+tag),
		factorytest.Ext("siderolabs/nvidia-container-toolkit-lts", "620.70.06"),
		factorytest.Ext("siderolabs/nvidia-fabricmanager-lts", "620.70.06"),
		factorytest.Ext("siderolabs/nvidia-open-gpu-kernel-modules-production", "595.112.07-"+tag),
		factorytest.Ext("siderolabs/nonfree-kmod-nvidia-production", "595.112.07-"+tag),
		factorytest.Ext("siderolabs/nvidia-container-toolkit-production", "595.112.07"),
		factorytest.Ext("siderolabs/nvidia-fabricmanager-production", "595.112.07"),
		factorytest.Ext("siderolabs/nvidia-open-gpu-kernel-modules-new-feature", "615.71.10-"+tag),
		factorytest.Ext("siderolabs/nvidia-container-toolkit-new-feature", "615.71.10"),
		factorytest.Ext("siderolabs/nvidia-fabricmanager-new-feature", "615.71.10"),
		factorytest.Ext("siderolabs/nvidia-gdrdrv-device", "v2.5.2"),
	}
}

// Listing114 is v1.14.7 as a fake factory lists it: the names of the embedded v1.14.0-rc.1
// with their tags moved to v1.14.7 and the drivers of its notes.
func Listing114(t testing.TB) []factorytest.Extension {
	t.Helper()

	r, ok := catalog.Embedded().Release("v1.14.0-rc.1")
	if !ok {
		t.Fatal("no v1.14.0-rc.1 in the embedded data")
	}

	moved := strings.NewReplacer("v1.14.0-rc.1", "v1.14.7", "580.178.04", "580.196.07", "595.91.07", "595.112.07")

	var out []factorytest.Extension

	for name, tag := range r.Extensions() {
		out = append(out, factorytest.Ext("siderolabs/"+name, moved.Replace(tag)))
	}

	return out
}
