package talhelper

import (
	"errors"
	"fmt"

	"github.com/siderolabs/talos/pkg/machinery/config/types/v1alpha1"
	"go.yaml.in/yaml/v4"
)

// device is one networkInterfaces entry: talhelper's reading of it (the Talos v1alpha1
// Device it decodes the entry into), its YAML for the findings, and its config path.
type device struct {
	*v1alpha1.Device
	node  *yaml.Node
	field string
}

// entryError is why an entry cannot be imported: talhelper itself fails on it.
type entryError struct {
	line int
	msg  string
}

func (e *entryError) Error() string { return e.msg }

// errAt is an entryError at a line.
func errAt(line int, format string, args ...any) error {
	return &entryError{line: line, msg: fmt.Sprintf(format, args...)}
}

// stage is one of talhelper's network document generators, in the order it runs them
// (talhelper's genMultiDocs): every entry's documents of one stage come before any of
// the next.
type stage int

const (
	stageAlias stage = iota
	stageBondMembers
	stageBond
	stageDHCP
	stageVIP
	stageLink
	stageVLAN
	stageWireguard
	stageBridge
	stageCount
)

// networkDocs are the documents talhelper writes for networkInterfaces on the 1.12
// contract and later, in talhelper's order: LinkAliasConfigs for device selectors (and
// for bond members chosen by selectors), BondConfigs, DHCPv4/DHCPv6Configs,
// Layer2VIPConfigs, LinkConfigs, VLANConfigs (each with its DHCP and VIP documents),
// WireguardConfigs, BridgeConfigs. What talhelper writes nothing for is a finding; an
// entry talhelper would fail on is a finding and is not imported.
func (im *mapping) networkDocs(n *yaml.Node, name string, field func(string) string) []any {
	var devs []*device

	schema := deviceSchema()

	for i, dn := range items(get(n, "networkInterfaces")) {
		d := &device{Device: &v1alpha1.Device{}, node: dn, field: field(fmt.Sprintf("networkInterfaces[%d]", i))}
		im.checkKeys(dn, name, d.field, schema)

		if err := dn.Decode(d.Device); err != nil {
			im.repo.Unsupported(decodeLine(err, dn), name, d.field, "a value of a type talhelper cannot read; this interface is not imported")

			continue
		}

		devs = append(devs, d)
	}

	nameSelected(devs)

	var stages [stageCount][]any

	for _, d := range devs {
		docs, err := im.deviceDocs(d, name)

		var ee *entryError
		if errors.As(err, &ee) {
			im.repo.Unsupported(ee.line, name, d.field, ee.msg+": talhelper fails on it; this interface is not imported")

			continue
		}

		if err != nil {
			// The cause is left out: it could quote a value of the entry, a key among them.
			im.repo.Unsupported(d.node.Line, name, d.field, "its documents cannot be encoded; this interface is not imported")

			continue
		}

		for s := range stageCount {
			stages[s] = append(stages[s], docs[s]...)
		}

		if w := d.DeviceWireguardConfig; w != nil && w.WireguardPrivateKey != "" {
			im.privateKeyNote(get(d.node, "wireguard"), name, d.field+".wireguard", "nodes/"+name+"-documents.yaml")
		}
	}

	var out []any

	for _, s := range stages {
		out = append(out, s...)
	}

	return out
}

// deviceDocs are one entry's documents, by stage, as plain YAML.
func (im *mapping) deviceDocs(d *device, name string) ([stageCount][]any, error) {
	var out [stageCount][]any

	gens := [stageCount]func() ([]any, error){
		stageAlias:       d.aliasDocs,
		stageBondMembers: d.bondMemberDocs,
		stageBond:        func() ([]any, error) { return im.bondDocs(d, name) },
		stageDHCP:        func() ([]any, error) { return dhcpDocs(d.DeviceInterface, d.DHCP(), d.DeviceDHCPOptions), nil },
		stageVIP:         d.vipDocs,
		stageLink:        d.linkDocs,
		stageVLAN:        func() ([]any, error) { return im.vlanDocs(d, name), nil },
		stageWireguard:   func() ([]any, error) { return im.wireguardDocs(d, name) },
		stageBridge:      d.bridgeDocs,
	}

	for s, gen := range gens {
		docs, err := gen()
		if err != nil {
			return out, err
		}

		for _, doc := range docs {
			node, err := plainDoc(doc)
			if err != nil {
				return out, err
			}

			out[s] = append(out[s], node)
		}
	}

	return out, nil
}

// decodeLine is the line a decoding error names, or the entry's.
func decodeLine(err error, n *yaml.Node) int {
	var le *yaml.LoadError
	if errors.As(err, &le) && le.Mark.Line > 0 {
		return le.Mark.Line
	}

	return n.Line
}
