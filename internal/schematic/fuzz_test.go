package schematic_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/talops/talops/internal/schematic"
)

// FuzzLoad checks that Load never panics and that the canonical encoding is a
// fixed point: what Marshal writes, Load reads back to the same bytes and ID.
func FuzzLoad(f *testing.F) {
	for _, dir := range []string{vectorsDir, publishedDir} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}

			f.Add(data)
		}
	}

	for _, seed := range []string{
		"customization: {bootloader: sd-boot, meta: [{key: 0xa, value: '{}'}]}",
		"overlay: {name: x, image: y, options: {a: [1, 2.5, true, null, '0x10'], b: {c: d}}}",
		"customization:\n  <<: {extraKernelArgs: [a]}\n  extraKernelArgs: [b]\n",
		"customization:\n  embeddedMachineConfiguration: |\n    version: v1alpha1\n",
		"customization: {secureboot: {enrollKeys: force}, diskImage: {sectorSize: 4096}}",
	} {
		f.Add([]byte(seed))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := schematic.Load(data)
		if err != nil {
			return
		}

		first, err := s.Marshal()
		if err != nil {
			return // a value Load accepts but Marshal refuses is reported by Marshal, not lost
		}

		again, err := schematic.Load(first)
		if err != nil {
			t.Fatalf("Load(Marshal(s)) failed: %v\ninput: %q\ncanonical: %q", err, data, first)
		}

		second, err := again.Marshal()
		if err != nil {
			t.Fatalf("Marshal(Load(Marshal(s))) failed: %v\ncanonical: %q", err, first)
		}

		if !bytes.Equal(first, second) {
			t.Fatalf("canonical encoding is not stable\ninput:  %q\nfirst:  %q\nsecond: %q", data, first, second)
		}
	})
}
