package sops

import (
	"bytes"
	"fmt"
	"regexp"
	"time"

	"go.yaml.in/yaml/v4"
)

const (
	metadataKey              = "sops"
	defaultUnencryptedSuffix = "_unencrypted"
)

// metadata is the part of the `sops` block that decryption needs.
type metadata struct {
	recipients       []ageRecipient
	lastModified     string // as sops formats it for the MAC's additional data
	mac              string
	macLine          int
	macOnlyEncrypted bool
	rules            rules
}

type ageRecipient struct {
	recipient string
	enc       string
	path      string
	line      int
}

// IsEncrypted reports whether data is a SOPS-encrypted YAML document (a
// top-level `sops` mapping with a `mac`).
func IsEncrypted(data []byte) bool {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		return false
	}
	_, ok := metadataNode(&doc)
	return ok
}

// metadataNode finds the `sops` mapping of the first document; it only
// counts when it holds a `mac`.
func metadataNode(doc *yaml.Node) (*yaml.Node, bool) {
	root := deref(doc)
	if root != nil && root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = deref(root.Content[0])
	}
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, false
	}
	sops := lookup(root, metadataKey)
	if sops == nil || sops.Kind != yaml.MappingNode || lookup(sops, "mac") == nil {
		return nil, false
	}
	return sops, true
}

// parseMetadata reads the `sops` block like sops's stores.Metadata.ToInternal.
func parseMetadata(n *yaml.Node) (*metadata, error) {
	m := &metadata{}
	var err error
	str := func(key string) (string, error) {
		v := lookup(n, key)
		if v == nil {
			return "", nil
		}
		if v.Kind != yaml.ScalarNode {
			return "", &FormatError{Path: metadataKey + "." + key, Line: v.Line, Reason: "expected a scalar"}
		}
		if val, _ := scalarValue(v); val == nil {
			return "", nil
		}
		return v.Value, nil
	}

	lm, err := str("lastmodified")
	if err != nil {
		return nil, err
	}
	t, perr := time.Parse(time.RFC3339, lm)
	if perr != nil {
		return nil, &FormatError{Path: "sops.lastmodified", Line: lineOf(lookup(n, "lastmodified"), n), Reason: "not an RFC 3339 timestamp"}
	}
	// sops authenticates the MAC with the re-formatted time, not the text.
	m.lastModified = t.Format(time.RFC3339)

	if m.mac, err = str("mac"); err != nil {
		return nil, err
	}
	m.macLine = lineOf(lookup(n, "mac"), n)

	if v := lookup(n, "mac_only_encrypted"); v != nil {
		b, _ := scalarValue(v)
		switch b := b.(type) {
		case bool:
			m.macOnlyEncrypted = b
		case nil:
		default:
			return nil, &FormatError{Path: "sops.mac_only_encrypted", Line: v.Line, Reason: "expected a boolean"}
		}
	}

	if err := m.parseRules(str); err != nil {
		return nil, err
	}
	if err := m.parseKeyGroups(n); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *metadata) parseRules(str func(string) (string, error)) error {
	r := &m.rules
	count := 0
	for _, f := range []struct {
		key   string
		text  *string
		regex **regexp.Regexp
	}{
		{"unencrypted_suffix", &r.unencryptedSuffix, nil},
		{"encrypted_suffix", &r.encryptedSuffix, nil},
		{"unencrypted_regex", nil, &r.unencryptedRegex},
		{"encrypted_regex", nil, &r.encryptedRegex},
		{"unencrypted_comment_regex", nil, &r.unencryptedCommentRegex},
		{"encrypted_comment_regex", nil, &r.encryptedCommentRegex},
	} {
		s, err := str(f.key)
		if err != nil {
			return err
		}
		if s == "" {
			continue
		}
		count++
		if f.text != nil {
			*f.text = s
			continue
		}
		re, err := regexp.Compile(s)
		if err != nil {
			return &FormatError{Path: metadataKey + "." + f.key, Reason: "invalid regular expression"}
		}
		*f.regex = re
	}
	if count > 1 {
		return &FormatError{Path: metadataKey, Reason: "more than one of encrypted_suffix, unencrypted_suffix, encrypted_regex, unencrypted_regex, encrypted_comment_regex and unencrypted_comment_regex"}
	}
	if count == 0 {
		r.unencryptedSuffix = defaultUnencryptedSuffix
	}
	return nil
}

