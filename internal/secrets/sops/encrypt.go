package sops

import (
	"bytes"
	"crypto/cipher"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"
	"time"

	"filippo.io/age"
	"filippo.io/age/armor"
	"go.yaml.in/yaml/v4"
)

// Version is the sops release whose file format Encrypt writes, recorded in
// `sops.version`.
const Version = "3.11.0"

// ivSize is the GCM nonce size sops uses for every value.
const ivSize = 32

// EncryptOptions are the inputs of Encrypt besides the plaintext.
type EncryptOptions struct {
	// Recipients are the age recipients the data key is wrapped for, each in
	// its own stanza, in this order.
	Recipients []*age.X25519Recipient
	// Now is the time recorded as `sops.lastmodified` (the MAC's additional data).
	Now time.Time
	// Rand is the source of the data key and of the values' IVs. age draws the
	// randomness of its own stanzas from crypto/rand.
	Rand io.Reader
}

// Encrypt seals a plaintext YAML document the way `sops encrypt --age R1,R2`
// does with no creation rule: every non-null leaf is encrypted with
// AES-256-GCM under a fresh data key (a key ending in _unencrypted leaves its
// subtree in clear), the data key is wrapped for each age recipient (armored),
// and the MAC over the values is sealed with the last-modified time. The
// output is laid out as sops lays it out (four-space indent, keys in their
// original order, the `sops` block last).
//
// Only what a secrets bundle needs is supported: one document, whose values
// are strings, integers, floats, booleans, timestamps or nulls, without
// comments. Errors name paths, never values.
func Encrypt(plain []byte, opts EncryptOptions) ([]byte, error) {
	if len(opts.Recipients) == 0 {
		return nil, errors.New("sops: encrypt: no age recipient")
	}
	if opts.Rand == nil {
		return nil, errors.New("sops: encrypt: no source of randomness")
	}
	docs, err := parseStream(plain)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("%w: encrypt needs exactly one YAML document, found %d", ErrUnsupported, len(docs))
	}
	if root := docs[0]; len(root.Content) == 1 && lookup(root.Content[0], metadataKey) != nil {
		return nil, &FormatError{Path: metadataKey, Reason: "the document already has a top-level sops key"}
	}
	l := &loader{}
	tree, err := l.document(docs[0])
	if err != nil {
		return nil, err
	}

	dataKey := make([]byte, dataKeySize)
	if _, err := io.ReadFull(opts.Rand, dataKey); err != nil {
		return nil, fmt.Errorf("sops: encrypt: draw the data key: %w", err)
	}
	defer clear(dataKey)
	vc, err := newValueCipher(dataKey)
	if err != nil {
		return nil, fmt.Errorf("sops: encrypt: %w", err)
	}

	s := &sealer{cipher: vc, rules: &rules{unencryptedSuffix: defaultUnencryptedSuffix}, mac: sha512.New(), rand: opts.Rand}
	if err := s.mapping(tree, where{}); err != nil {
		return nil, err
	}

	lastModified := opts.Now.UTC().Format(time.RFC3339)
	mac, err := vc.encrypt(fmt.Sprintf("%X", s.mac.Sum(nil)), lastModified, opts.Rand)
	if err != nil {
		return nil, err
	}

	meta, err := sealedMetadata(dataKey, opts.Recipients, lastModified, mac)
	if err != nil {
		return nil, err
	}

	root := mappingNode(tree)
	root.Content = append(root.Content, stringNode(metadataKey), meta)

	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(emitIndent)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}); err != nil {
		return nil, &FormatError{Reason: "the encrypted document cannot be encoded as YAML"}
	}
	if err := enc.Close(); err != nil {
		return nil, &FormatError{Reason: "the encrypted document cannot be encoded as YAML"}
	}
	return buf.Bytes(), nil
}

// sealedMetadata is the sops block: the data key wrapped for each recipient, then the last
// modification, the MAC and the format's settings.
func sealedMetadata(dataKey []byte, recipients []*age.X25519Recipient, lastModified, mac string) (*yaml.Node, error) {
	meta := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	stanzas := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, r := range recipients {
		enc, err := wrapDataKey(dataKey, r)
		if err != nil {
			return nil, err
		}
		stanzas.Content = append(stanzas.Content, stringMap("recipient", r.String(), "enc", enc))
	}
	meta.Content = append(meta.Content, stringNode("age"), stanzas)
	meta.Content = append(meta.Content, stringMap(
		"lastmodified", lastModified,
		"mac", mac,
		"unencrypted_suffix", defaultUnencryptedSuffix,
		"version", Version,
	).Content...)

	return meta, nil
}

// ParseRecipient reads one age X25519 recipient (age1...). Its error never
// quotes the text: a secret key pasted by mistake must not be printed.
func ParseRecipient(s string) (*age.X25519Recipient, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(strings.ToUpper(s), "AGE-SECRET-KEY-") {
		return nil, errors.New("this is an age secret key, not a recipient: give its public key (age1...)")
	}
	r, err := age.ParseX25519Recipient(s)
	if err != nil {
		return nil, errors.New("not an age X25519 recipient (age1...)")
	}
	return r, nil
}

