package talhelper

import (
	"fmt"

	yaml3 "go.yaml.in/yaml/v3"
	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cluster"
)

// talhelper's boolean fields, by where they are: the talconfig's own, a node's alone, a
// node's or a role section's, machineSpec's, and a machine file's or an inline manifest's.
var (
	topBooleans      = []string{"allowSchedulingOnMasters", "allowSchedulingOnControlPlanes"}
	nodeOnlyBooleans = []string{"controlPlane", "ignoreHostname", "overridePatches", "overrideExtraManifests", "overrideMachineCertSANs"}
	nodeBooleans     = []string{"disableSearchDomain", "noSchematicValidate"}
	specBooleans     = []string{"secureboot", "useUKI"}
)

// readBoolean reads a value as talhelper's parser (yaml.v3, whose successor go.yaml.in/yaml/v3
// reads it here) reads it into a bool: true, True, TRUE and their false, and also the YAML 1.1
// words (yes, on, y...), quoted or not; a quoted "true" is no boolean to it. A missing value
// is false.
func readBoolean(n *yaml.Node) (bool, error) {
	n = deref(n)
	if n == nil {
		return false, nil
	}

	if n.Kind != yaml.ScalarNode {
		return false, fmt.Errorf("a %s, not a boolean", kindName(n))
	}

	v3 := &yaml3.Node{Kind: yaml3.ScalarNode, Value: n.Value}

	switch {
	case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		// Written as a string: yaml.v3 reads it as one.
		v3.Tag, v3.Style = "!!str", yaml3.DoubleQuotedStyle
	case n.Style&yaml.TaggedStyle != 0:
		v3.Tag = n.Tag
	}

	var b bool
	if err := v3.Decode(&b); err != nil {
		return false, fmt.Errorf("talhelper reads a boolean here (true, false, yes, no, on, off...)")
	}

	return b, nil
}

// boolean is a boolean field's value; checkBooleans has refused what is no boolean.
func boolean(n *yaml.Node) bool {
	b, _ := readBoolean(n)

	return b
}

// checkBooleans refuses a talconfig whose boolean field talhelper cannot read as one (it
// fails on it), at the value's line.
func checkBooleans(file string, root *yaml.Node) error {
	check := func(m *yaml.Node, at string, keys []string) error {
		for _, p := range pairs(m) {
			for _, k := range keys {
				if p.key != k {
					continue
				}

				if _, err := readBoolean(p.value); err != nil {
					return &cluster.InputError{File: file, Line: p.line, Field: at + p.key, Msg: err.Error()}
				}
			}
		}

		return nil
	}

	// each checks a node or role section, with the booleans of its files.
	each := func(m *yaml.Node, at string, keys []string) error {
		if err := check(m, at, keys); err != nil {
			return err
		}

		if err := check(get(m, "machineSpec"), at+"machineSpec.", specBooleans); err != nil {
			return err
		}

		for i, f := range items(get(m, "machineFiles")) {
			if err := check(f, fmt.Sprintf("%smachineFiles[%d].", at, i), []string{"skipEnvsubst"}); err != nil {
				return err
			}
		}

		return nil
	}

	if err := check(root, "", topBooleans); err != nil {
		return err
	}

	for i, m := range items(get(root, "inlineManifests")) {
		if err := check(m, fmt.Sprintf("inlineManifests[%d].", i), []string{"skipEnvsubst"}); err != nil {
			return err
		}
	}

	for _, role := range []string{"controlPlane", "worker"} {
		if err := each(get(root, role), role+".", nodeBooleans); err != nil {
			return err
		}
	}

	for i, n := range items(get(root, "nodes")) {
		if err := each(n, fmt.Sprintf("nodes[%d].", i), append(append([]string{}, nodeOnlyBooleans...), nodeBooleans...)); err != nil {
			return err
		}
	}

	return nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	default:
		return "value"
	}
}
