package schematic_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/schematic"
)

func TestLoad_UnknownFieldNamesFieldPathAndLine(t *testing.T) {
	for _, tc := range []struct {
		name, src        string
		field, path      string
		line, column     int
		errorMentionsAll []string
	}{
		{
			name: "typo in a nested key",
			src: `customization:
  systemExtensions:
    officalExtensions:
      - siderolabs/iscsi-tools
`,
			field: "officalExtensions", path: "customization.systemExtensions", line: 3, column: 5,
			errorMentionsAll: []string{"line 3", `"officalExtensions"`, "customization.systemExtensions", "officialExtensions"},
		},
		{
			name:  "top-level key from machine config",
			src:   "customization: {}\nmachine:\n  install: {}\n",
			field: "machine", path: "", line: 2, column: 1,
			errorMentionsAll: []string{"line 2", `"machine"`, "top level"},
		},
		{
			name:  "extensions key used by talhelper",
			src:   "customization:\n  extensions:\n    - siderolabs/zfs\n",
			field: "extensions", path: "customization", line: 2, column: 3,
			errorMentionsAll: []string{"line 2", `"extensions"`},
		},
		{
			name:  "unknown key inside a list item",
			src:   "customization:\n  meta:\n    - key: 10\n      value: foo\n      comment: bar\n",
			field: "comment", path: "customization.meta[0]", line: 5, column: 7,
			errorMentionsAll: []string{"line 5", `"comment"`},
		},
		{
			name:  "unknown key in flow style",
			src:   `{"customization": {"secureboot": {"includeWellKnownCerts": true}}}`,
			field: "includeWellKnownCerts", path: "customization.secureboot", line: 1, column: 35,
			errorMentionsAll: []string{"line 1", `"includeWellKnownCerts"`},
		},
		{
			name:  "unknown key pulled in by a merge",
			src:   "customization:\n  <<: {bogus: 1}\n",
			field: "bogus", path: "customization", line: 2, column: 8,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := schematic.Load([]byte(tc.src))

			var fe *schematic.UnknownFieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Load error = %v (%T), want *UnknownFieldError", err, err)
			}

			if fe.Field != tc.field || fe.Path != tc.path || fe.Line != tc.line || fe.Column != tc.column {
				t.Errorf("got field %q path %q at %d:%d, want field %q path %q at %d:%d",
					fe.Field, fe.Path, fe.Line, fe.Column, tc.field, tc.path, tc.line, tc.column)
			}

			for _, s := range tc.errorMentionsAll {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
}

func TestLoad_InvalidDocumentsAreDecodeErrorsWithLine(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		line      int
	}{
		{name: "empty file", src: "", line: 0},
		{name: "comments only", src: "# nothing yet\n", line: 0},
		{name: "list at the top", src: "- siderolabs/zfs\n", line: 1},
		{name: "string where a list belongs", src: "customization:\n  extraKernelArgs: console=ttyS0\n", line: 2},
		{name: "META key out of range", src: "customization:\n  meta:\n    - key: 256\n      value: x\n", line: 3},
		{name: "unknown bootloader", src: "customization:\n  bootloader: systemd\n", line: 2},
		{name: "duplicate key", src: "customization:\n  extraKernelArgs: [a]\n  extraKernelArgs: [b]\n", line: 3},
		{name: "broken flow list", src: "customization:\n  extraKernelArgs: [a\n", line: 3},
		{name: "second document", src: "customization: {}\n---\ncustomization: {}\n", line: 2},
		{name: "tab indentation", src: "customization:\n\textraKernelArgs: [a]\n", line: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := schematic.Load([]byte(tc.src))
			if err == nil {
				t.Fatalf("Load succeeded with %+v; want an error", s)
			}

			var de *schematic.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Load error = %v (%T), want *DecodeError", err, err)
			}

			if de.Line != tc.line {
				t.Errorf("error %q on line %d, want line %d", err, de.Line, tc.line)
			}
		})
	}
}

