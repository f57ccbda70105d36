package scaffold

import (
	"fmt"

	"github.com/siderolabs/talos/pkg/machinery/config"
)

// configVersionComment heads the configVersion a new or imported talops.yaml pins.
const configVersionComment = "The config format of the release the cluster was made with: a Talos minor bump keeps it\n" +
	"(a running cluster never adopts a new format by itself), so its patches keep applying."

// ConfigVersion is the configVersion a new or imported repository pins: the config contract
// (the minor, v1.13) of the Talos release it is written for. Without it, the first minor
// bump would generate every config in the new release's format, where patches written for
// the old one conflict (UnattendedInstallConfig, "already set in v1alpha1 config").
func ConfigVersion(talosVersion string) (string, error) {
	contract, err := config.ParseContractFromVersion(talosVersion)
	if err != nil {
		return "", fmt.Errorf("config contract of Talos %s: %w", talosVersion, err)
	}

	return contract.String(), nil
}
