package sops

import (
	"errors"
	"fmt"
	"hash"
	"strings"
)

// macOnlyEncryptedInit seeds the MAC when mac_only_encrypted is set, so that
// the MAC differs from one over all values (sha256("sops"), as sops does).
var macOnlyEncryptedInit = []byte{
	0x8a, 0x3f, 0xd2, 0xad, 0x54, 0xce, 0x66, 0x52, 0x7b, 0x10, 0x34, 0xf3, 0xd1, 0x47, 0xbe, 0x0b,
	0x0b, 0x97, 0x5b, 0x3b, 0xf4, 0x4f, 0x72, 0xc6, 0xfd, 0xad, 0xec, 0x81, 0x76, 0xf2, 0x7d, 0x69,
}

// walker decrypts a tree in place in sops's walk order and feeds the MAC.
type walker struct {
	cipher           valueCipher
	rules            *rules
	macOnlyEncrypted bool
	mac              hash.Hash
}

// where carries a leaf's position: keys is the path sops authenticates
// (mapping keys only), display the path shown in errors (with list indices).
type where struct {
	keys     []string
	display  *pathRef
	comments [][]string
}

func (w *walker) mapping(m mapping, at where) error {
	at.comments = pushLevel(at.comments)
	top := len(at.comments) - 1
	for i := range m {
		e := &m[i]
		if e.isComment {
			at.comments[top] = append(at.comments[top], e.key)
			text, err := w.comment(e.key, e.line, at)
			if err != nil {
				return err
			}
			e.key = text
			continue
		}
		child := where{
			keys:     append(at.keys[:len(at.keys):len(at.keys)], e.key),
			display:  at.display.child(e.key),
			comments: at.comments,
		}
		v, err := w.value(e.value, child, false)
		if err != nil {
			return err
		}
		e.value = v
		at.comments[top] = nil
	}
	return nil
}

func (w *walker) sequence(s sequence, at where) error {
	at.comments = pushLevel(at.comments)
	top := len(at.comments) - 1
	index := 0
	for i, item := range s {
		if c, ok := item.(*comment); ok {
			at.comments[top] = append(at.comments[top], c.text)
			text, err := w.comment(c.text, c.line, at)
			if err != nil {
				return err
			}
			c.text = text
			continue
		}
		child := at
		child.display = at.display.item(index)
		index++
		v, err := w.value(item, child, true)
		if err != nil {
			return err
		}
		s[i] = v
		at.comments[top] = nil
	}
	return nil
}

func (w *walker) value(v any, at where, inSequence bool) (any, error) {
	switch v := v.(type) {
	case mapping:
		return v, w.mapping(v, at)
	case sequence:
		return v, w.sequence(v, at)
	case *scalar:
		return w.scalar(v, at, inSequence)
	}
	return nil, &FormatError{Path: at.display.String(), Reason: "unexpected value"}
}

func (w *walker) scalar(s *scalar, at where, inSequence bool) (any, error) {
	if s.value == nil {
		// sops neither encrypts nor authenticates nulls.
		return s, nil
	}
	encrypted := w.rules.encrypted(at.keys, at.comments, false)
	v := s.value
	if encrypted {
		text, ok := v.(string)
		if !ok {
			return nil, &FormatError{Path: at.display.String(), Line: s.line, Reason: fmt.Sprintf("expected an encrypted value, found a plaintext %s", kindOf(v))}
		}
		plain, err := w.cipher.decrypt(text, additionalData(at.keys))
		if err != nil {
			return nil, valueErr(err, at.display.String(), s.line)
		}
		if c, ok := plain.(commentText); ok {
			// sops writes encrypted comments of a list as list items.
			if !inSequence {
				return nil, &FormatError{Path: at.display.String(), Line: s.line, Reason: "an encrypted comment stands where a value belongs"}
			}
			return &comment{text: string(c), line: s.line}, nil
		}
		v = plain
	}
	if !w.macOnlyEncrypted || encrypted {
		b, err := macBytes(v)
		if err != nil {
			return nil, &FormatError{Path: at.display.String(), Line: s.line, Reason: err.Error()}
		}
		w.mac.Write(b)
	}
	s.value = v
	return s, nil
}

// comment decrypts a comment line when sops would have encrypted it. A
// comment that does not open is kept as it is, as sops does: it may predate
// comment encryption. Comments never count towards the MAC.
func (w *walker) comment(text string, line int, at where) (string, error) {
	if text == "" || !w.rules.encrypted(at.keys, at.comments, true) {
		return text, nil
	}
	plain, err := w.cipher.decrypt(text, additionalData(at.keys))
	if err != nil {
		return text, nil
	}
	c, ok := plain.(commentText)
	if !ok {
		return "", &FormatError{Path: at.display.String(), Line: line, Reason: "an encrypted comment holds a value that is not a comment"}
	}
	return string(c), nil
}

func valueErr(err error, path string, line int) error {
	if errors.Is(err, errAuth) {
		return &ValueError{Path: path, Line: line}
	}
	return &FormatError{Path: path, Line: line, Reason: err.Error()}
}

// additionalData is what sops authenticates each value with: the mapping
// keys leading to it, each followed by a colon.
func additionalData(keys []string) string {
	return strings.Join(keys, ":") + ":"
}

func pushLevel(levels [][]string) [][]string {
	return append(levels[:len(levels):len(levels)], nil)
}

func kindOf(v any) string {
	switch v.(type) {
	case int, uint64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	}
	return fmt.Sprintf("%T", v)
}
