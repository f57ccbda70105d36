package sops

import (
	"crypto/rand"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"filippo.io/age"
	"github.com/siderolabs/talos/pkg/machinery/config"
	gensecrets "github.com/siderolabs/talos/pkg/machinery/config/generate/secrets"
	"go.yaml.in/yaml/v4"
)

// encryptTime is the fixed last-modified time of the tests' encryptions.
var encryptTime = time.Date(2026, 11, 29, 16, 41, 3, 0, time.UTC)

// testRecipients returns the recipients of the throwaway test keys.
func testRecipients(t *testing.T, keyFiles ...string) []*age.X25519Recipient {
	t.Helper()
	var out []*age.X25519Recipient
	for _, f := range keyFiles {
		for _, id := range identitiesFrom(t, f) {
			out = append(out, id.(*age.X25519Identity).Recipient())
		}
	}
	return out
}

func encryptForTest(t *testing.T, plain []byte, keyFiles ...string) []byte {
	t.Helper()
	out, err := Encrypt(plain, EncryptOptions{Recipients: testRecipients(t, keyFiles...), Now: encryptTime, Rand: rand.Reader})
	if err != nil {
		t.Fatalf("Encrypt: %v", err)
	}
	return out
}

// freshBundle is a bundle as talops init makes it, in the YAML machinery writes.
func freshBundle(t *testing.T) []byte {
	t.Helper()
	contract, err := config.ParseContractFromVersion("v1.13.0")
	if err != nil {
		t.Fatal(err)
	}
	b, err := gensecrets.NewBundle(gensecrets.NewFixedClock(encryptTime), contract)
	if err != nil {
		t.Fatal(err)
	}
	data, err := yaml.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// valueTypes holds every kind of value Encrypt supports, where a bundle has
// them and beyond.
const valueTypes = `cluster:
    id: 9fKq2TpV0cHn4mWx7LrB1sYd8eJa3uZo6gNi5kQv0Xw=
    secret: Zm9vYmFy
secrets:
    bootstraptoken: q8w2e4.r6t8y0u2i4o6p8a0
    aescbcencryptionsecret: null
    empty: ""
certs:
    os:
        crt: |
            -----BEGIN CERTIFICATE-----
            MIIBfake
            -----END CERTIFICATE-----
numbers:
    answer: 42
    negative: -17
    ratio: 1.5
    whole_float: 3.0
flags:
    rotated: false
    kubespan: true
quoted:
    looks_like_bool: "yes"
    looks_like_int: "123"
when: 2024-01-02T03:04:05Z
sans:
    - 10.5.0.2
    - - nested
      - 7
    - inner:
        key: value
note_unencrypted: left in clear
clear_unencrypted:
    below: also clear
    count: 5
`

func TestEncrypt_DecryptsToTheSameValues(t *testing.T) {
	ids := identitiesFrom(t, keyFile1)
	for _, tc := range []struct {
		name  string
		plain []byte
	}{
		{"every value type", []byte(valueTypes)},
		{"a fresh machinery bundle", freshBundle(t)},
		{"the bundle fixture", readFixture(t, "plain/bundle.yaml")},
		{"an empty document", []byte("{}\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decrypt(encryptForTest(t, tc.plain, keyFile1), ids)
			if err != nil {
				t.Fatalf("Decrypt: %v", err)
			}
			assertDeepEqual(t, parseAll(t, got), parseAll(t, tc.plain))
			if g, w := keyOrder(t, got), keyOrder(t, tc.plain); !slices.Equal(g, w) {
				t.Errorf("key order differs:\n got: %v\nwant: %v", g, w)
			}
		})
	}
}

func TestEncrypt_EachRecipientDecrypts(t *testing.T) {
	data := encryptForTest(t, freshBundle(t), keyFile1, keyFile2)
	for _, keyFile := range []string{keyFile1, keyFile2} {
		if _, err := Decrypt(data, identitiesFrom(t, keyFile)); err != nil {
			t.Errorf("%s: %v", keyFile, err)
		}
	}
}

func TestEncrypt_NoPlaintextValueLeftButUnencryptedSuffix(t *testing.T) {
	data := encryptForTest(t, []byte(valueTypes), keyFile1)
	for _, leaf := range plaintextLeaves(t, []byte(valueTypes)) {
		if len(leaf) < 4 || leaf == "left in clear" || leaf == "also clear" {
			continue
		}
		if strings.Contains(string(data), leaf) {
			t.Errorf("plaintext %q appears in the encrypted document", leaf)
		}
	}
	for _, clear := range []string{"note_unencrypted: left in clear\n", "    below: also clear\n", "    count: 5\n"} {
		if !strings.Contains(string(data), clear) {
			t.Errorf("missing %q in clear", clear)
		}
	}
}

func TestEncrypt_LaysOutTheSopsBlockAsSops(t *testing.T) {
	data := encryptForTest(t, []byte("a: b\n"), keyFile1, keyFile2)
	want := regexp.MustCompile(`^a: ENC\[AES256_GCM,data:[A-Za-z0-9+/=]+,iv:[A-Za-z0-9+/=]{44},tag:[A-Za-z0-9+/=]{24},type:str\]
sops:
    age:
        - recipient: age1\w+
          enc: \|
            -----BEGIN AGE ENCRYPTED FILE-----
(            [A-Za-z0-9+/=]+\n)+            -----END AGE ENCRYPTED FILE-----
        - recipient: age1\w+
          enc: \|
            -----BEGIN AGE ENCRYPTED FILE-----
(            [A-Za-z0-9+/=]+\n)+            -----END AGE ENCRYPTED FILE-----
    lastmodified: "2026-11-29T16:41:03Z"
    mac: ENC\[AES256_GCM,data:[A-Za-z0-9+/=]+,iv:[A-Za-z0-9+/=]{44},tag:[A-Za-z0-9+/=]{24},type:str\]
    unencrypted_suffix: _unencrypted
    version: 3.11.0
$`)
	if !want.Match(data) {
		t.Errorf("layout differs from sops's:\n%s", data)
	}
}

func TestEncrypt_MACCoversTheValues(t *testing.T) {
	data := encryptForTest(t, []byte("a_unencrypted: one\nb: two\n"), keyFile1)
	tampered := strings.Replace(string(data), "a_unencrypted: one", "a_unencrypted: uno", 1)
	if _, err := Decrypt([]byte(tampered), identitiesFrom(t, keyFile1)); !errors.Is(err, ErrMACMismatch) {
		t.Errorf("Decrypt of a changed clear value: %v, want ErrMACMismatch", err)
	}
}

func TestEncrypt_RefusesWhatItCannotWrite(t *testing.T) {
	recipients := testRecipients(t, keyFile1)
	for _, tc := range []struct {
		name, plain string
		opts        EncryptOptions
		want        string
	}{
		{"no recipient", "a: b\n", EncryptOptions{Rand: rand.Reader}, "sops: encrypt: no age recipient"},
		{"no randomness", "a: b\n", EncryptOptions{Recipients: recipients}, "sops: encrypt: no source of randomness"},
		{"already encrypted", "a: b\nsops: {mac: x}\n", EncryptOptions{Recipients: recipients, Rand: rand.Reader}, "sops: malformed document: sops: the document already has a top-level sops key"},
		{"two documents", "a: b\n---\nc: d\n", EncryptOptions{Recipients: recipients, Rand: rand.Reader}, "sops: unsupported document: encrypt needs exactly one YAML document, found 2"},
		{"a comment", "a:\n    # secret hint\n    b: c\n", EncryptOptions{Recipients: recipients, Rand: rand.Reader}, "sops: unsupported document: encrypt does not take comments (a)"},
		{"a big integer", "a:\n    big: 18446744073709551615\n", EncryptOptions{Recipients: recipients, Rand: rand.Reader}, "sops: malformed document: a.big (line 2): value of an unsupported type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Encrypt([]byte(tc.plain), tc.opts)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestParseRecipient_NeverQuotesTheText(t *testing.T) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	if r, err := ParseRecipient(" " + id.Recipient().String() + "\n"); err != nil || r.String() != id.Recipient().String() {
		t.Errorf("ParseRecipient of a recipient: %v, %v", r, err)
	}
	for _, bad := range []string{id.String(), strings.ToLower(id.String()), "age1notarecipient", ""} {
		_, err := ParseRecipient(bad)
		if err == nil {
			t.Errorf("ParseRecipient accepted a bad value")
			continue
		}
		if bad != "" && strings.Contains(strings.ToLower(err.Error()), strings.ToLower(bad)) {
			t.Errorf("error quotes the value: %v", err)
		}
	}
}
