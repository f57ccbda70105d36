package secrets

import (
	"github.com/siderolabs/talos/pkg/machinery/config"
	gensecrets "github.com/siderolabs/talos/pkg/machinery/config/generate/secrets"
)

// Parse reads a bundle in the talosctl gen secrets format (talhelper's talsecret too) and
// checks it for the contract; its errors name fields, never values.
func Parse(data []byte, contract *config.VersionContract) (*gensecrets.Bundle, error) {
	return parse(data, contract)
}
