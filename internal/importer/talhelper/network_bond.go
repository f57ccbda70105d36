package talhelper

import (
	"fmt"
	"net/netip"

	"github.com/siderolabs/talos/pkg/machinery/config/types/network"
	"github.com/siderolabs/talos/pkg/machinery/nethelpers"
)

// bondDocs is the BondConfig talhelper writes for an entry's bond: its links (the
// interfaces, then <bond>-m<i> for each device selector), each option it sets (a name
// Talos does not know for an option is reported and left out, as talhelper leaves it out; a zero
// number is left out), and the entry's addresses, routes and MTU.
func (im *mapping) bondDocs(d *device, name string) ([]any, error) {
	b := d.DeviceBond
	if b == nil {
		return nil, nil
	}

	bond := network.NewBondConfigV1Alpha1(d.DeviceInterface)
	bond.BondLinks = append(bond.BondLinks, b.BondInterfaces...)

	for i := range b.BondDeviceSelectors {
		bond.BondLinks = append(bond.BondLinks, fmt.Sprintf("%s-m%d", d.DeviceInterface, i))
	}

	bn := get(d.node, "bond")

	// named sets an option given by name when the name is one Talos knows.
	named := func(key, value string, set func(string) error) {
		if value == "" {
			return
		}

		if set(value) != nil {
			im.repo.Unsupported(lineOf(bn, key), name, d.field+".bond."+key, fmt.Sprintf("%q is no value Talos knows for it: talhelper's validation refuses it; the import leaves it out", value))
		}
	}

	named("mode", b.BondMode, func(v string) error { return setNamed(&bond.BondMode, v, nethelpers.BondModeByName) })
	named("xmitHashPolicy", b.BondHashPolicy, func(v string) error {
		return setNamed(&bond.BondXmitHashPolicy, v, nethelpers.BondXmitHashPolicyByName)
	})
	named("lacpRate", b.BondLACPRate, func(v string) error { return setNamed(&bond.BondLACPRate, v, nethelpers.LACPRateByName) })
	named("arpValidate", b.BondARPValidate, func(v string) error { return setNamed(&bond.BondARPValidate, v, nethelpers.ARPValidateByName) })
	named("arpAllTargets", b.BondARPAllTargets, func(v string) error {
		return setNamed(&bond.BondARPAllTargets, v, nethelpers.ARPAllTargetsByName)
	})
	named("primaryReselect", b.BondPrimaryReselect, func(v string) error {
		return setNamed(&bond.BondPrimaryReselect, v, nethelpers.PrimaryReselectByName)
	})
	named("failOverMac", b.BondFailOverMac, func(v string) error { return setNamed(&bond.BondFailOverMAC, v, nethelpers.FailOverMACByName) })
	named("adSelect", b.BondADSelect, func(v string) error { return setNamed(&bond.BondADSelect, v, nethelpers.ADSelectByName) })

	bond.BondMIIMon = positive(b.BondMIIMon)
	bond.BondUpDelay = positive(b.BondUpDelay)
	bond.BondDownDelay = positive(b.BondDownDelay)
	bond.BondARPInterval = positive(b.BondARPInterval)
	bond.BondResendIGMP = positive(b.BondResendIGMP)
	bond.BondMinLinks = positive(b.BondMinLinks)
	bond.BondLPInterval = positive(b.BondLPInterval)
	bond.BondPacketsPerSlave = positive(b.BondPacketsPerSlave)
	bond.BondNumPeerNotif = positive(b.BondNumPeerNotif)
	bond.BondTLBDynamicLB = positive(b.BondTLBDynamicLB)
	bond.BondAllSlavesActive = positive(b.BondAllSlavesActive)
	bond.BondUseCarrier = b.BondUseCarrier
	bond.BondADActorSysPrio = positive(b.BondADActorSysPrio)
	bond.BondADUserPortKey = positive(b.BondADUserPortKey)
	bond.BondPeerNotifyDelay = positive(b.BondPeerNotifyDelay)

	for _, t := range b.BondARPIPTarget {
		ip, err := netip.ParseAddr(t)
		if err != nil {
			return nil, errAt(lineOf(bn, "arpIPTarget"), "bond.arpIPTarget %q is not an address", t)
		}

		bond.BondARPIPTargets = append(bond.BondARPIPTargets, ip)
	}

	if err := d.commonLink(&bond.CommonLinkConfig); err != nil {
		return nil, err
	}

	return []any{bond}, nil
}

// setNamed sets an option from its name.
func setNamed[T any](to **T, name string, byName func(string) (T, error)) error {
	v, err := byName(name)
	if err != nil {
		return err
	}

	*to = &v

	return nil
}

// positive is a pointer to a number talhelper writes, nil for zero.
func positive[T uint8 | uint16 | uint32](v T) *T {
	if v == 0 {
		return nil
	}

	return &v
}
