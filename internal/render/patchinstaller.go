package render

import (
	"fmt"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/configpatcher"
	"github.com/siderolabs/talos/pkg/machinery/config/types/runtime"
)

// withInstaller names the node's installer in an UnattendedInstallConfig a patch wrote.
// The generator writes that document, with the installer, only for a node with an install
// disk (it needs a disk selector); a node whose patch selects the disk gets the document
// from the patch alone, and without its installer Talos cannot install from a boot image
// that is not the factory's. An image the patch names is kept.
func withInstaller(cfg coreconfig.Provider, installer string) (coreconfig.Provider, error) {
	u := cfg.UnattendedInstallConfig()
	if installer == "" || u == nil || u.InstallerImage() != "" {
		return cfg, nil
	}

	// The disk selector is written again: machinery merges a CEL expression by replacing
	// it, even with an empty one.
	patch, err := configpatcher.LoadPatch(fmt.Appendf(nil, "apiVersion: v1alpha1\nkind: %s\ninstaller:\n  image: %q\nprovisioning:\n  diskSelector:\n    match: %q\n",
		runtime.UnattendedInstallConfigKind, installer, u.VolumeSelector().String()))
	if err != nil {
		return nil, fmt.Errorf("name the installer in UnattendedInstallConfig: %w", err)
	}

	out, err := configpatcher.Apply(configpatcher.WithConfig(cfg), []configpatcher.Patch{patch})
	if err != nil {
		return nil, fmt.Errorf("name the installer in UnattendedInstallConfig: %w", err)
	}

	return out.Config()
}
