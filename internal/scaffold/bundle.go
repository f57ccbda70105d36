package scaffold

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"filippo.io/age"
	gensecrets "github.com/siderolabs/talos/pkg/machinery/config/generate/secrets"
	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/secrets/sops"
)

// BundleYAML encodes a secrets bundle in the layout of talosctl gen secrets.
func BundleYAML(b *gensecrets.Bundle) ([]byte, error) {
	var buf bytes.Buffer

	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(4)

	if err := enc.Encode(b); err != nil {
		// The encoder's message could quote a value.
		return nil, fmt.Errorf("encode the secrets bundle")
	}

	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode the secrets bundle")
	}

	return buf.Bytes(), nil
}

// EncryptedBundleYAML is the bundle encrypted with SOPS/age to the recipients, as
// `sops encrypt --age` writes it.
func EncryptedBundleYAML(b *gensecrets.Bundle, recipients []*age.X25519Recipient, now time.Time, rand io.Reader) ([]byte, error) {
	plain, err := BundleYAML(b)
	if err != nil {
		return nil, err
	}

	out, err := sops.Encrypt(plain, sops.EncryptOptions{Recipients: recipients, Now: now, Rand: rand})
	clear(plain)

	if err != nil {
		return nil, fmt.Errorf("encrypt the secrets bundle: %w", err)
	}

	return out, nil
}

// PlaintextBundleYAML is the bundle in clear, under a header that says so.
func PlaintextBundleYAML(b *gensecrets.Bundle, name string) ([]byte, error) {
	plain, err := BundleYAML(b)
	if err != nil {
		return nil, err
	}

	header := fmt.Sprintf("# PLAINTEXT secrets bundle of the cluster %s: whoever reads this file owns the cluster.\n"+
		"# Encrypt it before it leaves this machine: sops encrypt --age <recipient> --in-place %s\n", name, PlaintextBundle)

	return append([]byte(header), plain...), nil
}
