package schematic_test

import (
	"testing"

	"github.com/talops/talops/internal/schematic"
)

func TestParseBootloader_NamesInAnyCase(t *testing.T) {
	for in, want := range map[string]schematic.Bootloader{
		"none":      schematic.BootloaderNone,
		"dual-boot": schematic.BootloaderDualBoot,
		"sd-boot":   schematic.BootloaderSDBoot,
		"SD-Boot":   schematic.BootloaderSDBoot,
		"GRUB":      schematic.BootloaderGrub,
	} {
		got, err := schematic.ParseBootloader(in)
		if err != nil || got != want {
			t.Errorf("ParseBootloader(%q) = %v, %v; want %v", in, got, err, want)
		}
	}

	for _, bad := range []string{"", "systemd-boot", "1", "dual_boot"} {
		if _, err := schematic.ParseBootloader(bad); err == nil {
			t.Errorf("ParseBootloader(%q) succeeded; want an error", bad)
		}
	}
}

func TestBootloader_EncodedAsLowercaseName(t *testing.T) {
	for src, want := range map[string]string{
		"customization: {bootloader: GRUB}":      "customization:\n    bootloader: grub\n",
		"customization: {bootloader: dual-boot}": "customization:\n    bootloader: dual-boot\n",
		"customization: {bootloader: None}":      "customization: {}\n",
	} {
		s, err := schematic.Load([]byte(src))
		if err != nil {
			t.Fatalf("Load(%q): %v", src, err)
		}

		got, _ := s.Marshal()
		if string(got) != want {
			t.Errorf("Marshal(Load(%q)) = %q, want %q", src, got, want)
		}
	}
}