var keyTypes = []string{"kms", "gcp_kms", "azure_kv", "hc_vault", "pgp", "age"}

// parseKeyGroups collects the age recipients. Like sops, keys listed directly
// under `sops` form the only key group, and `key_groups` is read otherwise.
func (m *metadata) parseKeyGroups(n *yaml.Node) error {
	top := false
	for _, t := range keyTypes {
		if v := lookup(n, t); v != nil && v.Kind == yaml.SequenceNode && len(v.Content) > 0 {
			top = true
		}
	}
	if top {
		return m.parseGroup(n, metadataKey)
	}
	groups := lookup(n, "key_groups")
	if groups == nil || groups.Kind != yaml.SequenceNode || len(groups.Content) == 0 {
		return &FormatError{Path: metadataKey, Line: n.Line, Reason: "no keys found in the sops metadata"}
	}
	if len(groups.Content) > 1 {
		return fmt.Errorf("%w: Shamir secret sharing over %d key groups (sops.key_groups, line %d)", ErrUnsupported, len(groups.Content), groups.Line)
	}
	g := deref(groups.Content[0])
	if g == nil || g.Kind != yaml.MappingNode {
		return &FormatError{Path: "sops.key_groups[0]", Line: groups.Line, Reason: "expected a mapping"}
	}
	return m.parseGroup(g, "sops.key_groups[0]")
}

func (m *metadata) parseGroup(g *yaml.Node, path string) error {
	list := lookup(g, "age")
	if list == nil {
		return nil
	}
	if list.Kind != yaml.SequenceNode {
		return &FormatError{Path: path + ".age", Line: list.Line, Reason: "expected a list"}
	}
	for i, item := range list.Content {
		itemPath := fmt.Sprintf("%s.age[%d]", path, i)
		item = deref(item)
		if item == nil || item.Kind != yaml.MappingNode {
			return &FormatError{Path: itemPath, Line: list.Line, Reason: "expected a mapping"}
		}
		r := ageRecipient{path: itemPath, line: item.Line}
		for _, f := range []struct {
			key string
			dst *string
		}{{"recipient", &r.recipient}, {"enc", &r.enc}} {
			v := lookup(item, f.key)
			if v == nil {
				continue
			}
			if v.Kind != yaml.ScalarNode {
				return &FormatError{Path: itemPath + "." + f.key, Line: v.Line, Reason: "expected a scalar"}
			}
			*f.dst = v.Value
		}
		m.recipients = append(m.recipients, r)
	}
	return nil
}

// lookup returns the value of key in mapping n, following aliases.
func lookup(n *yaml.Node, key string) *yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := deref(n.Content[i]); k != nil && k.Kind == yaml.ScalarNode && k.Value == key {
			return deref(n.Content[i+1])
		}
	}
	return nil
}

// deref follows an alias chain, giving up on chains that do not end.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode; i++ {
		if i > 64 {
			return nil
		}
		n = n.Alias
	}
	return n
}

func lineOf(n, fallback *yaml.Node) int {
	if n != nil {
		return n.Line
	}
	return fallback.Line
}

// Recipients lists the age recipients a SOPS file is encrypted to, as its metadata names
// them; nil for a file that is not SOPS-encrypted.
func Recipients(data []byte) ([]string, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		return nil, nil //nolint:nilerr // not YAML: not a SOPS file either
	}

	n, ok := metadataNode(&doc)
	if !ok {
		return nil, nil
	}

	m, err := parseMetadata(n)
	if err != nil {
		return nil, err
	}

	out := make([]string, 0, len(m.recipients))
	for _, r := range m.recipients {
		out = append(out, r.recipient)
	}

	return out, nil
}
