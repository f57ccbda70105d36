package sops

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"filippo.io/age"
	"go.yaml.in/yaml/v4"
)

func TestDecrypt_WrongKeyIsNoMatchingKey(t *testing.T) {
	stranger, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	data := readFixture(t, "encrypted/bundle.yaml")
	tests := []struct {
		name string
		ids  []age.Identity
	}{
		{"identity of another recipient", []age.Identity{stranger}},
		{"second throwaway key, not a recipient of this file", identitiesFrom(t, keyFile2)},
		{"no identities at all", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Decrypt(data, tt.ids)
			if !errors.Is(err, ErrNoMatchingKey) {
				t.Fatalf("got %v, want ErrNoMatchingKey", err)
			}
			if out != nil {
				t.Errorf("output returned with the error")
			}
			if errors.Is(err, ErrTampered) {
				t.Errorf("a missing key is not tampering: %v", err)
			}
		})
	}
}

func TestDecrypt_NoMatchingKeyNamesTheRecipients(t *testing.T) {
	stranger, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	_, err = Decrypt(readFixture(t, "encrypted/bundle.two-recipients.yaml"), []age.Identity{stranger})
	for _, keyFile := range []string{keyFile1, keyFile2} {
		id := identitiesFrom(t, keyFile)[0].(*age.X25519Identity)
		if !strings.Contains(err.Error(), id.Recipient().String()) {
			t.Errorf("error %q does not name recipient %s", err, id.Recipient())
		}
	}
}

func TestDecrypt_NotEncrypted(t *testing.T) {
	tests := []struct {
		name string
		data string
	}{
		{"plaintext secrets bundle", string(readFixture(t, "plain/bundle.yaml"))},
		{"empty input", ""},
		{"empty document", "---\n"},
		{"sops key that is not a mapping", "sops: just a word\n"},
		{"sops mapping without a mac", "sops:\n    version: 3.11.0\nkey: value\n"},
		{"sops block nested below the top level", "outer:\n    sops:\n        mac: x\n"},
		{"top-level list", "- sops\n- mac\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Decrypt([]byte(tt.data), identitiesFrom(t, keyFile1)); !errors.Is(err, ErrNotEncrypted) {
				t.Errorf("got %v, want ErrNotEncrypted", err)
			}
			if IsEncrypted([]byte(tt.data)) {
				t.Errorf("IsEncrypted = true, want false")
			}
		})
	}
}

func TestDecrypt_InvalidYAMLIsFormatError(t *testing.T) {
	_, err := Decrypt([]byte("cluster:\n  secret: 'unterminated\n"), identitiesFrom(t, keyFile1))
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("got %v, want a *FormatError", err)
	}
}

func TestIsEncrypted_EveryFixture(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			if !IsEncrypted(readFixture(t, "encrypted/"+f.name)) {
				t.Errorf("IsEncrypted = false for a sops-encrypted file")
			}
			if IsEncrypted(readFixture(t, "plain/"+f.plaintext)) {
				t.Errorf("IsEncrypted = true for its plaintext")
			}
		})
	}
}

// TestDecrypt_ErrorsNeverShowSecrets collects every error the tamper cases
// and key mismatches produce and scans their messages for any plaintext
// value of the fixtures, the data keys and the age secret keys.
func TestDecrypt_ErrorsNeverShowSecrets(t *testing.T) {
	ids := identitiesFrom(t, keyFile1)
	secrets := []string{leakCanary}
	for _, f := range fixtures {
		for _, leaf := range plaintextLeaves(t, readFixture(t, "plain/"+f.plaintext)) {
			// Short scalars such as "2" or "true" also occur in line numbers
			// and words of ordinary messages.
			if len(strings.TrimSpace(leaf)) >= 6 {
				secrets = append(secrets, strings.TrimSpace(leaf))
			}
		}
		key := dataKeyOf(t, readFixture(t, "encrypted/"+f.name), ids)
		secrets = append(secrets, hex.EncodeToString(key), strings.ToUpper(hex.EncodeToString(key)),
			base64.StdEncoding.EncodeToString(key), string(key))
	}
	for _, keyFile := range []string{keyFile1, keyFile2} {
		text, err := os.ReadFile(keyFile)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(text), "\n") {
			if strings.HasPrefix(line, "AGE-SECRET-KEY-") {
				secrets = append(secrets, line, strings.ToLower(line))
			}
		}
	}

	var errs []error
	for _, tc := range tamperCases() {
		data := readFixture(t, "encrypted/"+tc.fixture)
		key := dataKeyOf(t, data, ids)
		tampered := editYAML(t, data, func(doc *yaml.Node) { tc.edit(t, doc, key) })
		if _, err := Decrypt(tampered, ids); err != nil {
			errs = append(errs, err)
		}
	}
	stranger, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fixtures {
		_, err := Decrypt(readFixture(t, "encrypted/"+f.name), []age.Identity{stranger})
		errs = append(errs, err)
	}
	_, err = IdentitiesFromEnv(fakeEnv(t, map[string]string{
		"SOPS_AGE_KEY": "AGE-SECRET-KEY-1" + strings.Repeat("Q", 58) + "\n" + leakCanary,
	}), fakeFS(nil))
	errs = append(errs, err)

	if len(errs) < 25 {
		t.Fatalf("only %d errors collected; the scan would prove little", len(errs))
	}
	for _, err := range errs {
		if err == nil {
			continue
		}
		msg := err.Error()
		for _, s := range secrets {
			if strings.Contains(msg, s) {
				t.Errorf("error message shows a secret (%d bytes): %q", len(s), msg)
			}
		}
	}
}

func TestDecrypt_RefusesAliasExpansionBombs(t *testing.T) {
	bomb := `a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]` + "\n"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		prev := string(rune(name[0] - 1))
		bomb += name + ": &" + name + " [" + strings.Repeat("*"+prev+", ", 9) + "*" + prev + "]\n"
	}
	tests := []struct {
		name   string
		prefix string
	}{
		{"billion laughs", bomb},
		{"alias to its own ancestor", "r: &r\n    - *r\n"},
	}
	bundle := string(readFixture(t, "encrypted/bundle.yaml"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := Decrypt([]byte(tt.prefix+bundle), identitiesFrom(t, keyFile1))
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a *FormatError", err)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v to refuse", d)
			}
		})
	}
}