func TestLoadWithPositions_ExtensionLinesSkipCommentsAndBlankLines(t *testing.T) {
	// The layout of a real schematic (yyewolf/infra): comments and blank lines
	// between the items, items not indented under their key.
	src := `# Image Factory schematic.
customization:
  systemExtensions:
    officialExtensions:
    # Microcode updates.
    - siderolabs/amd-ucode

    # Needed by most CSI drivers.
    - siderolabs/iscsi-tools
    - siderolabs/util-linux-tools

# Extra kernel arguments, if the hardware needs them.
`

	s, pos, err := schematic.LoadWithPositions([]byte(src))
	if err != nil {
		t.Fatal(err)
	}

	if got, want := pos.ExtensionLines(s), []int{6, 9, 10}; !slices.Equal(got, want) {
		t.Errorf("extension lines = %v, want %v", got, want)
	}

	if p, ok := pos.Lookup(schematic.PathOfficialExtensions); !ok || p.Line != 4 || p.Column != 5 {
		t.Errorf("officialExtensions key at %+v (found %v), want line 4 column 5", p, ok)
	}

	if p, ok := pos.Extension(1); !ok || p.Column != 7 {
		t.Errorf("second extension at %+v, want column 7 (where the name starts)", p)
	}

	if _, ok := pos.Extension(3); ok {
		t.Error("a fourth extension has a position; there are three")
	}
}

func TestLoadWithPositions_FlowListAndOtherPaths(t *testing.T) {
	src := "customization:\n  extraKernelArgs: [noapic,\n    nolapic]\n  systemExtensions: {officialExtensions: [siderolabs/zfs, siderolabs/nut-client]}\n"

	s, pos, err := schematic.LoadWithPositions([]byte(src))
	if err != nil {
		t.Fatal(err)
	}

	if got, want := pos.ExtensionLines(s), []int{4, 4}; !slices.Equal(got, want) {
		t.Errorf("extension lines = %v, want %v", got, want)
	}

	for path, want := range map[string]schematic.Position{
		"customization":                          {Line: 1, Column: 1},
		"customization.extraKernelArgs":          {Line: 2, Column: 3},
		"customization.extraKernelArgs[1]":       {Line: 3, Column: 5},
		"customization.systemExtensions":         {Line: 4, Column: 3},
		schematic.PathOfficialExtensions + "[1]": {Line: 4, Column: 59},
	} {
		if got, ok := pos.Lookup(path); !ok || got != want {
			t.Errorf("Lookup(%q) = %+v, %v; want %+v", path, got, ok, want)
		}
	}
}

func TestLoadWithPositions_MergedKeysYieldToTheMappingsOwn(t *testing.T) {
	src := `customization:
  <<:
    extraKernelArgs: [console=ttyS0]
    meta: [{key: 10, value: merged}]
  meta: [{key: 10, value: own}]
`

	s, pos, err := schematic.LoadWithPositions([]byte(src))
	if err != nil {
		t.Fatal(err)
	}

	if got := s.Customization.Meta; len(got) != 1 || got[0].Value != "own" {
		t.Errorf("meta = %+v, want the mapping's own value", got)
	}

	for path, line := range map[string]int{
		"customization.extraKernelArgs": 3,
		"customization.meta":            5,
	} {
		if p, ok := pos.Lookup(path); !ok || p.Line != line {
			t.Errorf("Lookup(%q) = %+v, %v; want line %d", path, p, ok, line)
		}
	}
}

func TestLoad_AliasedExtensionsAreCheckedAndLoaded(t *testing.T) {
	src := `overlay:
  name: rpi_generic
  image: siderolabs/sbc-raspberrypi
  options: &opts
    configTxtAppend: dtoverlay=vc4-kms-v3d
customization:
  meta:
    - key: 12
      value: x
`
	s, err := schematic.Load([]byte(src))
	if err != nil {
		t.Fatal(err)
	}

	if got := s.Overlay.Options["configTxtAppend"]; got != "dtoverlay=vc4-kms-v3d" {
		t.Errorf("overlay option = %v", got)
	}
}

func TestLoad_ManyAliasesDoNotBlowUp(t *testing.T) {
	// Each level doubles the expanded size; the walk visits each node once.
	var b strings.Builder

	b.WriteString("overlay:\n  name: x\n  image: y\n  options:\n    l0: &l0 [a, b]\n")

	for i := 1; i < 40; i++ {
		fmt.Fprintf(&b, "    l%d: &l%d [*l%d, *l%d]\n", i, i, i-1, i-1)
	}

	// The YAML library refuses this much alias expansion; what matters is
	// that Load returns, with an error.
	if _, err := schematic.Load([]byte(b.String())); err == nil {
		t.Error("Load accepted a document expanding to 2^40 items")
	}
}