// sealer encrypts a tree in place in sops's walk order and feeds the MAC
// with the plaintext values, as sops's tree.Encrypt does.
type sealer struct {
	cipher valueCipher
	rules  *rules
	mac    hash.Hash
	rand   io.Reader
}

func (s *sealer) mapping(m mapping, at where) error {
	for i := range m {
		e := &m[i]
		if e.isComment {
			return fmt.Errorf("%w: encrypt does not take comments (%s)", ErrUnsupported, placeOrTop(at.display))
		}
		child := where{keys: append(at.keys[:len(at.keys):len(at.keys)], e.key), display: at.display.child(e.key)}
		if err := s.value(e.value, child); err != nil {
			return err
		}
	}
	return nil
}

func (s *sealer) value(v any, at where) error {
	switch v := v.(type) {
	case mapping:
		return s.mapping(v, at)
	case sequence:
		index := 0
		for _, item := range v {
			if _, ok := item.(*comment); ok {
				return fmt.Errorf("%w: encrypt does not take comments (%s)", ErrUnsupported, placeOrTop(at.display))
			}
			child := at
			child.display = at.display.item(index)
			index++
			if err := s.value(item, child); err != nil {
				return err
			}
		}
		return nil
	case *scalar:
		return s.scalar(v, at)
	}
	return &FormatError{Path: at.display.String(), Reason: "unexpected value"}
}

func (s *sealer) scalar(sc *scalar, at where) error {
	if sc.value == nil {
		// sops neither encrypts nor authenticates nulls.
		return nil
	}
	b, err := macBytes(sc.value)
	if err != nil {
		return &FormatError{Path: at.display.String(), Line: sc.line, Reason: err.Error()}
	}
	s.mac.Write(b) // a hash never fails
	if !s.rules.encrypted(at.keys, nil, false) {
		return nil
	}
	text, err := s.cipher.encrypt(sc.value, additionalData(at.keys), s.rand)
	if err != nil {
		return &FormatError{Path: at.display.String(), Line: sc.line, Reason: err.Error()}
	}
	sc.value = text
	return nil
}

// encrypt seals a value as sops's AES-GCM cipher does: the value's text
// (booleans as True/False), a 32-byte IV, the tag apart, the type named. An
// empty string stays empty, as in sops.
func (c valueCipher) encrypt(v any, additionalData string, rand io.Reader) (string, error) {
	var plain []byte
	var typ string
	switch v := v.(type) {
	case string:
		if v == "" {
			return "", nil
		}
		plain, typ = []byte(v), "str"
	case int:
		plain, typ = []byte(strconv.Itoa(v)), "int"
	case float64:
		plain, typ = []byte(strconv.FormatFloat(v, 'f', -1, 64)), "float"
	case bool:
		plain, typ = []byte("False"), "bool"
		if v {
			plain = []byte("True")
		}
	case time.Time:
		b, err := v.MarshalText()
		if err != nil {
			return "", errors.New("timestamp out of range")
		}
		plain, typ = b, "time"
	default:
		return "", errors.New("value of a type encrypt does not support")
	}
	iv := make([]byte, ivSize)
	if _, err := io.ReadFull(rand, iv); err != nil {
		return "", fmt.Errorf("draw an IV: %w", err)
	}
	gcm, err := cipher.NewGCMWithNonceSize(c.block, ivSize)
	if err != nil {
		return "", errors.New("unusable data key")
	}
	sealed := gcm.Seal(nil, iv, plain, []byte(additionalData))
	data, tag := sealed[:len(sealed)-gcm.Overhead()], sealed[len(sealed)-gcm.Overhead():]
	enc := base64.StdEncoding
	return "ENC[AES256_GCM,data:" + enc.EncodeToString(data) + ",iv:" + enc.EncodeToString(iv) +
		",tag:" + enc.EncodeToString(tag) + ",type:" + typ + "]", nil
}

// wrapDataKey seals the data key for one recipient, armored, as sops's age
// key source does.
func wrapDataKey(dataKey []byte, r *age.X25519Recipient) (string, error) {
	var buf bytes.Buffer
	aw := armor.NewWriter(&buf)
	w, err := age.Encrypt(aw, r)
	if err != nil {
		return "", fmt.Errorf("sops: encrypt: wrap the data key for %s: %w", r, err)
	}
	if _, err := w.Write(dataKey); err != nil {
		return "", fmt.Errorf("sops: encrypt: wrap the data key for %s: %w", r, err)
	}
	if err := w.Close(); err != nil {
		return "", fmt.Errorf("sops: encrypt: wrap the data key for %s: %w", r, err)
	}
	if err := aw.Close(); err != nil {
		return "", fmt.Errorf("sops: encrypt: wrap the data key for %s: %w", r, err)
	}
	return buf.String(), nil
}

func stringNode(s string) *yaml.Node {
	n := &yaml.Node{}
	setString(n, s)
	return n
}

// stringMap is a mapping of string keys to string values, in the order given.
func stringMap(kv ...string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Content = append(n.Content, stringNode(kv[i]), stringNode(kv[i+1]))
	}
	return n
}

func placeOrTop(p *pathRef) string {
	if s := p.String(); s != "" {
		return s
	}
	return "top level"
}
