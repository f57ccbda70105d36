package sops

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"filippo.io/age"
	"filippo.io/age/armor"
)

const dataKeySize = 32

// unwrapDataKey opens the first age stanza that one of the identities can
// open. sops wraps the same data key for every recipient of a key group.
func unwrapDataKey(recipients []ageRecipient, identities []age.Identity) ([]byte, error) {
	if len(recipients) == 0 {
		return nil, fmt.Errorf("%w: the document has no age recipients", ErrNoMatchingKey)
	}
	if len(identities) == 0 {
		return nil, fmt.Errorf("%w: no age identities were given", ErrNoMatchingKey)
	}
	var malformed []error
	names := make([]string, 0, len(recipients))
	for _, r := range recipients {
		names = append(names, r.recipient)
		key, err := openStanza(r.enc, identities)
		if err == nil {
			return key, nil
		}
		var noMatch *age.NoIdentityMatchError
		if !errors.As(err, &noMatch) {
			malformed = append(malformed, &FormatError{Path: r.path + ".enc", Line: r.line, Reason: err.Error()})
		}
	}
	noKey := fmt.Errorf("%w (recipients: %s)", ErrNoMatchingKey, strings.Join(names, ", "))
	return nil, errors.Join(append([]error{noKey}, malformed...)...)
}

func openStanza(enc string, identities []age.Identity) ([]byte, error) {
	r, err := age.Decrypt(armor.NewReader(strings.NewReader(enc)), identities...)
	if err != nil {
		var noMatch *age.NoIdentityMatchError
		if errors.As(err, &noMatch) {
			return nil, err
		}
		return nil, errors.New("not a valid age-encrypted data key")
	}
	key, err := io.ReadAll(io.LimitReader(r, dataKeySize+1))
	if err != nil {
		return nil, errors.New("age payload fails authentication")
	}
	if len(key) != dataKeySize {
		return nil, fmt.Errorf("data key is %d bytes, want %d", len(key), dataKeySize)
	}
	return key, nil
}
