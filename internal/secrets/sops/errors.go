package sops

import (
	"errors"
	"fmt"
)

var (
	// ErrNotEncrypted is returned for a document without a top-level `sops`
	// mapping holding a `mac`.
	ErrNotEncrypted = errors.New("sops: document is not sops-encrypted")

	// ErrNoMatchingKey is returned when none of the given age identities
	// unwraps the document's data key.
	ErrNoMatchingKey = errors.New("sops: no age identity matches a recipient of the document")

	// ErrTampered is the class of every integrity failure: a value that fails
	// authentication or a MAC that does not match.
	ErrTampered = errors.New("sops: document integrity check failed")

	// ErrMACMismatch is returned when the MAC computed over the decrypted
	// values differs from the MAC stored in the document, or the stored MAC
	// cannot be authenticated. It wraps ErrTampered.
	ErrMACMismatch = fmt.Errorf("%w: MAC mismatch", ErrTampered)

	// ErrUnsupported is returned for valid sops documents using a feature this
	// package does not implement (for example Shamir key groups).
	ErrUnsupported = errors.New("sops: unsupported document")
)

// FormatError reports a malformed SOPS document. Its message names the place
// of the problem and never contains a decrypted value or key material.
type FormatError struct {
	// Path is the YAML path of the offending node, such as "cluster.secret",
	// "certs.list[2]" or "sops.lastmodified"; empty for the whole document.
	Path string
	// Line is the 1-based line of the offending node, 0 when unknown.
	Line int
	// Reason says what is wrong.
	Reason string
}

func (e *FormatError) Error() string {
	return "sops: malformed document: " + place(e.Path, e.Line) + e.Reason
}

// ValueError reports an encrypted value that fails authentication: the
// document was modified, or a value was moved to another path. It wraps
// ErrTampered.
type ValueError struct {
	// Path is the YAML path of the value, such as "cluster.secret".
	Path string
	// Line is the 1-based line of the value.
	Line int
}

func (e *ValueError) Error() string {
	return "sops: " + place(e.Path, e.Line) + "encrypted value fails authentication (modified or moved)"
}

// Unwrap lets errors.Is(err, ErrTampered) match.
func (e *ValueError) Unwrap() error { return ErrTampered }

// IdentityError reports an age identity that cannot be loaded. It names the
// source and line, never the key text.
type IdentityError struct {
	// Source is the environment variable or file the identity came from.
	Source string
	// Line is the 1-based line within Source, 0 when not about one line.
	Line int
	// Reason says what is wrong.
	Reason string
}

func (e *IdentityError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("sops: age identities from %s, line %d: %s", e.Source, e.Line, e.Reason)
	}
	return fmt.Sprintf("sops: age identities from %s: %s", e.Source, e.Reason)
}

func place(path string, line int) string {
	switch {
	case path != "" && line > 0:
		return fmt.Sprintf("%s (line %d): ", path, line)
	case path != "":
		return path + ": "
	case line > 0:
		return fmt.Sprintf("line %d: ", line)
	}
	return ""
}
