package schematic

import (
	"fmt"
	"strings"
)

// Bootloader is the bootloader the factory puts into images.
//
// It is an integer written as its name, like the factory's own type: the zero
// value is "none", so `bootloader: none` is left out of the canonical encoding
// and has the same ID as no bootloader at all.
type Bootloader int

// Bootloaders the factory knows.
const (
	BootloaderNone     Bootloader = iota // none
	BootloaderDualBoot                   // dual-boot: sd-boot for UEFI, GRUB for BIOS
	BootloaderSDBoot                     // sd-boot
	BootloaderGrub                       // grub
)

var bootloaderNames = [...]string{"none", "dual-boot", "sd-boot", "grub"}

// ParseBootloader reads a bootloader name; the factory also accepts it in any case.
func ParseBootloader(name string) (Bootloader, error) {
	for i, n := range bootloaderNames {
		if name == n || strings.ToLower(name) == n {
			return Bootloader(i), nil
		}
	}

	return 0, fmt.Errorf("unknown bootloader %q (want one of %s)", name, strings.Join(bootloaderNames[:], ", "))
}

// String returns the bootloader's name.
func (b Bootloader) String() string {
	if b < 0 || int(b) >= len(bootloaderNames) {
		return fmt.Sprintf("Bootloader(%d)", int(b))
	}

	return bootloaderNames[b]
}

// MarshalText writes the name; a value outside the enum is an error rather
// than a document the factory would reject.
func (b Bootloader) MarshalText() ([]byte, error) {
	if b < 0 || int(b) >= len(bootloaderNames) {
		return nil, fmt.Errorf("unknown bootloader %d", int(b))
	}

	return []byte(bootloaderNames[b]), nil
}

// UnmarshalText reads the name.
func (b *Bootloader) UnmarshalText(text []byte) error {
	v, err := ParseBootloader(string(text))
	if err != nil {
		return err
	}

	*b = v

	return nil
}
