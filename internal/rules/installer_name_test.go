package rules_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/rules"
	"github.com/talops/talops/internal/testlab"
)

// The installer talops.yaml names for a node (installer:, of the cluster or of its
// schematic) is the node's installer: a patch naming it is accepted, as the default is
// without the setting; the legacy and the platform-prefixed names of a metal installer
// stay one image either way round; another name is a mismatch that names the setting.
func TestInstallerMismatch_AcceptsTheInstallerTalopsYAMLNames(t *testing.T) {
	ids := labSchematicIDs(t)
	gpu := ids["gpu"] + ":v1.13.9"

	for _, tc := range []struct {
		name, platform, setting, image string
		// onSchematic writes the setting on the gpu schematic instead of the cluster.
		onSchematic, secureBoot, accepted bool
		// message is a part of the mismatch's message.
		message string
	}{
		{name: "the cluster's installer on nocloud", platform: "nocloud", setting: "installer", image: "factory.talos.dev/installer/" + gpu, accepted: true},
		{name: "the schematic's installer on nocloud", platform: "nocloud", setting: "installer", onSchematic: true, image: "factory.talos.dev/installer/" + gpu, accepted: true},
		{name: "the cluster's installer with secure boot", platform: "nocloud", setting: "installer", secureBoot: true, image: "factory.talos.dev/installer-secureboot/" + gpu, accepted: true},
		{name: "another platform's installer named outright", platform: "nocloud", setting: "metal-installer", image: "factory.talos.dev/metal-installer/" + gpu, accepted: true},
		{name: "the platform-prefixed name of a metal node's legacy setting", platform: "metal", setting: "installer", image: "factory.talos.dev/metal-installer/" + gpu, accepted: true},
		{
			name: "the platform's installer beside the setting is another image", platform: "nocloud", setting: "installer",
			image: "factory.talos.dev/nocloud-installer/" + gpu, message: "repository nocloud-installer (not installer: installer installer)",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := testlab.On113(t)
			testlab.Edit(t, files, "talops.yaml", "platform: nocloud\n", "platform: "+tc.platform+"\n")

			if tc.onSchematic {
				testlab.Edit(t, files, "talops.yaml", "  gpu: schematics/gpu.yaml\n", "  gpu: {file: schematics/gpu.yaml, installer: "+tc.setting+"}\n")
			} else {
				testlab.Edit(t, files, "talops.yaml", "platform: "+tc.platform+"\n", "platform: "+tc.platform+"\ninstaller: "+tc.setting+"\n")
			}

			if tc.secureBoot {
				testlab.Edit(t, files, "talops.yaml", "    schematic: gpu\n", "    schematic: gpu\n    secureBoot: true\n")
			}

			patchGPUWorkerInstaller(t, files, tc.image)

			fs := checkCodes(t, files, false, installerCodes...)

			switch {
			case tc.accepted && len(fs) != 0:
				t.Errorf("want %s accepted, got %+v", tc.image, fs)
			case !tc.accepted && (len(fs) != 1 || fs[0].Code != rules.CodeInstallerMismatch || !strings.Contains(fs[0].Message, tc.message)):
				t.Errorf("want one installer.mismatch saying %q for %s, got %+v", tc.message, tc.image, fs)
			}
		})
	}
}
