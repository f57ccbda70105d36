package sops

import (
	"crypto/sha512"
	"crypto/subtle"
	"fmt"

	"filippo.io/age"
)

// Decrypt decrypts a SOPS-encrypted YAML document with the given age
// identities and verifies its MAC. It returns the plaintext YAML document
// without the `sops` metadata, keys in their original order.
//
// Every document of a multi-document stream is decrypted; the metadata of
// the first one applies to all, as in sops. Errors are ErrNotEncrypted,
// ErrNoMatchingKey, ErrMACMismatch, *ValueError (both wrap ErrTampered),
// *FormatError or ErrUnsupported; none of their messages contains a
// decrypted value or key material.
func Decrypt(data []byte, identities []age.Identity) ([]byte, error) {
	docs, err := parseStream(data)
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, ErrNotEncrypted
	}
	metaNode, ok := metadataNode(docs[0])
	if !ok {
		return nil, ErrNotEncrypted
	}
	meta, err := parseMetadata(metaNode)
	if err != nil {
		return nil, err
	}

	l := &loader{}
	trees := make([]mapping, 0, len(docs))
	for _, doc := range docs {
		m, err := l.document(doc)
		if err != nil {
			return nil, err
		}
		trees = append(trees, m)
	}

	dataKey, err := unwrapDataKey(meta.recipients, identities)
	if err != nil {
		return nil, err
	}
	vc, err := newValueCipher(dataKey)
	clear(dataKey)
	if err != nil {
		return nil, &FormatError{Path: "sops", Reason: "unusable data key"}
	}

	w := &walker{cipher: vc, rules: &meta.rules, macOnlyEncrypted: meta.macOnlyEncrypted, mac: sha512.New()}
	if meta.macOnlyEncrypted {
		w.mac.Write(macOnlyEncryptedInit)
	}
	for _, m := range trees {
		if err := w.mapping(m, where{}); err != nil {
			return nil, err
		}
	}
	if err := verifyMAC(vc, meta, fmt.Sprintf("%X", w.mac.Sum(nil))); err != nil {
		return nil, err
	}
	return emit(trees)
}

// verifyMAC compares the computed MAC with the stored one, which sops seals
// with the data key and the last-modified time as additional data.
func verifyMAC(vc valueCipher, meta *metadata, computed string) error {
	stored, err := vc.decrypt(meta.mac, meta.lastModified)
	if err != nil {
		return fmt.Errorf("%w (sops.mac, line %d: the stored MAC does not open)", ErrMACMismatch, meta.macLine)
	}
	s, ok := stored.(string)
	if !ok || subtle.ConstantTimeCompare([]byte(s), []byte(computed)) != 1 {
		return ErrMACMismatch
	}
	return nil
}
