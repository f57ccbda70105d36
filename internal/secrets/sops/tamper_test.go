package sops

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

type tamperCase struct {
	name    string
	fixture string // under testdata/encrypted
	edit    func(t *testing.T, doc *yaml.Node, dataKey []byte)
	check   func(t *testing.T, out []byte, err error)
}

func tamperCases() []tamperCase {
	return []tamperCase{
		{
			name:    "flipped bit in an encrypted value fails authentication",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				flipCiphertextBit(t, at(t, doc, "cluster.secret"))
			},
			check: wantValueError("cluster.secret"),
		},
		{
			name:    "encrypted value moved to another key fails authentication",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				at(t, doc, "cluster.secret").Value = at(t, doc, "cluster.id").Value
			},
			check: wantValueError("cluster.secret"),
		},
		{
			name:    "flipped bit in an encrypted list item names the item",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				flipCiphertextBit(t, at(t, doc, "talos.apiServerCertSANs[2]"))
			},
			check: wantValueError("talos.apiServerCertSANs[2]"),
		},
		{
			name:    "swapped encrypted list items break the MAC",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				list := at(t, doc, "talos.apiServerCertSANs")
				list.Content[0], list.Content[1] = list.Content[1], list.Content[0]
			},
			check: wantMACMismatch,
		},
		{
			name:    "removed encrypted value breaks the MAC",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				removeKey(t, at(t, doc, "trustdinfo"), "token")
			},
			check: wantMACMismatch,
		},
		{
			name:    "encrypted value emptied breaks the MAC",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				at(t, doc, "cluster.secret").Value = ""
			},
			check: wantMACMismatch,
		},
		{
			name:    "flipped bit in the stored MAC is a MAC mismatch",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				flipCiphertextBit(t, at(t, doc, "sops.mac"))
			},
			check: wantMACMismatch,
		},
		{
			name:    "MAC copied from another document is a MAC mismatch",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				var other yaml.Node
				if err := yaml.Unmarshal(readFixture(t, "encrypted/bundle.encrypted-regex.yaml"), &other); err != nil {
					t.Fatal(err)
				}
				at(t, doc, "sops.mac").Value = at(t, &other, "sops.mac").Value
			},
			check: wantMACMismatch,
		},
		{
			name:    "changed lastmodified is a MAC mismatch",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				at(t, doc, "sops.lastmodified").Value = "2001-02-03T04:05:06Z"
			},
			check: wantMACMismatch,
		},
		{
			name:    "value under the unencrypted suffix changed breaks the MAC",
			fixture: "suffix.unencrypted-suffix.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				at(t, doc, "cluster.name_plain").Value = "changed-by-attacker"
			},
			check: wantMACMismatch,
		},
		{
			name:    "value deep in a subtree under the unencrypted suffix changed breaks the MAC",
			fixture: "suffix.unencrypted-suffix.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				at(t, doc, "cluster.network_plain.mtu").Value = "9000"
			},
			check: wantMACMismatch,
		},
		{
			name:    "key added under the unencrypted suffix breaks the MAC",
			fixture: "suffix.unencrypted-suffix.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				addKey(at(t, doc, "cluster"), "injected_plain", "attacker-value")
			},
			check: wantMACMismatch,
		},
		{
			name:    "value left in clear by encrypted_regex changed breaks the MAC",
			fixture: "bundle.encrypted-regex.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				at(t, doc, "cluster.id").Value = "changed-by-attacker"
			},
			check: wantMACMismatch,
		},
		{
			name:    "value under the unencrypted suffix changed is accepted with mac_only_encrypted, as sops accepts it",
			fixture: "suffix.mac-only-encrypted.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				at(t, doc, "cluster.name_plain").Value = "changed-by-attacker"
			},
			check: func(t *testing.T, out []byte, err error) {
				t.Helper()
				if err != nil {
					t.Fatalf("Decrypt: %v", err)
				}
				if !strings.Contains(string(out), "name_plain: changed-by-attacker") {
					t.Errorf("output lacks the changed value:\n%s", out)
				}
			},
		},
		{
			name:    "encrypted value changed with mac_only_encrypted still fails authentication",
			fixture: "suffix.mac-only-encrypted.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				flipCiphertextBit(t, at(t, doc, "secrets.bootstraptoken"))
			},
			check: wantValueError("secrets.bootstraptoken"),
		},
		{
			name:    "mac_only_encrypted removed from the metadata breaks the MAC",
			fixture: "suffix.mac-only-encrypted.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				removeKey(t, at(t, doc, "sops"), "mac_only_encrypted")
			},
			check: wantMACMismatch,
		},
		{
			name:    "encrypted_regex changed to cover no key breaks the MAC",
			fixture: "bundle.encrypted-regex.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				at(t, doc, "sops.encrypted_regex").Value = "^nothing$"
			},
			check: wantMACMismatch,
		},
		{
			name:    "forged value with the real data key breaks the MAC",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, key []byte) {
				at(t, doc, "cluster.secret").Value = seal(t, key, leakCanary, "cluster:secret:", "str")
			},
			check: wantMACMismatch,
		},
		{
			name:    "type tag swapped from int to str is accepted, as sops accepts it: the tag is not authenticated",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				n := at(t, doc, "talos.schemaVersion")
				n.Value = strings.Replace(n.Value, "type:int]", "type:str]", 1)
			},
			check: func(t *testing.T, out []byte, err error) {
				t.Helper()
				if err != nil {
					t.Fatalf("Decrypt: %v", err)
				}
				if !strings.Contains(string(out), `schemaVersion: "2"`) {
					t.Errorf("want the value decrypted as the string \"2\":\n%s", out)
				}
			},
		},
		{
			name:    "encrypted comment with line breaks stays a comment",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, key []byte) {
				list := at(t, doc, "talos.apiServerCertSANs")
				list.Content = append(list.Content, str(seal(t, key, "note\ninjected: true\r\n- 10.6.6.6", "talos:apiServerCertSANs:", "comment")))
			},
			check: func(t *testing.T, out []byte, err error) {
				t.Helper()
				if err != nil {
					t.Fatalf("Decrypt: %v", err)
				}
				doc := parseAll(t, out)[0].(map[string]any)
				if _, ok := doc["injected"]; ok {
					t.Errorf("comment text became a key:\n%s", out)
				}
				if sans := doc["talos"].(map[string]any)["apiServerCertSANs"].([]any); len(sans) != 3 {
					t.Errorf("comment text became a list item: %v", sans)
				}
				if !strings.Contains(string(out), "#injected: true") {
					t.Errorf("comment lost:\n%s", out)
				}
			},
		},
		{
			name:    "plaintext added where values are encrypted is malformed",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				addKey(at(t, doc, "cluster"), "injected", leakCanary)
			},
			check: wantFormatError("cluster.injected"),
		},
		{
			name:    "plaintext int where values are encrypted is malformed",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				n := at(t, doc, "talos.schemaVersion")
				n.Value, n.Tag, n.Style = "5", "!!int", 0
			},
			check: wantFormatError("talos.schemaVersion"),
		},
		{
			name:    "unknown value type is malformed",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				n := at(t, doc, "cluster.secret")
				n.Value = strings.Replace(n.Value, "type:str]", "type:weird]", 1)
			},
			check: wantFormatError("cluster.secret"),
		},
		{
			name:    "decrypted text that is not of its declared type is malformed",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, key []byte) {
				at(t, doc, "talos.schemaVersion").Value = seal(t, key, leakCanary, "talos:schemaVersion:", "int")
			},
			check: wantFormatError("talos.schemaVersion"),
		},
		{
			name:    "encrypted comment in place of a value is malformed",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, key []byte) {
				at(t, doc, "cluster.secret").Value = seal(t, key, leakCanary, "cluster:secret:", "comment")
			},
			check: wantFormatError("cluster.secret"),
		},
		{
			name:    "corrupted age stanza leaves no key and names the stanza",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				n := at(t, doc, "sops.age[0].enc")
				n.Value = strings.Replace(n.Value, "-----BEGIN AGE ENCRYPTED FILE-----\n", "-----BEGIN AGE ENCRYPTED FILE-----\nAAAA\n", 1)
			},
			check: func(t *testing.T, _ []byte, err error) {
				t.Helper()
				if !errors.Is(err, ErrNoMatchingKey) {
					t.Errorf("got %v, want ErrNoMatchingKey", err)
				}
				var fe *FormatError
				if !errors.As(err, &fe) || fe.Path != "sops.age[0].enc" {
					t.Errorf("got %v, want a *FormatError at sops.age[0].enc", err)
				}
			},
		},
		{
			name:    "two encryption rules in the metadata are malformed",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				addKey(at(t, doc, "sops"), "encrypted_regex", "^secret$")
			},
			check: wantFormatError("sops"),
		},
		{
			name:    "invalid regular expression in the metadata is malformed",
			fixture: "bundle.encrypted-regex.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				at(t, doc, "sops.encrypted_regex").Value = "(unclosed"
			},
			check: wantFormatError("sops.encrypted_regex"),
		},
		{
			name:    "lastmodified that is not RFC 3339 is malformed",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				at(t, doc, "sops.lastmodified").Value = "yesterday"
			},
			check: wantFormatError("sops.lastmodified"),
		},
		{
			name:    "Shamir key groups are unsupported",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				meta := at(t, doc, "sops")
				group := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("age"), at(t, doc, "sops.age")}}
				removeKey(t, meta, "age")
				meta.Content = append(meta.Content, str("key_groups"), &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{group, group}})
			},
			check: func(t *testing.T, _ []byte, err error) {
				t.Helper()
				if !errors.Is(err, ErrUnsupported) {
					t.Errorf("got %v, want ErrUnsupported", err)
				}
			},
		},
		{
			name:    "duplicate key is malformed",
			fixture: "bundle.yaml",
			edit: func(t *testing.T, doc *yaml.Node, _ []byte) {
				c := at(t, doc, "cluster")
				c.Content = append(c.Content, str("secret"), c.Content[3])
			},
			check: wantFormatError("cluster.secret"),
		},
	}
}

