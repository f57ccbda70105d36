package scaffold

import (
	"fmt"

	"github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/encoder"
	"github.com/siderolabs/talos/pkg/machinery/config/types/network"
	"github.com/siderolabs/talos/pkg/machinery/nethelpers"
)

// NodePatch is the path of a node's own patch in a new repository.
func NodePatch(node string) string { return "nodes/" + node + ".yaml" }

// hostnamePatch is a node's patch that makes its hostname its name, so that the kubelet
// registers its Node object under the name talops.yaml gives it (without one, Talos picks
// talos-xxx-yyy). From the 1.12 config contract a hostname is a HostnameConfig document,
// before it machine.network.hostname.
func hostnamePatch(configVersion, node string) ([]byte, error) {
	contract, err := config.ParseContractFromVersion(configVersion)
	if err != nil {
		return nil, fmt.Errorf("config contract of Talos %s: %w", configVersion, err)
	}

	head := "# The node's identity: the kubelet registers its Node object under this hostname.\n"

	if !contract.MultidocNetworkConfigSupported() {
		return fmt.Appendf([]byte(head), "machine:\n  network:\n    hostname: %s\n", node), nil
	}

	doc := network.NewHostnameConfigV1Alpha1()
	doc.ConfigHostname = node
	off := nethelpers.AutoHostnameKindOff
	doc.ConfigAuto = &off

	data, err := encoder.NewEncoder(doc, encoder.WithComments(encoder.CommentsDisabled)).Encode()
	if err != nil {
		return nil, fmt.Errorf("encode the HostnameConfig of %s: %w", node, err)
	}

	return append([]byte(head), data...), nil
}
