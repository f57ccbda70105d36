package rules_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/rules"
	"github.com/talops/talops/internal/schematic"
	"github.com/talops/talops/internal/testlab"
)

var schematicCodes = []string{rules.CodeSchematicDuplicateExtension, rules.CodeSchematicUnsorted}

func TestSchematicRules_HandWrittenListsThatChangeTheID(t *testing.T) {
	sortedGPU, err := schematic.Load([]byte("customization:\n  systemExtensions:\n    officialExtensions:\n" +
		"      - siderolabs/nfs-utils\n      - siderolabs/nvidia-container-toolkit-lts\n" +
		"      - siderolabs/nvidia-open-gpu-kernel-modules-lts\n      - siderolabs/qemu-guest-agent\n"))
	if err != nil {
		t.Fatal(err)
	}

	uiID, err := sortedGPU.ID()
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name, old, new string
		want           []string // "code line" per finding
		message        string
	}{
		{
			name:    "an extension listed twice",
			old:     "      - siderolabs/qemu-guest-agent\n",
			new:     "      - siderolabs/qemu-guest-agent\n      - siderolabs/qemu-guest-agent\n",
			want:    []string{"schematic.duplicate-extension 10"},
			message: "schematic gpu lists siderolabs/qemu-guest-agent more than once",
		},
		{
			name:    "extensions out of the UI's order",
			old:     "      - siderolabs/nfs-utils\n      - siderolabs/nvidia-container-toolkit-lts\n",
			new:     "      - siderolabs/nvidia-container-toolkit-lts\n      - siderolabs/nfs-utils\n",
			want:    []string{"schematic.unsorted 7"},
			message: "schematic gpu lists siderolabs/nfs-utils after siderolabs/nvidia-container-toolkit-lts; the factory UI sorts extensions, so the same set chosen there has ID " + uiID,
		},
		{
			name: "a repeat that also breaks the order",
			old:  "      - siderolabs/qemu-guest-agent\n",
			new:  "      - siderolabs/qemu-guest-agent\n      - siderolabs/nfs-utils\n",
			want: []string{"schematic.duplicate-extension 10", "schematic.unsorted 10"},
			// The UI's ID is that of the set: sorted and listed once.
			message: "has ID " + uiID,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := testlab.Files(t)
			testlab.Edit(t, files, "schematics/gpu.yaml", tc.old, tc.new)

			fs := checkCodes(t, files, true, schematicCodes...)

			var got []string
			for _, f := range fs {
				got = append(got, f.Code+" "+strconv.Itoa(f.Line))

				if f.Severity != finding.Info || f.File != "examples/homelab/schematics/gpu.yaml" || f.Node != "" ||
					!strings.HasPrefix(f.Path, "customization.systemExtensions.officialExtensions[") {
					t.Errorf("finding = %+v", f)
				}
			}

			if strings.Join(got, ", ") != strings.Join(tc.want, ", ") {
				t.Fatalf("findings = %v, want %v", got, tc.want)
			}

			if !strings.Contains(fs[len(fs)-1].Message, tc.message) {
				t.Errorf("message lacks %q:\n%s", tc.message, fs[len(fs)-1].Message)
			}
		})
	}
}

func TestSchematicRules_SortedListsOfTheLabAreQuiet(t *testing.T) {
	if fs := checkCodes(t, testlab.Files(t), true, schematicCodes...); len(fs) != 0 {
		t.Errorf("findings = %+v", fs)
	}
}
