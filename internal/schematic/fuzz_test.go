package schematic_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/talops/talops/internal/schematic"
	"github.com/talops/talops/internal/testlab/hostile"
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
		"# opaque\nid: 376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba\n",
		"id: 376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba\ncustomization: {}\n",
		"id: &a 376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba\n<<: {id: *a}\n",
		"overlay: {name: x, image: y, options: " + hostile.AliasBomb(9) + "}\n",
	} {
		f.Add([]byte(seed))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		hostile.Bounded(t, func() {
			id, opaque := schematic.Opaque(data)

			s, err := schematic.Load(data)

			var oe *schematic.OpaqueError
			if isOpaqueErr := errors.As(err, &oe); opaque != isOpaqueErr || (opaque && oe.ID != id) {
				t.Fatalf("Opaque = %q, %v but Load = %v\ninput: %q", id, opaque, err, data)
			}

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
	})
}
