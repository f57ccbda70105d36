// Package importer is what every importer shares: the repository an import writes (its
// files, the schematics it names, talops.yaml), the findings it makes, how it encodes
// YAML documents, and its Result. Each importer below it (talhelper, topf, talosctl)
// only reads its source format and builds the talops spec; adding another means adding
// its reader and its tests.
package importer
