package talhelper

import "github.com/siderolabs/talos/pkg/machinery/config/types/network"

// bridgeDocs is the BridgeConfig talhelper writes for an entry's bridge: its links (the
// bridge's interfaces), STP when stp.enabled is set, VLAN filtering when it is on, and
// the entry's addresses, routes and MTU.
func (d *device) bridgeDocs() ([]any, error) {
	br := d.DeviceBridge
	if br == nil {
		return nil, nil
	}

	bridge := network.NewBridgeConfigV1Alpha1(d.DeviceInterface)
	bridge.BridgeLinks = br.BridgedInterfaces

	if br.BridgeSTP != nil && br.BridgeSTP.STPEnabled != nil {
		bridge.BridgeSTP = network.BridgeSTPConfig{BridgeSTPEnabled: br.BridgeSTP.STPEnabled}
	}

	if br.BridgeVLAN.FilteringEnabled() {
		bridge.BridgeVLAN = network.BridgeVLANConfig{BridgeVLANFiltering: br.BridgeVLAN.BridgeVLANFiltering}
	}

	if err := d.commonLink(&bridge.CommonLinkConfig); err != nil {
		return nil, err
	}

	return []any{bridge}, nil
}