// leakCanary is a plaintext that no error message may ever show.
const leakCanary = "LEAK-CANARY-d41d8cd98f00b204"

func TestDecrypt_TamperedDocuments(t *testing.T) {
	ids := identitiesFrom(t, keyFile1)
	for _, tc := range tamperCases() {
		t.Run(tc.name, func(t *testing.T) {
			data := readFixture(t, "encrypted/"+tc.fixture)
			key := dataKeyOf(t, data, ids)
			tampered := editYAML(t, data, func(doc *yaml.Node) { tc.edit(t, doc, key) })
			out, err := Decrypt(tampered, ids)
			if err != nil && out != nil {
				t.Errorf("output returned along with error %v", err)
			}
			tc.check(t, out, err)
		})
	}
}

func wantMACMismatch(t *testing.T, _ []byte, err error) {
	t.Helper()
	if !errors.Is(err, ErrMACMismatch) || !errors.Is(err, ErrTampered) {
		t.Errorf("got %v, want ErrMACMismatch", err)
	}
}

func wantValueError(path string) func(*testing.T, []byte, error) {
	return func(t *testing.T, _ []byte, err error) {
		t.Helper()
		var ve *ValueError
		if !errors.As(err, &ve) {
			t.Fatalf("got %v, want a *ValueError", err)
		}
		if ve.Path != path || ve.Line == 0 {
			t.Errorf("error at %s line %d, want %s and a line", ve.Path, ve.Line, path)
		}
		if !errors.Is(err, ErrTampered) || errors.Is(err, ErrMACMismatch) {
			t.Errorf("got %v, want ErrTampered but not ErrMACMismatch", err)
		}
	}
}

func wantFormatError(path string) func(*testing.T, []byte, error) {
	return func(t *testing.T, _ []byte, err error) {
		t.Helper()
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("got %v, want a *FormatError", err)
		}
		if fe.Path != path {
			t.Errorf("error at %q, want %q: %v", fe.Path, path, err)
		}
		if errors.Is(err, ErrTampered) {
			t.Errorf("malformed document reported as tampered: %v", err)
		}
	}
}

func str(s string) *yaml.Node {
	n := &yaml.Node{}
	n.SetString(s)
	return n
}

func addKey(m *yaml.Node, key, value string) {
	m.Content = append(m.Content, str(key), str(value))
}

func removeKey(t *testing.T, m *yaml.Node, key string) {
	t.Helper()
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = slices.Delete(m.Content, i, i+2)
			return
		}
	}
	t.Fatalf("no key %s to remove", key)
}
