// Package schematic models an Image Factory schematic and computes its ID.
//
// The types mirror the factory's own schematic document: the field order, the
// YAML keys and the omitempty flags are part of the ID, because the ID is the
// SHA-256 of the document re-encoded from these types. Changing any of them
// changes every ID, so the test vectors under testdata/vectors guard them.
package schematic

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"go.yaml.in/yaml/v4"
)

// VanillaID is the ID of the empty schematic: a stock Talos image.
const VanillaID = "376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba"

// Schematic is the customisation the Image Factory applies to a Talos image.
type Schematic struct {
	// Owner restricts the schematic to one account; only the Enterprise
	// factory accepts it, the public one rejects the schematic.
	Owner         string        `yaml:"owner,omitempty"`
	Overlay       Overlay       `yaml:"overlay,omitempty"`
	Customization Customization `yaml:"customization"`
}

// Customization is what the schematic changes in the stock image.
type Customization struct {
	EmbeddedMachineConfiguration string           `yaml:"embeddedMachineConfiguration,omitempty"`
	ExtraKernelArgs              []string         `yaml:"extraKernelArgs,omitempty"`
	Meta                         []MetaValue      `yaml:"meta,omitempty"`
	SystemExtensions             SystemExtensions `yaml:"systemExtensions,omitempty"`
	Bootloader                   Bootloader       `yaml:"bootloader,omitempty"`
	SecureBoot                   SecureBoot       `yaml:"secureboot,omitempty"`
	DiskImage                    DiskImage        `yaml:"diskImage,omitempty"`
}

// MetaValue is one initial entry of the Talos META partition.
type MetaValue struct {
	Key   uint8  `yaml:"key"`
	Value string `yaml:"value"`
}

// SystemExtensions lists official extensions by image name ("siderolabs/iscsi-tools");
// the factory picks the tag that matches the requested Talos version.
type SystemExtensions struct {
	OfficialExtensions []string `yaml:"officialExtensions,omitempty"`
}

// Overlay is a board overlay (single-board computers).
type Overlay struct {
	Image   string         `yaml:"image"`
	Name    string         `yaml:"name"`
	Options map[string]any `yaml:"options,omitempty"`
}

// SecureBoot holds the options of SecureBoot images.
type SecureBoot struct {
	// EnrollKeys is systemd-boot's secure-boot-enroll mode: off, manual, if-safe or force.
	EnrollKeys                   string `yaml:"enrollKeys,omitempty"`
	IncludeWellKnownCertificates bool   `yaml:"includeWellKnownCertificates,omitempty"`
}

// DiskImage holds the options of disk images.
type DiskImage struct {
	// SectorSize in bytes; the factory uses 512 when it is zero.
	SectorSize uint `yaml:"sectorSize,omitempty"`
}

// encodeOptions are the settings of the factory's yaml.Marshal (go.yaml.in/yaml/v4):
// the v3 defaults (4-space indent, "- " outside the indentation, legacy quoting)
// without a line width limit. They are spelled out so that a change of the
// library's Marshal defaults shows up as a failing vector, not as new IDs. They are built
// per call: an option of the library writes to its own captured argument when applied, so
// one shared list is a data race between concurrent encodings.
func encodeOptions() []yaml.Option {
	return []yaml.Option{yaml.WithV3Defaults(), yaml.WithLineWidth(-1)}
}

// Marshal returns the canonical encoding: the bytes the ID hashes and the body
// to post to the factory.
func (s *Schematic) Marshal() ([]byte, error) {
	out, err := yaml.Dump(s, encodeOptions()...)
	if err != nil {
		return nil, fmt.Errorf("encode schematic: %w", err)
	}

	return out, nil
}

// ID returns the schematic's Image Factory ID: the lowercase hex SHA-256 of Marshal.
func (s *Schematic) ID() (string, error) {
	data, err := s.Marshal()
	if err != nil {
		return "", err
	}

	sum := sha256.Sum256(data)

	return hex.EncodeToString(sum[:]), nil
}

// Extensions returns a copy of the official extension names, in file order.
func (s *Schematic) Extensions() []string {
	return slices.Clone(s.Customization.SystemExtensions.OfficialExtensions)
}
