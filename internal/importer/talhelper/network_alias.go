package talhelper

import (
	"fmt"
	"strings"

	"github.com/siderolabs/talos/pkg/machinery/cel"
	"github.com/siderolabs/talos/pkg/machinery/cel/celenv"
	"github.com/siderolabs/talos/pkg/machinery/config/types/network"
	"github.com/siderolabs/talos/pkg/machinery/config/types/v1alpha1"
)

// nameSelected names the entries chosen by a deviceSelector without an interface name
// as talhelper does before it writes any document: bond<N>, br<N>, wg<N> or ethSel<N>,
// counted per prefix in the entries' order, skipping the names other entries give. The
// other documents (DHCP, VIP, VLAN parents...) then use that name.
func nameSelected(devs []*device) {
	used := map[string]bool{}

	for _, d := range devs {
		if d.DeviceInterface != "" {
			used[d.DeviceInterface] = true
		}
	}

	next := map[string]int{}

	for _, d := range devs {
		if d.DeviceSelector == nil || d.DeviceInterface != "" {
			continue
		}

		prefix := "ethSel"

		switch {
		case d.DeviceBond != nil:
			prefix = "bond"
		case d.DeviceBridge != nil:
			prefix = "br"
		case d.DeviceWireguardConfig != nil:
			prefix = "wg"
		}

		for {
			alias := fmt.Sprintf("%s%d", prefix, next[prefix])
			next[prefix]++

			if !used[alias] {
				d.DeviceInterface, used[alias] = alias, true

				break
			}
		}
	}
}

// aliasDocs is the LinkAliasConfig talhelper writes for an entry's deviceSelector: the
// link its selector matches gets the entry's name.
func (d *device) aliasDocs() ([]any, error) {
	if d.DeviceSelector == nil {
		return nil, nil
	}

	doc, err := linkAlias(d.DeviceInterface, d.DeviceSelector)
	if err != nil {
		return nil, errAt(lineOf(d.node, "deviceSelector"), "%v", err)
	}

	return doc, nil
}

// bondMemberDocs are the LinkAliasConfigs talhelper writes for a bond's deviceSelectors:
// <bond>-m<i>, the names its BondConfig lists as links.
func (d *device) bondMemberDocs() ([]any, error) {
	if d.DeviceBond == nil {
		return nil, nil
	}

	var out []any

	for i := range d.DeviceBond.BondDeviceSelectors {
		doc, err := linkAlias(fmt.Sprintf("%s-m%d", d.DeviceInterface, i), &d.DeviceBond.BondDeviceSelectors[i])
		if err != nil {
			return nil, errAt(lineOf(get(d.node, "bond"), "deviceSelectors"), "%v", err)
		}

		out = append(out, doc...)
	}

	return out, nil
}

// linkAlias is a LinkAliasConfig matching a selector, none for an empty one (as
// talhelper writes none).
func linkAlias(name string, s *v1alpha1.NetworkDeviceSelector) ([]any, error) {
	match := selectorMatch(s)
	if match == "" {
		return nil, nil
	}

	doc := network.NewLinkAliasConfigV1Alpha1(name)

	// talhelper checks the expression, then keeps its text as written.
	if _, err := cel.ParseBooleanExpression(match, celenv.LinkLocator()); err != nil {
		return nil, fmt.Errorf("the device selector of %s is no CEL expression talhelper can write", name)
	}

	if err := doc.Selector.Match.UnmarshalText([]byte(match)); err != nil {
		return nil, fmt.Errorf("the device selector of %s: %w", name, err)
	}

	return []any{doc}, nil
}

// selectorMatch is the CEL expression talhelper writes for a v1alpha1 device selector:
// each field set is a glob (or a link type test for physical), all of them must hold.
func selectorMatch(s *v1alpha1.NetworkDeviceSelector) string {
	var conds []string

	for _, c := range []struct{ value, operand string }{
		{s.NetworkDeviceHardwareAddress, "mac(link.hardware_addr)"},
		{s.NetworkDevicePermanentAddress, "mac(link.permanent_addr)"},
		{s.NetworkDeviceBus, "link.bus_path"},
		{s.NetworkDeviceKernelDriver, "link.driver"},
		{s.NetworkDevicePCIID, "link.pciid"},
	} {
		if c.value != "" {
			conds = append(conds, fmt.Sprintf(`glob("%s", %s)`, c.value, c.operand))
		}
	}

	if s.NetworkDevicePhysical != nil {
		if *s.NetworkDevicePhysical {
			conds = append(conds, "link.type == 1")
		} else {
			conds = append(conds, "link.type != 1")
		}
	}

	return strings.Join(conds, " && ")
}
