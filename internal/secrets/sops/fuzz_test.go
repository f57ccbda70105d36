package sops

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/testlab/hostile"
)

// FuzzDecrypt checks that no input makes Decrypt panic, that every error it
// returns belongs to a documented class, and that whatever it accepts is an
// encrypted document whose output is valid YAML.
func FuzzDecrypt(f *testing.F) {
	for _, dir := range []string{"encrypted", "plain"} {
		files, err := filepath.Glob(filepath.Join("testdata", dir, "*.yaml"))
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte("a: &a [*a]\nsops: {mac: x}\n"))
	f.Add([]byte("a: " + hostile.AliasBomb(9) + "\nsops: {mac: x}\n"))
	f.Add([]byte("sops:\n    mac: ''\n    lastmodified: '2024-01-01T00:00:00Z'\n    age: [{recipient: x, enc: y}]\n"))

	ids, err := IdentitiesFromEnv(func(name string) string {
		if name == "SOPS_AGE_KEY_FILE" {
			return keyFile1
		}
		return ""
	}, os.ReadFile)
	if err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		hostile.Bounded(t, func() {
			encrypted := IsEncrypted(data)
			out, err := Decrypt(data, ids)
			if err != nil {
				if out != nil {
					t.Errorf("output returned along with error %v", err)
				}
				var fe *FormatError
				var ve *ValueError
				if !errors.Is(err, ErrNotEncrypted) && !errors.Is(err, ErrNoMatchingKey) &&
					!errors.Is(err, ErrTampered) && !errors.Is(err, ErrUnsupported) &&
					!errors.As(err, &fe) && !errors.As(err, &ve) {
					t.Errorf("unclassified error: %v", err)
				}
				if errors.Is(err, ErrNotEncrypted) == encrypted && !errors.As(err, &fe) {
					t.Errorf("IsEncrypted = %v disagrees with %v", encrypted, err)
				}
				return
			}
			if !encrypted {
				t.Errorf("Decrypt accepted a document IsEncrypted rejects")
			}
			dec := yaml.NewDecoder(bytes.NewReader(out))
			for {
				var v any
				if err := dec.Decode(&v); err != nil {
					if err.Error() != "EOF" {
						t.Errorf("output is not valid YAML: %v", err)
					}
					break
				}
			}
		})
	})
}

// FuzzIdentities reads arbitrary SOPS_AGE_KEY text: no panic, and an error that never
// names a secret key it was given.
func FuzzIdentities(f *testing.F) {
	f.Add("# created: 2026\nAGE-SECRET-KEY-1QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ\n")
	f.Add("AGE-SECRET-KEY-1\n")
	f.Add("age1notakey\n\n")

	f.Fuzz(func(t *testing.T, text string) {
		_, err := IdentitiesFromEnv(func(k string) string {
			if k == "SOPS_AGE_KEY" {
				return text
			}

			return ""
		}, func(string) ([]byte, error) { return nil, os.ErrNotExist })
		if err != nil && strings.Contains(strings.ToUpper(err.Error()), "AGE-SECRET-KEY-1") {
			t.Errorf("the error names a secret key: %v", err)
		}
	})
}
