package talhelper_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/importer/talhelper"
)

// TestImport_BooleansAreReadAsTalhelpersParserReadsThem: talhelper reads its boolean fields
// with yaml.v3, which takes True and the YAML 1.1 words (yes, on, y...) into a bool, quoted
// or not, and refuses a quoted "true" and anything else.
func TestImport_BooleansAreReadAsTalhelpersParserReadsThem(t *testing.T) {
	for _, tc := range []struct {
		value, role string
	}{
		{"true", "controlplane"},
		{"True", "controlplane"},
		{"TRUE", "controlplane"},
		{"yes", "controlplane"},
		{"Yes", "controlplane"},
		{"on", "controlplane"},
		{"y", "controlplane"},
		{`"yes"`, "controlplane"},
		{"!!bool true", "controlplane"},
		{"false", "worker"},
		{"no", "worker"},
		{"Off", "worker"},
		{"", "worker"},
	} {
		t.Run(tc.value+" is a "+tc.role, func(t *testing.T) {
			res := importText(t, head+"nodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n    controlPlane: "+tc.value+"\n", nil, nil)

			if talops := written(t, res, "talops.yaml"); !strings.Contains(talops, "role: "+tc.role) {
				t.Fatalf("want role %s:\n%s", tc.role, talops)
			}
		})
	}
}

// TestImport_BooleanFieldsOtherThanTheRoleTakeYes: the other boolean fields are read the
// same way (ignoreHostname, overridePatches, allowSchedulingOnControlPlanes).
func TestImport_BooleanFieldsOtherThanTheRoleTakeYes(t *testing.T) {
	talconfig := head + "allowSchedulingOnControlPlanes: yes\nnodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n    controlPlane: on\n    ignoreHostname: Yes\n    overridePatches: True\n    patches: ['machine: {env: {own: \"1\"}}']\ncontrolPlane:\n  patches: ['machine: {env: {role: \"1\"}}']\n"

	res := importText(t, talconfig, nil, nil)

	if cp := written(t, res, "patches/talhelper-controlplane.yaml"); !strings.Contains(cp, "allowSchedulingOnControlPlanes: true") {
		t.Fatalf("allowSchedulingOnControlPlanes: yes not read as true:\n%s", cp)
	}

	if docs := written(t, res, "nodes/n1-documents.yaml"); !strings.Contains(docs, "auto: stable") {
		t.Fatalf("ignoreHostname: Yes not read as true:\n%s", docs)
	}

	if hasFile(res, "patches/controlplane-01.yaml") && strings.Contains(written(t, res, "talops.yaml"), "controlplane-01") {
		t.Fatalf("overridePatches: True not read as true: the role's patch is listed")
	}
}

// TestImport_WhatTalhelperCannotReadAsABooleanIsRefusedAtItsLine: talhelper fails on it.
func TestImport_WhatTalhelperCannotReadAsABooleanIsRefusedAtItsLine(t *testing.T) {
	for _, tc := range []struct {
		name, nodes, want string
	}{
		{"a quoted true", "  - hostname: n1\n    controlPlane: \"true\"\n", "talconfig.yaml:7: nodes[0].controlPlane: talhelper reads a boolean"},
		{"a word", "  - hostname: n1\n    ignoreHostname: maybe\n", "talconfig.yaml:7: nodes[0].ignoreHostname: talhelper reads a boolean"},
		{"a list", "  - hostname: n1\n    machineSpec:\n      secureboot: [true]\n", "talconfig.yaml:8: nodes[0].machineSpec.secureboot: a list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := talhelper.Import(talhelper.Input{File: "talconfig.yaml", Data: []byte(head + "nodes:\n" + tc.nodes)})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("want %q…, got %v", tc.want, err)
			}
		})
	}
}

// TestImport_DisableSearchDomainBeforeTheMultidocContractIsSetOnlyWhenTrue: talhelper sets
// machine.network.disableSearchDomain for a true value (yes included) and leaves it out
// otherwise.
func TestImport_DisableSearchDomainBeforeTheMultidocContractIsSetOnlyWhenTrue(t *testing.T) {
	for value, want := range map[string]bool{"yes": true, "true": true, "false": false, "no": false} {
		t.Run(value, func(t *testing.T) {
			res := importText(t, strings.Replace(head, "v1.12.4", "v1.11.5", 1)+"nodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n    disableSearchDomain: "+value+"\n", nil, nil)

			ops := written(t, res, "nodes/n1-talhelper.yaml")
			if got := strings.Contains(ops, "path: /machine/network/disableSearchDomain\n  value: true"); got != want {
				t.Fatalf("disableSearchDomain set to true: want %v, got %v in\n%s", want, got, ops)
			}

			if !want && strings.Contains(ops, "disableSearchDomain") {
				t.Fatalf("a false disableSearchDomain is written:\n%s", ops)
			}
		})
	}
}
