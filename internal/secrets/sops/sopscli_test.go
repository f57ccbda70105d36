//go:build sops

// The oracle tests: what Encrypt writes, the real sops CLI decrypts, and what
// sops itself writes from the same plaintext has the same layout. They run
// with `go test -tags sops ./internal/secrets/...` and the sops binary from
// $SOPS or PATH (.ci/run builds v3.11.0); without it they fail.

package sops

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sopsBinary finds the sops CLI; the oracle must not pass by skipping.
func sopsBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SOPS"); p != "" {
		return p
	}
	p, err := exec.LookPath("sops")
	if err != nil {
		t.Fatal("the sops CLI is needed: set SOPS or put sops on PATH (see internal/secrets/sops/testdata/README.md)")
	}
	return p
}

// runSops runs sops with an empty config (no .sops.yaml takes part) and
// only the given key file in its environment.
func runSops(t *testing.T, keyFile string, args ...string) []byte {
	t.Helper()
	abs, err := filepath.Abs(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sopsBinary(t), append([]string{"--config", os.DevNull}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "SOPS_AGE_KEY_FILE=" + abs}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sops %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// sopsTypes is valueTypes without the whole float, which sops prints as an
// integer.
var sopsTypes = strings.Replace(valueTypes, "    whole_float: 3.0\n", "", 1)

func TestSopsCLI_DecryptsWhatEncryptWrites(t *testing.T) {
	for _, tc := range []struct {
		name     string
		plain    []byte
		keyFiles []string
	}{
		{"a fresh machinery bundle", freshBundle(t), []string{keyFile1}},
		{"every value type", []byte(sopsTypes), []string{keyFile1}},
		{"two recipients, the second key", freshBundle(t), []string{keyFile1, keyFile2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := writeTemp(t, "secrets.sops.yaml", encryptForTest(t, tc.plain, tc.keyFiles...))
			got := runSops(t, tc.keyFiles[len(tc.keyFiles)-1], "decrypt", file)
			assertDeepEqual(t, parseAll(t, got), parseAll(t, tc.plain))
		})
	}
}

func TestSopsCLI_EncryptWritesSopsLayout(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plain []byte
	}{
		{"a fresh machinery bundle", freshBundle(t)},
		{"every value type", []byte(sopsTypes)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plainFile := writeTemp(t, "plain.yaml", tc.plain)
			recipient := testRecipients(t, keyFile1)[0].String()
			theirs := runSops(t, keyFile1, "encrypt", "--age", recipient, plainFile)
			ours := encryptForTest(t, tc.plain, keyFile1)
			if g, w := maskRandom(ours), maskRandom(theirs); g != w {
				t.Errorf("layout differs from sops encrypt (random parts masked)\n--- ours\n%s\n--- sops\n%s", g, w)
			}
		})
	}
}

var (
	encFields   = regexp.MustCompile(`(data|iv|tag):[A-Za-z0-9+/=]*`)
	armorLine   = regexp.MustCompile(`(?m)^( +)[A-Za-z0-9+/=]+$`)
	lastMod     = regexp.MustCompile(`(?m)^    lastmodified: .*$`)
	base64Chars = regexp.MustCompile(`[A-Za-z0-9+/=]`)
)

// maskRandom replaces what differs between two encryptions of the same
// plaintext (data keys, IVs, tags, age stanzas, the time) with x's of the
// same length: lengths and everything else must match.
func maskRandom(data []byte) string {
	s := encFields.ReplaceAllStringFunc(string(data), func(m string) string {
		name, value, _ := strings.Cut(m, ":")
		return name + ":" + strings.Repeat("x", len(value))
	})
	s = armorLine.ReplaceAllStringFunc(s, func(m string) string {
		return base64Chars.ReplaceAllString(m, "x")
	})
	return lastMod.ReplaceAllString(s, "    lastmodified: x")
}
