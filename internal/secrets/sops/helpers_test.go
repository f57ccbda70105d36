package sops

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"filippo.io/age"
	"go.yaml.in/yaml/v4"
)

const (
	keyFile1 = "testdata/THROWAWAY-age-key.txt"
	keyFile2 = "testdata/THROWAWAY-age-key-2.txt"
)

// fakeEnv is a strict environment: reading a variable the code has no
// business with fails the test.
func fakeEnv(t *testing.T, vars map[string]string) func(string) string {
	t.Helper()
	return func(name string) string {
		switch name {
		case "SOPS_AGE_KEY", "SOPS_AGE_KEY_FILE", "XDG_CONFIG_HOME", "HOME":
			return vars[name]
		}
		t.Errorf("unexpected environment variable %s read", name)
		return ""
	}
}

// fakeFS serves files from a map and reports a missing file the way
// os.ReadFile does.
func fakeFS(files map[string]string) func(string) ([]byte, error) {
	return func(path string) ([]byte, error) {
		if s, ok := files[path]; ok {
			return []byte(s), nil
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
}

func identitiesFrom(t *testing.T, keyFile string) []age.Identity {
	t.Helper()
	ids, err := IdentitiesFromEnv(fakeEnv(t, map[string]string{"SOPS_AGE_KEY_FILE": keyFile}), os.ReadFile)
	if err != nil {
		t.Fatalf("load %s: %v", keyFile, err)
	}
	return ids
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// parseAll decodes every document of a YAML stream into plain Go values.
func parseAll(t *testing.T, data []byte) []any {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []any
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("parse YAML: %v", err)
		}
		docs = append(docs, v)
	}
}

// keyOrder lists every mapping key path in document order.
func keyOrder(t *testing.T, data []byte) []string {
	t.Helper()
	var out []string
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path)
			}
		case yaml.AliasNode:
			walk(n.Alias, path)
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				p := joinPath(path, n.Content[i].Value)
				out = append(out, p)
				walk(n.Content[i+1], p)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, path+"["+strconv.Itoa(i)+"]")
			}
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for i := 0; ; i++ {
		var doc yaml.Node
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			t.Fatalf("parse YAML: %v", err)
		}
		walk(&doc, "doc"+strconv.Itoa(i))
	}
}

// plaintextLeaves returns every string, number and boolean in a plaintext
// fixture, as text.
func plaintextLeaves(t *testing.T, data []byte) []string {
	t.Helper()
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		case string:
			out = append(out, v)
			out = append(out, strings.Split(v, "\n")...)
		case nil:
		default:
			out = append(out, strings.TrimSpace(strings.ReplaceAll(yamlText(t, v), "\n", "")))
		}
	}
	for _, d := range parseAll(t, data) {
		walk(d)
	}
	return out
}

func yamlText(t *testing.T, v any) string {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// editYAML parses an encrypted fixture, lets edit change its nodes and
// encodes it again.
func editYAML(t *testing.T, data []byte, edit func(doc *yaml.Node)) []byte {
	t.Helper()
	var docs []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, &doc)
	}
	edit(docs[0])
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(4)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// at finds the node at a dotted path such as "cluster.secret" or
// "talos.apiServerCertSANs[1]" in a document node.
func at(t *testing.T, doc *yaml.Node, path string) *yaml.Node {
	t.Helper()
	n := doc.Content[0]
	for _, part := range strings.Split(path, ".") {
		key, index, hasIndex := strings.Cut(strings.TrimSuffix(part, "]"), "[")
		n = lookup(n, key)
		if n == nil {
			t.Fatalf("no node at %s", path)
		}
		if hasIndex {
			i, _ := strconv.Atoi(index)
			n = n.Content[i]
		}
	}
	return n
}

// flipCiphertextBit flips one bit of the data of an ENC[...] value.
func flipCiphertextBit(t *testing.T, n *yaml.Node) {
	t.Helper()
	p, ok := parseEnc(n.Value)
	if !ok {
		t.Fatalf("%q is not an encrypted value", n.Value)
	}
	data, _ := base64.StdEncoding.DecodeString(p.data)
	data[0] ^= 1
	n.Value = strings.Replace(n.Value, "data:"+p.data, "data:"+base64.StdEncoding.EncodeToString(data), 1)
}

// dataKeyOf unwraps a fixture's data key, for tests that forge values the way
// only a key holder could.
func dataKeyOf(t *testing.T, data []byte, ids []age.Identity) []byte {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	n, ok := metadataNode(&doc)
	if !ok {
		t.Fatal("fixture has no sops metadata")
	}
	meta, err := parseMetadata(n)
	if err != nil {
		t.Fatal(err)
	}
	key, err := unwrapDataKey(meta.recipients, ids)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func assertDeepEqual(t *testing.T, got, want any) {
	t.Helper()
	if got, want := normalized(got), normalized(want); !reflect.DeepEqual(got, want) {
		t.Errorf("decrypted document differs from the plaintext:\n got: %#v\nwant: %#v", got, want)
	}
}

// seal encrypts a value the way sops does, for tests that forge values with
// the real data key.
func seal(t *testing.T, key []byte, plain, additionalData, typ string) string {
	t.Helper()
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	gcm, err := cipher.NewGCMWithNonceSize(block, 32)
	if err != nil {
		t.Fatal(err)
	}
	iv := make([]byte, 32)
	if _, err := rand.Read(iv); err != nil {
		t.Fatal(err)
	}
	out := gcm.Seal(nil, iv, []byte(plain), []byte(additionalData))
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("ENC[AES256_GCM,data:%s,iv:%s,tag:%s,type:%s]",
		b64(out[:len(out)-gcm.Overhead()]), b64(iv), b64(out[len(out)-gcm.Overhead():]), typ)
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// instant stands for a time.Time, whose zone pointer DeepEqual would
// otherwise compare.
type instant string

func normalized(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, c := range v {
			out[k] = normalized(c)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, c := range v {
			out[i] = normalized(c)
		}
		return out
	case time.Time:
		return instant(v.UTC().Format(time.RFC3339Nano))
	}
	return v
}
